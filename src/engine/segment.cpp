#include "engine/segment.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"

namespace vqx {

SegmentResult run_segment(FrameSource& reference, FrameSource& distorted,
                          const std::vector<MetricRequest>& requests, const RunSettings& settings,
                          const SegmentRange& range, uint64_t lead, uint64_t tail) {
  if (range.count == 0) throw UsageError("--segment START:COUNT: COUNT must be at least 1");
  if (settings.subsample > 1)
    throw UsageError("--segment does not combine with --subsample; merge scores every frame");
  const uint64_t before = std::min(lead, range.start);
  const uint64_t offset = range.start - before;
  if (settings.frame_cnt != 0 && range.start >= settings.frame_cnt)
    throw UsageError(fmt::format("--segment {}:{} starts after --frame_cnt {}", range.start,
                                 range.count, settings.frame_cnt));
  // The local run: frame `offset` of the clip is its frame 0; its frames are the lead, the
  // segment, the tail and one more.
  RunSettings local = settings;
  local.skip_ref += offset;
  local.skip_dist += offset;
  uint64_t wanted = before + range.count + std::max<uint64_t>(tail, 1);
  if (settings.frame_cnt != 0) wanted = std::min(wanted, settings.frame_cnt - offset);
  local.frame_cnt = wanted;
  local.frame_final = nullptr;
  local.frame_read = nullptr;
  local.progress = nullptr;

  std::unique_ptr<RunReport> report;
  try {
    report = run_metrics(reference, distorted, requests, local);
  } catch (const InputError& e) {
    throw InputError(fmt::format("--segment {}:{}: {}", range.start, range.count, e.what()));
  }
  const ResultTable& table = report->table;
  if (!table.aggregates().empty())
    throw UsageError(fmt::format(
        "--segment: '{}' is a whole-clip value that segments cannot compute (leave enable_apsnr off)",
        table.aggregates().front().first));
  const uint64_t frames = table.frame_count();
  if (frames <= before)
    throw InputError(fmt::format("--segment {}:{}: the clip has only {} frames", range.start,
                                 range.count, offset + frames));

  SegmentResult result;
  result.start = range.start;
  result.count = std::min(frames, before + range.count) - before;
  result.clip_end = frames <= before + range.count;
  result.columns = table.feature_names();
  result.output_order = table.output_order();
  result.format = report->format;
  result.wall_seconds = report->wall_seconds;
  result.backend = report->backend;
  for (uint64_t f = before; f < before + result.count; ++f) {
    std::vector<std::optional<double>> row;
    for (size_t c = 0; c < result.columns.size(); ++c) row.push_back(table.get(f, c));
    result.values.push_back(std::move(row));
  }
  return result;
}

}  // namespace vqx
