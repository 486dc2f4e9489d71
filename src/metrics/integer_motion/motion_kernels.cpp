// The plain twin of the integer motion SAD kernel (shared/spec/vmaf.md 4.2): the straightforward
// transcription of the spec. Also the table builder: this entry first, then each level's
// overrides.
#include "metrics/integer_motion/motion_kernels.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "metrics/integer_motion/motion_math.h"
#include "metrics/vmaf_common/mirror.h"

namespace vqx::integer_motion {
namespace {

using vmaf_common::mirror;

// Vertical sums fit int32 up to 12 bits (65536 * 4095 < 2^31); wider samples use int64. Both are
// exact, so the choice cannot change a result.
template <typename Wide, typename Sample>
uint64_t sad_rows_wide(const Sample* prev, const Sample* cur, uint32_t w, uint32_t h,
                       unsigned bpc, uint32_t row_begin, uint32_t row_end) {
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

template <typename Sample>
uint64_t sad_rows(const Sample* prev, const Sample* cur, uint32_t w, uint32_t h, unsigned bpc,
                  uint32_t row_begin, uint32_t row_end) {
  if (bpc <= 12) return sad_rows_wide<int32_t>(prev, cur, w, h, bpc, row_begin, row_end);
  return sad_rows_wide<int64_t>(prev, cur, w, h, bpc, row_begin, row_end);
}

}  // namespace

MotionKernels plain_motion_kernels() { return {sad_rows<uint8_t>, sad_rows<uint16_t>}; }

MotionKernels make_motion_kernels(const CpuFeatures& cpu) {
  MotionKernels k = plain_motion_kernels();
  if (cpu.avx2) install_avx2_kernels(k);
  if (cpu.avx512) install_avx512_kernels(k);
  return k;
}

const MotionKernels& motion_kernels() {
  static const MotionKernels kernels = make_motion_kernels(host_cpu_features());
  return kernels;
}

}  // namespace vqx::integer_motion
