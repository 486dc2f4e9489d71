// The AVX2 level of the integer ADM row kernels (shared/spec/vmaf.md 3.3-3.9): the vector
// levels' C++ (adm_vector_stages.inc) compiled for AVX2, plus vpmaddwd for the scale-0 DWT (the
// vertical pass of 8-bit samples and the horizontal pass); the decoupling at scales 1-3 stays
// scalar. 3.4, 3.7 and 3.9 are the plain twins' source (adm_shared_stages.inc), built for AVX2.
// They compute the same integers as the plain twins (adm_kernels.cpp).
// Everything between the target pragmas has internal linkage; the headers come first, so the
// inline functions they define stay baseline code.
#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <vector>

#include "core/cpu_features.h"
#include "metrics/integer_adm/adm_kernels.h"
#include "metrics/integer_adm/adm_stage_rules.h"

VQX_BEGIN_TARGET_AVX2

namespace vqx::integer_adm {
namespace {

#include "metrics/integer_adm/adm_shared_stages.inc"

// Eight outputs of the scale-0 horizontal pass from the int16 row at l (output j reads l[2j] ..
// l[2j + 3]) with vpmaddwd: a 32-bit lane of a load at l holds (l[2m], l[2m + 1]), one at l + 2
// holds (l[2m + 2], l[2m + 3]), each multiplied by a pair of the taps (all below 2^15 in
// magnitude). The int32 sum is the spec's (at most 54822 * 32768 < 2^31), and the result of
// >> 16 lies within int16, so the saturating pack is exact.
inline __m128i dwt0_taps8(const int16_t* l, __m256i c01, __m256i c23) {
  const __m256i x0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(l));
  const __m256i x1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(l + 2));
  __m256i r = _mm256_add_epi32(_mm256_madd_epi16(x0, c01), _mm256_madd_epi16(x1, c23));
  r = _mm256_srai_epi32(_mm256_add_epi32(r, _mm256_set1_epi32(32768)), 16);
  return _mm256_castsi256_si128(_mm256_permute4x64_epi64(_mm256_packs_epi32(r, r), 0x08));
}

inline __m256i tap_pair(int32_t a, int32_t b) {
  return _mm256_set1_epi32(int32_t((uint32_t(b) << 16) | (uint32_t(a) & 0xffff)));
}

constexpr size_t kDwt0Block = 8;

// Outputs [0, 8) of the four bands from the rows l (the lowpass) and hh (the highpass, nullptr
// for the lowpass-only form).
inline void dwt0_block(const int16_t* l, const int16_t* hh, int16_t* a, int16_t* v, int16_t* hb,
                       int16_t* d) {
  const __m256i lo01 = tap_pair(kLo[0], kLo[1]), lo23 = tap_pair(kLo[2], kLo[3]);
  auto store = [](int16_t* out, __m128i x) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), x);
  };
  store(a, dwt0_taps8(l, lo01, lo23));
  if (hh == nullptr) return;
  const __m256i hi01 = tap_pair(kHi[0], kHi[1]), hi23 = tap_pair(kHi[2], kHi[3]);
  store(v, dwt0_taps8(l, hi01, hi23));
  store(hb, dwt0_taps8(hh, lo01, lo23));
  store(d, dwt0_taps8(hh, hi01, hi23));
}

#include "metrics/integer_adm/adm_vector_stages.inc"

// ---------------------------------------------------------------------------------------------
// 3.3's vertical pass on 8-bit samples, sixteen columns per step with vpmaddwd: the samples
// widen to int16 and pair up row 0 with row 1 and row 2 with row 3 (vpunpck*wd, within 128-bit
// lanes), and each pair multiplies a pair of taps (all within int16). The int32 sums are the
// spec's (no wrap at 8 bits), and after >> 8 they lie within int16 (|v| < 2^15: the taps' sums
// of either sign times 255, less the offset), so the saturating pack, which also undoes the
// unpacking order, is exact. Deeper samples take the generic loop (16-bit ones do not fit int16).
template <typename Sample>
void dwt0_vertical(const Sample* const p[4], size_t width, unsigned bpc, int16_t* tl,
                   int16_t* th) {
  size_t j = 0;
  if constexpr (sizeof(Sample) == 1) {
    const __m256i lo01 = tap_pair(kLo[0], kLo[1]), lo23 = tap_pair(kLo[2], kLo[3]);
    const __m256i hi01 = tap_pair(kHi[0], kHi[1]), hi23 = tap_pair(kHi[2], kHi[3]);
    const __m256i round = _mm256_set1_epi32(128);
    const __m256i low_round = _mm256_set1_epi32(128 - 46342 * 128);
    auto widen = [&](int k) {
      return _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p[k] + j)));
    };
    for (; j + 16 <= width; j += 16) {
      const __m256i s0 = widen(0), s1 = widen(1), s2 = widen(2), s3 = widen(3);
      const __m256i a_lo = _mm256_unpacklo_epi16(s0, s1), a_hi = _mm256_unpackhi_epi16(s0, s1);
      const __m256i b_lo = _mm256_unpacklo_epi16(s2, s3), b_hi = _mm256_unpackhi_epi16(s2, s3);
      auto filter = [&](__m256i x, __m256i y, __m256i t01, __m256i t23, __m256i add) {
        const __m256i v = _mm256_add_epi32(_mm256_madd_epi16(x, t01), _mm256_madd_epi16(y, t23));
        return _mm256_srai_epi32(_mm256_add_epi32(v, add), 8);
      };
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(tl + j),
                          _mm256_packs_epi32(filter(a_lo, b_lo, lo01, lo23, low_round),
                                             filter(a_hi, b_hi, lo01, lo23, low_round)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(th + j),
                          _mm256_packs_epi32(filter(a_lo, b_lo, hi01, hi23, round),
                                             filter(a_hi, b_hi, hi01, hi23, round)));
    }
  }
  dwt0_vertical_generic(p, j, width, bpc, tl, th);
}


template <typename Coef>
int64_t masked_sum_row(const Coef* xr, const uint32_t* thr, ptrdiff_t left, ptrdiff_t right,
                       const MaskedSum& s) {
  return masked_sum_row_generic(xr, thr, left, right, s);
}

template <typename Coef>
void decouple_row_narrow(const AdmBands<Coef>& ref, const AdmBands<Coef>& dis, double gain_limit,
                         int i, int left, int right, AdmDetail<Coef>& restored,
                         AdmDetail<Coef>& additive) {
  decouple_row_narrow_generic(ref, dis, gain_limit, i, left, right, restored, additive);
}

// The angle test of the scales 1-3 needs int64 -> f32 conversions, which AVX2 lacks: scalar.
template <typename Coef>
void decouple_row_wide(const AdmBands<Coef>& ref, const AdmBands<Coef>& dis, double gain_limit,
                       int i, int left, int right, AdmDetail<Coef>& restored,
                       AdmDetail<Coef>& additive) {
  decouple_wide_scalar(ref, dis, gain_limit, i, left, right, restored, additive);
}

}  // namespace
}  // namespace vqx::integer_adm

VQX_END_TARGET

namespace vqx::integer_adm {

// Baseline code: filling the table must not itself need AVX2.
void install_avx2_kernels(AdmKernels& k) {
  k.dwt0_rows_8 = dwt0_rows<uint8_t>;
  k.dwt0_rows_16 = dwt0_rows<uint16_t>;
  k.dwt_rows_from_scale0 = dwt_rows<int16_t>;
  k.dwt_rows = dwt_rows<int32_t>;
  k.scale0 = {decouple_rows<int16_t>, csf_rows<int16_t>, cm_rows<int16_t>, den_rows<int16_t>};
  k.scales123 = {decouple_rows<int32_t>, csf_rows<int32_t>, cm_rows<int32_t>, den_rows<int32_t>};
}

}  // namespace vqx::integer_adm
