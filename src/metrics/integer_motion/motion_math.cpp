// Integer motion stages (shared/spec/vmaf.md section 4).
#include "metrics/integer_motion/motion_math.h"

#include <algorithm>
#include <cstdlib>
#include <type_traits>

namespace vqx::integer_motion {
namespace {

inline uint32_t mirror(int64_t k, uint32_t n) {
  if (k < 0) return uint32_t(-k);
  if (k >= int64_t(n)) return uint32_t(2 * (int64_t(n) - 1) - k);
  return uint32_t(k);
}

// Vertical sums fit int32 up to 12 bits (65536 * 4095 < 2^31); wider samples use int64. Both are
// exact, so the choice cannot change a result.
template <typename Wide, typename Sample>
uint64_t sad_rows(const Sample* prev, const Sample* cur, uint32_t w, uint32_t h, unsigned bpc,
                  uint32_t row_begin, uint32_t row_end) {
  thread_local std::vector<Wide> acc;
  thread_local std::vector<int32_t> y;
  acc.resize(w);
  y.resize(w + 4);
  const Wide round = Wide{1} << (bpc - 1);
  uint64_t sad = 0;
  for (uint32_t i = row_begin; i < row_end; ++i) {
    std::fill(acc.begin(), acc.end(), Wide{0});
    for (int k = 0; k < 5; ++k) {
      size_t row = mirror(int64_t(i) - 2 + k, h);
      const Sample* p = prev + row * w;
      const Sample* c = cur + row * w;
      Wide* __restrict a = acc.data();
      for (uint32_t j = 0; j < w; ++j) a[j] += Wide(kBlur[k]) * (Wide(p[j]) - Wide(c[j]));
    }
    bool any = false;
    for (uint32_t j = 0; j < w; ++j) {
      y[2 + j] = int32_t((acc[j] + round) >> bpc);  // arithmetic shift (floor)
      any |= y[2 + j] != 0;
    }
    if (!any) continue;  // contributes 0 either way
    y[1] = y[3], y[0] = y[4];
    y[w + 2] = y[w], y[w + 3] = y[w - 1];
    int64_t row_sad = 0;
    for (uint32_t j = 0; j < w; ++j) {
      int64_t s = 0;
      for (int k = 0; k < 5; ++k) s += int64_t(kBlur[k]) * y[j + k];
      row_sad += std::abs(int32_t((s + 32768) >> 16));
    }
    sad += uint32_t(row_sad);  // the row total is uint32 (4.2)
  }
  return sad;
}

}  // namespace

template <typename Sample>
uint64_t motion_sad_rows(const Sample* prev, const Sample* cur, uint32_t w, uint32_t h,
                         unsigned bpc, uint32_t row_begin, uint32_t row_end) {
  if (bpc <= 12) return sad_rows<int32_t>(prev, cur, w, h, bpc, row_begin, row_end);
  return sad_rows<int64_t>(prev, cur, w, h, bpc, row_begin, row_end);
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
