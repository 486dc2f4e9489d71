// The AVX-512 level of the integer motion SAD kernel (shared/spec/vmaf.md 4.2), F/BW/DQ/VL.
// Samples up to 12 bits take the intrinsic kernel below; wider ones take the vector levels'
// source (motion_vector_stages.inc), whose int64 vertical sums get the 64-bit multiplies and
// arithmetic shifts AVX2 lacks. Both compute the same integers as the plain twin
// (motion_kernels.cpp).
//
// The intrinsic kernel, per band of rows:
//  - each image row's difference d = P - C is formed once, as int16 (|d| <= 4095), into a ring
//    of the five rows an output row needs, so each output row reads 5 rows instead of 10;
//  - the vertical blur is two vpmaddwd per 16 columns on int16 pairs: (d0 + d4, d1 + d3) times
//    (G0, G1), and (d2, 1) times (G2, 2^(bpc-1)), so the rounding term comes with the products.
//    The even and odd columns of a 32-column block come out in separate registers, which is what
//    the int16 pairs of the horizontal pass need, without a shuffle;
//  - Y (|Y| < 65536) is kept as two int16 rows, Y = ys + 65536 * c with c in {-1, 0, 1}, and
//    the horizontal blur is vpmaddwd too (outputs j + 2m and j + 2m + 1 from loads at j and
//    j + 1, like VIF's filter32) on ys, plus on c only in the 32-column blocks where some c
//    is not 0 (a blurred difference of 128 or more on the 8-bit scale nearby);
//  - |r| is summed in uint32 lanes: the row total is the uint32 of the exact sum, which
//    wrapping uint32 additions give in any order.
//
// Everything between the target pragmas has internal linkage; the headers come first, so the
// inline functions they define stay baseline code.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "core/avx512_intrinsics.h"
#include "core/cpu_features.h"
#include "metrics/integer_motion/motion_kernels.h"
#include "metrics/integer_motion/motion_math.h"
#include "metrics/vmaf_common/mirror.h"

VQX_BEGIN_TARGET_AVX512

namespace vqx::integer_motion {
namespace {

#include "metrics/integer_motion/motion_vector_stages.inc"

constexpr size_t kBlock = 32;  // columns per block: 32 int16 lanes
constexpr __mmask32 kOddWords = 0xAAAAAAAAu;

// Every lane: the int16 pair (lo, hi), as vpmaddwd's coefficients.
inline __m512i pair(int lo, int hi) {
  return _mm512_set1_epi32(int32_t((uint32_t(hi) << 16) | (uint32_t(lo) & 0xffff)));
}

struct Scratch {
  size_t stride = 0;              // ring row length, w rounded up to a block
  std::vector<int16_t> ring;      // d of image row r at slot r % 5
  std::vector<int16_t> y, carry;  // the blurred row as ys and c (see vertical), at [2, w + 2)
};

Scratch& scratch(uint32_t w) {
  thread_local Scratch s;
  s.stride = (size_t(w) + kBlock - 1) / kBlock * kBlock;
  // The horizontal pass reads up to 36 columns past a block start below w; what lies past
  // w + 4 is never summed, but is initialised memory.
  const size_t row = s.stride + 2 * kBlock;
  if (s.ring.size() < 5 * s.stride) s.ring.assign(5 * s.stride, 0);
  if (s.y.size() < row) s.y.assign(row, 0), s.carry.assign(row, 0);
  return s;
}

// d = P - C of one row, columns past w set to 0 (masked loads read nothing past the row).
template <typename Sample>
void difference_row(const Sample* p, const Sample* c, uint32_t w, int16_t* d) {
  for (size_t j = 0; j < w; j += kBlock) {
    const size_t n = std::min<size_t>(kBlock, w - j);
    const __mmask32 m = __mmask32(n == kBlock ? ~0u : (1u << n) - 1);
    __m512i pv, cv;
    if constexpr (sizeof(Sample) == 1) {
      pv = _mm512_cvtepu8_epi16(_mm256_maskz_loadu_epi8(m, p + j));
      cv = _mm512_cvtepu8_epi16(_mm256_maskz_loadu_epi8(m, c + j));
    } else {
      pv = _mm512_maskz_loadu_epi16(m, p + j);
      cv = _mm512_maskz_loadu_epi16(m, c + j);
    }
    _mm512_storeu_si512(d + j, _mm512_sub_epi16(pv, cv));
  }
}

struct VerticalFlags {
  bool any;   // some Y is not 0
  bool wide;  // some Y is outside [-32768, 32767], so some c is not 0
};

// The vertical blur of one output row from its five difference rows, as Y = ys + 65536 * c with
// ys the low int16 of Y (into y) and c = (Y + 32768) >> 16 in {-1, 0, 1} (into carry), both at
// [2, w + 2). Blocks past w hold Y = 0 (rounding 2^(bpc-1) < 2^bpc on d = 0).
// Sums: |d0 + d4|, |d1 + d3| <= 8190 fit int16; each vpmaddwd lane is below 19575 * 8190 and
// the whole sum, rounding included, below 65536 * 4095 + 2048 < 2^31, so |Y| < 65536.
VerticalFlags vertical(const int16_t* const (&r)[5], size_t stride, unsigned bpc, int16_t* y,
                       int16_t* carry) {
  const __m512i g01 = pair(kBlur[0], kBlur[1]);
  const __m512i g2r = pair(kBlur[2], 1 << (bpc - 1)), gr2 = pair(1 << (bpc - 1), kBlur[2]);
  const __m512i ones = _mm512_set1_epi16(1), shift = _mm512_set1_epi32(int32_t(bpc));
  const __m512i bias = _mm512_set1_epi32(32768);
  // Local copies: the stores below might otherwise alias r and reload it every block.
  const int16_t *r0 = r[0], *r1 = r[1], *r2 = r[2], *r3 = r[3], *r4 = r[4];
  __m512i any = _mm512_setzero_si512(), wide = _mm512_setzero_si512();
  for (size_t j = 0; j < stride; j += kBlock) {
    auto row = [&](const int16_t* rk) { return _mm512_loadu_si512(rk + j); };
    const __m512i u = _mm512_add_epi16(row(r0), row(r4)), v = _mm512_add_epi16(row(r1), row(r3));
    const __m512i c = row(r2);
    // Lane m: (u, v) and (c, 1) of column j + 2m; (u, v) and (1, c) of column j + 2m + 1.
    const __m512i xe = _mm512_mask_blend_epi16(kOddWords, u, _mm512_slli_epi32(v, 16));
    const __m512i xo = _mm512_mask_blend_epi16(kOddWords, _mm512_srli_epi32(u, 16), v);
    const __m512i ce = _mm512_mask_blend_epi16(kOddWords, c, ones);
    const __m512i co = _mm512_mask_blend_epi16(kOddWords, ones, c);
    const __m512i ye = _mm512_srav_epi32(
        _mm512_add_epi32(_mm512_madd_epi16(xe, g01), _mm512_madd_epi16(ce, g2r)), shift);
    const __m512i yo = _mm512_srav_epi32(
        _mm512_add_epi32(_mm512_madd_epi16(xo, g01), _mm512_madd_epi16(co, gr2)), shift);
    // In column order: the low int16 of each Y, and the high int16 of each Y + 32768.
    const __m512i y16 = _mm512_mask_blend_epi16(kOddWords, ye, _mm512_slli_epi32(yo, 16));
    const __m512i c16 = _mm512_mask_blend_epi16(
        kOddWords, _mm512_srai_epi32(_mm512_add_epi32(ye, bias), 16), _mm512_add_epi32(yo, bias));
    any = _mm512_ternarylogic_epi32(any, y16, c16, 0xFE);  // or of the three
    wide = _mm512_or_si512(wide, c16);
    _mm512_storeu_si512(y + 2 + j, y16);
    _mm512_storeu_si512(carry + 2 + j, c16);
  }
  return {_mm512_test_epi32_mask(any, any) != 0, _mm512_test_epi32_mask(wide, wide) != 0};
}

// Lanes of the block at j that are columns below w: even (j + 2m) and odd (j + 2m + 1) outputs.
inline __mmask16 lanes(size_t left) {
  return left >= 16 ? __mmask16(0xffff) : __mmask16((1u << left) - 1);
}

// 5-tap sums at outputs j + 2m (even) and j + 2m + 1 (odd) of a padded int16 row; they read
// a[j .. j + 36].
inline void filter32(const int16_t* a, size_t j, __m512i& even, __m512i& odd) {
  const __m512i g01 = pair(kBlur[0], kBlur[1]), g21 = pair(kBlur[2], kBlur[1]);
  const __m512i g0z = pair(kBlur[0], 0);
  auto tap = [&](size_t k, __m512i g) {
    return _mm512_madd_epi16(_mm512_loadu_si512(a + j + k), g);
  };
  even = _mm512_add_epi32(_mm512_add_epi32(tap(0, g01), tap(2, g21)), tap(4, g0z));
  odd = _mm512_add_epi32(_mm512_add_epi32(tap(1, g01), tap(3, g21)), tap(5, g0z));
}

// Sum of |r| over the row, mod 2^32, r = (s + 32768) >> 16 with s = sum G * Y = S + 65536 * C,
// S = sum G * ys, C = sum G * c: r = C + ((S + 32768) >> 16) exactly, as 65536 * C passes
// through the floor. ys in [-32768, 32767] keeps S and S + 32768 in int32 (65536 * 32768 = 2^31
// only on the negative side). C is 0 in a block whose c window is all 0, and in every block of
// a row that is not `wide`.
template <bool kWide>
inline void output_block(const int16_t* y, const int16_t* carry, size_t j, __m512i& re,
                         __m512i& ro) {
  const __m512i half = _mm512_set1_epi32(32768);
  filter32(y, j, re, ro);
  re = _mm512_srai_epi32(_mm512_add_epi32(re, half), 16);
  ro = _mm512_srai_epi32(_mm512_add_epi32(ro, half), 16);
  if constexpr (kWide) {
    // The block's outputs j .. j + 31 take their nonzero taps from c[j .. j + 35].
    const __m512i window =
        _mm512_or_si512(_mm512_loadu_si512(carry + j), _mm512_loadu_si512(carry + j + 4));
    if (_mm512_test_epi32_mask(window, window)) {
      __m512i ce, co;
      filter32(carry, j, ce, co);
      re = _mm512_add_epi32(re, ce);
      ro = _mm512_add_epi32(ro, co);
    }
  }
}

template <bool kWide>
uint32_t horizontal(const int16_t* y, const int16_t* carry, uint32_t w) {
  __m512i sum = _mm512_setzero_si512(), re, ro;
  size_t j = 0;
  for (; j + kBlock <= w; j += kBlock) {
    output_block<kWide>(y, carry, j, re, ro);
    sum = _mm512_add_epi32(sum, _mm512_add_epi32(_mm512_abs_epi32(re), _mm512_abs_epi32(ro)));
  }
  if (j < w) {
    output_block<kWide>(y, carry, j, re, ro);
    const size_t left = w - j;
    sum = _mm512_add_epi32(sum, _mm512_maskz_abs_epi32(lanes((left + 1) / 2), re));
    sum = _mm512_add_epi32(sum, _mm512_maskz_abs_epi32(lanes(left / 2), ro));
  }
  // Not _mm512_reduce_add_epi32: GCC 12 warns inside it (the placeholder of GCC bug 105593).
  alignas(64) uint32_t lane[16];
  _mm512_store_si512(lane, sum);
  uint32_t total = 0;
  for (uint32_t v : lane) total += v;
  return total;
}

// Samples of at most 12 bits, so d fits int16.
template <typename Sample>
uint64_t sad_rows_int16(const Sample* prev, const Sample* cur, uint32_t w, uint32_t h, unsigned bpc,
                        uint32_t row_begin, uint32_t row_end) {
  Scratch& s = scratch(w);
  auto slot = [&](size_t r) { return s.ring.data() + (r % 5) * s.stride; };
  // The rows an output row i reads, mirrored, all lie in [i - 2, i + 2] clipped to the plane, so
  // they hold distinct slots.
  uint32_t next = row_begin >= 2 ? row_begin - 2 : 0;
  uint64_t sad = 0;
  for (uint32_t i = row_begin; i < row_end; ++i) {
    for (; next <= std::min(h - 1, i + 2); ++next)
      difference_row(prev + size_t(next) * w, cur + size_t(next) * w, w, slot(next));
    const int16_t* r[5];
    for (int k = 0; k < 5; ++k) r[k] = slot(mirror(int64_t(i) - 2 + k, h));
    const VerticalFlags f = vertical(r, s.stride, bpc, s.y.data(), s.carry.data());
    if (!f.any) continue;  // every Y is 0: the row contributes 0
    vmaf_common::mirror_pad(s.y.data(), w, 2);
    if (f.wide) {
      vmaf_common::mirror_pad(s.carry.data(), w, 2);
      sad += horizontal<true>(s.y.data(), s.carry.data(), w);
    } else {
      sad += horizontal<false>(s.y.data(), nullptr, w);
    }
  }
  return sad;
}

uint64_t sad_rows_avx512_8(const uint8_t* prev, const uint8_t* cur, uint32_t w, uint32_t h,
                           unsigned bpc, uint32_t row_begin, uint32_t row_end) {
  return sad_rows_int16(prev, cur, w, h, bpc, row_begin, row_end);
}

uint64_t sad_rows_avx512_16(const uint16_t* prev, const uint16_t* cur, uint32_t w, uint32_t h,
                            unsigned bpc, uint32_t row_begin, uint32_t row_end) {
  if (bpc <= 12) return sad_rows_int16(prev, cur, w, h, bpc, row_begin, row_end);
  return sad_rows(prev, cur, w, h, bpc, row_begin, row_end);
}

}  // namespace
}  // namespace vqx::integer_motion

VQX_END_TARGET

namespace vqx::integer_motion {

// Baseline code: filling the table must not itself need AVX-512.
void install_avx512_kernels(MotionKernels& k) {
  k.sad_rows_8 = sad_rows_avx512_8;
  k.sad_rows_16 = sad_rows_avx512_16;
}

}  // namespace vqx::integer_motion
