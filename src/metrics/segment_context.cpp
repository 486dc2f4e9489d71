#include "metrics/segment_context.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"

namespace vqx {
namespace {

// Each temporal metric's window, from its definition:
//  motion (integer): frame k's motion2 is min(S[k - lag + 1], S[k + 1]) and, with
//    motion_moving_average, its motion3 also reads frame k - 1's motion2; S[j] compares frame j
//    with frame j - lag. So frame k reads frames k - 2*lag .. k + 1 (+1 with the five-frame
//    window), and its values are written once frame k + lag is read.
//  float_motion: motion2[k] = min(score[k], score[k + 1]), score[k] from frames k - 1 and k.
//  speed_temporal: frame k's value reads frames k - 1 and k.
SegmentContext window_of(const MetricRequest& request) {
  const std::string& name = request.metric->name;
  if (name == "motion") {
    const uint64_t lag = request.options.get_bool("motion_five_frame_window") ? 2 : 1;
    return {2 * lag, lag};
  }
  if (name == "float_motion") return {2, 1};
  if (name == "speed_temporal") return {1, 0};
  throw UsageError(fmt::format(
      "--segment: feature '{}' is temporal with no known window, so a segment cannot reproduce "
      "its values; score the whole clip",
      request.spec_text));
}

}  // namespace

SegmentContext segment_context(const std::vector<MetricRequest>& requests) {
  SegmentContext context;
  for (const auto& request : requests) {
    if (!request.metric->make_cpu(request.options)->temporal()) continue;
    const SegmentContext w = window_of(request);
    context.lead = std::max(context.lead, w.lead);
    context.tail = std::max(context.tail, w.tail);
  }
  return context;
}

}  // namespace vqx
