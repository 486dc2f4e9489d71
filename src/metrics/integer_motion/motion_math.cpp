// Integer motion: the per-frame score and the flush-time post-processing (shared/spec/vmaf.md
// 4.2, 4.3).
#include "metrics/integer_motion/motion_math.h"

#include <algorithm>

namespace vqx::integer_motion {

double motion_score(uint64_t sad, uint32_t w, uint32_t h, double fps_weight, double max_val) {
  double score = ((double(sad) / 256.0) / double(w * h)) * fps_weight;  // w*h: unsigned int
  return std::min(score, max_val);
}

void motion_post(const std::vector<double>& s, const MotionPostOptions& o,
                 std::vector<double>& motion2, std::vector<double>& motion3) {
  const size_t n_frames = s.size();
  const size_t m0 = o.five_frame_window ? 2 : 1, st = m0;
  motion2.assign(n_frames, 0.0);
  motion3.assign(n_frames, 0.0);
  auto blend = [&](double x) {
    return x * o.blend_factor + (1.0 - o.blend_factor) * std::min(o.blend_offset, x);
  };
  for (size_t n = m0; n < n_frames; ++n) {
    if (n + 1 == n_frames)
      motion2[n] = s[n];
    else if (n - st + 1 >= m0)
      motion2[n] = std::min(s[n - st + 1], s[n + 1]);
    else
      motion2[n] = s[n + 1];
  }
  double stamp = n_frames > m0 ? std::min(blend(s[m0]), o.max_val) : 0.0;
  double prev = stamp;
  for (size_t n = 0; n < n_frames; ++n) {
    if (n < m0) {
      motion3[n] = stamp;
      prev = stamp;
      continue;
    }
    double p = std::min(blend(motion2[n]), o.max_val);
    motion3[n] = o.moving_average ? (p + prev) / 2.0 : p;
    prev = p;
  }
}

}  // namespace vqx::integer_motion
