// The AVX2 level of the integer motion SAD kernel (shared/spec/vmaf.md 4.2): C++ for the
// auto-vectoriser compiled for AVX2. Same integers as the plain twin (motion_kernels.cpp),
// regrouped:
//  - the five taps are unrolled and summed in registers, one pass per row;
//  - size_t column indices (uint32 ones keep GCC from vectorising j + k);
//  - the int64 horizontal sums are formed from two exact int32 halves (see the row loop), and the
//    row total is accumulated in uint32: the spec's row total is the uint32 of the int64 sum,
//    which is the sum mod 2^32, which wrapping uint32 additions give in any order.
// Everything between the target pragmas has internal linkage; the headers come first, so the
// inline functions they define stay baseline code.
#include <cstddef>
#include <vector>

#include "core/cpu_features.h"
#include "metrics/integer_motion/motion_kernels.h"
#include "metrics/integer_motion/motion_math.h"
#include "metrics/vmaf_common/mirror.h"

VQX_BEGIN_TARGET_AVX2

namespace vqx::integer_motion {
namespace {

using vmaf_common::mirror;

// Wide: the vertical sum type (int32 up to 12 bits, 65536 * 4095 < 2^31, else int64).
template <typename Wide, typename Sample>
uint64_t sad_rows_wide(const Sample* prev, const Sample* cur, uint32_t w, uint32_t h,
                       unsigned bpc, uint32_t row_begin, uint32_t row_end) {
  thread_local std::vector<int32_t> y_buf;
  y_buf.resize(size_t(w) + 4);
  int32_t* __restrict y = y_buf.data();
  const Wide round = Wide{1} << (bpc - 1);
  const Wide g0 = kBlur[0], g1 = kBlur[1], g2 = kBlur[2];
  uint64_t sad = 0;
  for (uint32_t i = row_begin; i < row_end; ++i) {
    const Sample* p[5];
    const Sample* c[5];
    for (int k = 0; k < 5; ++k) {
      const size_t row = mirror(int64_t(i) - 2 + k, h);
      p[k] = prev + row * w;
      c[k] = cur + row * w;
    }
    int32_t any = 0;
    #pragma GCC ivdep
    for (size_t j = 0; j < w; ++j) {
      // The blur is symmetric: kBlur = {g0, g1, g2, g1, g0}.
      const Wide d0 = Wide(p[0][j]) - Wide(c[0][j]), d1 = Wide(p[1][j]) - Wide(c[1][j]);
      const Wide d2 = Wide(p[2][j]) - Wide(c[2][j]), d3 = Wide(p[3][j]) - Wide(c[3][j]);
      const Wide d4 = Wide(p[4][j]) - Wide(c[4][j]);
      const Wide acc = g0 * d0 + g1 * d1 + g2 * d2 + g1 * d3 + g0 * d4;
      const int32_t v = int32_t((acc + round) >> bpc);  // arithmetic shift (floor)
      y[2 + j] = v;
      any |= v;
    }
    if (any == 0) continue;  // every Y is 0: the row contributes 0
    y[1] = y[3], y[0] = y[4];
    y[w + 2] = y[w], y[w + 3] = y[w - 1];
    uint32_t row_sad = 0;
    #pragma GCC ivdep
    for (size_t j = 0; j < w; ++j) {
      // s = sum G[k] * Y[j + k] needs 33 bits (|Y| <= 65536); with Y = 256 * hi + lo (hi = Y >> 8
      // in [-256, 255], lo = Y & 255) both A = sum G * hi and B = sum G * lo are below 2^24 in
      // magnitude, s = 256 * A + B, and (s + 32768) >> 16 = (A + ((B + 32768) >> 8)) >> 8
      // exactly (the dropped low byte of B + 32768 cannot carry into the second shift).
      const int32_t a = 3571 * ((y[j] >> 8) + (y[j + 4] >> 8)) +
                        16004 * ((y[j + 1] >> 8) + (y[j + 3] >> 8)) + 26386 * (y[j + 2] >> 8);
      const int32_t b = 3571 * ((y[j] & 255) + (y[j + 4] & 255)) +
                        16004 * ((y[j + 1] & 255) + (y[j + 3] & 255)) + 26386 * (y[j + 2] & 255);
      const int32_t r = (a + ((b + 32768) >> 8)) >> 8;
      row_sad += uint32_t(r < 0 ? -r : r);
    }
    sad += row_sad;  // the row total is uint32 (4.2)
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
}  // namespace vqx::integer_motion

VQX_END_TARGET

namespace vqx::integer_motion {

// Baseline code: filling the table must not itself need AVX2.
void install_avx2_kernels(MotionKernels& k) {
  k.sad_rows_8 = sad_rows<uint8_t>;
  k.sad_rows_16 = sad_rows<uint16_t>;
}

}  // namespace vqx::integer_motion
