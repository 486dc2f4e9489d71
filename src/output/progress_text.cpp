#include "output/progress_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace vqx {

std::string progress_text(uint64_t done, std::optional<uint64_t> total, double seconds) {
  const double fps = seconds > 0 ? double(done) / seconds : 0.0;
  if (!total || done > *total) return fmt::format("{} frame{}, {:.2f} FPS", done, done == 1 ? "" : "s", fps);
  std::string text = fmt::format("{}/{} frames ({:.1f}%), {:.2f} FPS", done, *total,
                                 *total ? 100.0 * double(done) / double(*total) : 100.0, fps);
  if (fps <= 0) return text;
  const uint64_t left = uint64_t(std::llround(double(*total - done) / fps));
  if (left >= 3600)
    return text + fmt::format(", ETA {}:{:02}:{:02}", left / 3600, left / 60 % 60, left % 60);
  return text + fmt::format(", ETA {}:{:02}", left / 60, left % 60);
}

std::optional<uint64_t> frames_to_score(std::optional<uint64_t> reference, uint64_t skip_reference,
                                        std::optional<uint64_t> distorted, uint64_t skip_distorted,
                                        uint64_t frame_cnt) {
  std::optional<uint64_t> total;
  if (reference) total = *reference - std::min(*reference, skip_reference);
  if (distorted) {
    const uint64_t left = *distorted - std::min(*distorted, skip_distorted);
    total = total ? std::min(*total, left) : left;
  }
  if (frame_cnt) total = total ? std::min(*total, frame_cnt) : frame_cnt;
  return total;
}

}  // namespace vqx
