// Integer motion stages (shared/spec/vmaf.md section 4). The SAD kernel: motion_kernels.inc built
// twice (baseline x86-64 and AVX2, chosen at run time, vmaf_common/simd.h) and its plain twin
// motion_plain.inc.
#include "metrics/integer_motion/motion_math.h"

#include <algorithm>
#include <cstdlib>
#include <type_traits>
#include <vector>

#include "metrics/vmaf_common/simd.h"

namespace vqx::integer_motion {
namespace {

namespace plain {
#include "metrics/integer_motion/motion_plain.inc"
}  // namespace plain

namespace base {
#include "metrics/integer_motion/motion_kernels.inc"
}  // namespace base

#pragma GCC push_options
#pragma GCC target("avx2")
namespace avx2 {
#include "metrics/integer_motion/motion_kernels.inc"
}  // namespace avx2
#pragma GCC pop_options

}  // namespace

template <typename Sample>
uint64_t motion_sad_rows(const Sample* prev, const Sample* cur, uint32_t w, uint32_t h,
                         unsigned bpc, uint32_t row_begin, uint32_t row_end) {
  switch (vmaf_common::kernel_path()) {
    case vmaf_common::KernelPath::kAvx2:
      return avx2::motion_sad_rows(prev, cur, w, h, bpc, row_begin, row_end);
    case vmaf_common::KernelPath::kBaseline:
      return base::motion_sad_rows(prev, cur, w, h, bpc, row_begin, row_end);
    case vmaf_common::KernelPath::kPlain:
      break;
  }
  return plain::motion_sad_rows(prev, cur, w, h, bpc, row_begin, row_end);
}

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

template uint64_t motion_sad_rows<uint8_t>(const uint8_t*, const uint8_t*, uint32_t, uint32_t,
                                           unsigned, uint32_t, uint32_t);
template uint64_t motion_sad_rows<uint16_t>(const uint16_t*, const uint16_t*, uint32_t, uint32_t,
                                            unsigned, uint32_t, uint32_t);

}  // namespace vqx::integer_motion
