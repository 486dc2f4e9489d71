// The AVX-512 level of the CAMBI c-value kernels (cambi_kernels.h): 32 levels per compare or
// update and 16 pixels per c-value step, the tails under a lane mask instead of a scalar loop.
// Same values as the plain twins (cambi_kernels.cpp).
// Everything between the target pragmas has internal linkage; the headers come first, so the
// inline functions they define stay baseline code.
#include "core/avx512_intrinsics.h"

#include <algorithm>
#include <bit>

#include "core/cpu_features.h"
#include "metrics/cambi/cambi_kernels.h"

VQX_BEGIN_TARGET_AVX512

namespace vqx::cambi {
namespace {

// Lanes [0, n) of a 32-lane (16-bit) or 16-lane (32-bit) vector, n <= the lane count.
inline __mmask32 first_lanes32(int n) { return n >= 32 ? ~__mmask32{0} : (__mmask32{1} << n) - 1; }
inline __mmask16 first_lanes16(int n) { return __mmask16(n >= 16 ? 0xFFFFu : (1u << n) - 1); }

inline __m512i load32(const uint16_t* p, int n) { return _mm512_maskz_loadu_epi16(first_lanes32(n), p); }

// First lane in [c, end) whose compare bit is `want`, or end; masked loads read only [c, end).
template <bool Want>
int first_where(const uint16_t* a, const uint16_t* b, int c, int end) {
  for (; c < end; c += 32) {
    const int n = std::min(32, end - c);
    __mmask32 hit = _mm512_cmpeq_epi16_mask(load32(a + c, n), load32(b + c, n));
    if (!Want) hit = ~hit;
    hit &= first_lanes32(n);
    if (hit) return c + std::countr_zero(uint32_t(hit));
  }
  return end;
}

int first_difference(const uint16_t* a, const uint16_t* b, int c, int end) {
  return first_where<false>(a, b, c, end);
}

int first_agreement(const uint16_t* a, const uint16_t* b, int c, int end) {
  return first_where<true>(a, b, c, end);
}

int run_end(const uint16_t* row, int c, int end) {
  const __m512i v = _mm512_set1_epi16(short(row[c]));
  for (++c; c < end; c += 32) {
    const int n = std::min(32, end - c);
    const __mmask32 other = _mm512_cmpneq_epi16_mask(load32(row + c, n), v) & first_lanes32(n);
    if (other) return c + std::countr_zero(uint32_t(other));
  }
  return end;
}

void add_linear(uint16_t* hist, int lo, int hi, int base, int slope) {
  if (lo >= hi) return;
  // Lane k holds base + slope * (j + k), stepped by 32 * slope; 16-bit lanes wrap modulo 2^16
  // exactly as the plain twin's uint16 store does.
  const __m512i lanes = _mm512_set_epi16(31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18,
                                         17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2,
                                         1, 0);
  __m512i inc = _mm512_add_epi16(_mm512_set1_epi16(short(base + slope * lo)),
                                 _mm512_mullo_epi16(lanes, _mm512_set1_epi16(short(slope))));
  const __m512i step = _mm512_set1_epi16(short(32 * slope));
  for (int j = lo; j < hi; j += 32) {
    const __mmask32 m = first_lanes32(hi - j);
    const __m512i h = _mm512_maskz_loadu_epi16(m, hist + j);
    _mm512_mask_storeu_epi16(hist + j, m, _mm512_add_epi16(h, inc));
    inc = _mm512_add_epi16(inc, step);
  }
}

void evaluate_run(const uint16_t* p0s, const ContrastRows* rows, int count, const float* lut,
                  int a, int b, float* out) {
  for (int j = a; j < b; j += 16) {
    const __mmask16 m = first_lanes16(b - j);
    const __m512i p0 = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, p0s + j));
    __m512 c = _mm512_setzero_ps();
    for (int r = 0; r < count; ++r) {
      const __m256i up = _mm256_maskz_loadu_epi16(m, rows[r].up + j);
      const __m256i down = _mm256_maskz_loadu_epi16(m, rows[r].down + j);
      const __m512i pm = _mm512_cvtepu16_epi32(_mm256_max_epu16(up, down));
      // weight * p0 * pm <= 9 * 4225^2 < 2^31: the int32 product is exact, as the plain one.
      const __m512i product =
          _mm512_mullo_epi32(_mm512_mullo_epi32(_mm512_set1_epi32(rows[r].weight), p0), pm);
      // Lanes outside the run read lut[0], a valid entry, and are never stored.
      const __m512 reciprocal = _mm512_i32gather_ps(_mm512_add_epi32(p0, pm), lut, 4);
      // Finite non-negative values, no -0: max_ps is std::max here.
      c = _mm512_max_ps(c, _mm512_mul_ps(_mm512_cvtepi32_ps(product), reciprocal));
    }
    _mm512_mask_storeu_ps(out + j, m, c);
  }
}

}  // namespace
}  // namespace vqx::cambi

VQX_END_TARGET

namespace vqx::cambi {

// Baseline code: filling the table must not itself need AVX-512.
void install_avx512_kernels(CambiKernels& k) {
  k.first_difference = first_difference;
  k.first_agreement = first_agreement;
  k.run_end = run_end;
  k.add_linear = add_linear;
  k.evaluate_run = evaluate_run;
}

}  // namespace vqx::cambi
