// The AVX-512 level of the integer ADM row kernels (shared/spec/vmaf.md 3.3-3.9): the vector
// levels' C++ (adm_vector_stages.inc) and the plain twins' source for 3.4, 3.7 and 3.9
// (adm_shared_stages.inc) compiled for AVX-512 F/BW/DQ/VL, where the vectoriser gains 64-bit
// multiplies (vpmullq) and 512-bit registers; plus intrinsics for
//  - the scale-0 horizontal DWT pass, sixteen outputs per vpmaddwd pair;
//  - the decoupling at scales 1-3, eight pixels at a time in int64 / f64 lanes: AVX-512DQ
//    converts int64 to f32 (vcvtqq2ps), which the angle test needs.
// They compute the same integers as the plain twins (adm_kernels.cpp). Everything between the
// target pragmas has internal linkage; the headers come first, so the inline functions they
// define stay baseline code.
#include "core/avx512_intrinsics.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <vector>

#include "core/cpu_features.h"
#include "metrics/integer_adm/adm_kernels.h"
#include "metrics/integer_adm/adm_stage_rules.h"

VQX_BEGIN_TARGET_AVX512

namespace vqx::integer_adm {
namespace {

#include "metrics/integer_adm/adm_shared_stages.inc"

// Sixteen outputs of the scale-0 horizontal pass from the int16 row at l (output j reads l[2j] ..
// l[2j + 3]) with vpmaddwd: a 32-bit lane of a load at l holds (l[2m], l[2m + 1]), one at l + 2
// holds (l[2m + 2], l[2m + 3]), each multiplied by a pair of the taps (all below 2^15 in
// magnitude). The int32 sum is the spec's (at most 54822 * 32768 < 2^31), and the result of
// >> 16 lies within int16, so the narrowing (vpmovdw) is exact.
inline __m256i dwt0_taps16(const int16_t* l, __m512i c01, __m512i c23) {
  const __m512i x0 = _mm512_loadu_si512(l);
  const __m512i x1 = _mm512_loadu_si512(l + 2);
  __m512i r = _mm512_add_epi32(_mm512_madd_epi16(x0, c01), _mm512_madd_epi16(x1, c23));
  r = _mm512_srai_epi32(_mm512_add_epi32(r, _mm512_set1_epi32(32768)), 16);
  return _mm512_cvtepi32_epi16(r);
}

inline __m512i tap_pair(int32_t a, int32_t b) {
  return _mm512_set1_epi32(int32_t((uint32_t(b) << 16) | (uint32_t(a) & 0xffff)));
}

constexpr size_t kDwt0Block = 16;

// Outputs [0, 16) of the four bands from the rows l (the lowpass) and hh (the highpass, nullptr
// for the lowpass-only form).
inline void dwt0_block(const int16_t* l, const int16_t* hh, int16_t* a, int16_t* v, int16_t* hb,
                       int16_t* d) {
  const __m512i lo01 = tap_pair(kLo[0], kLo[1]), lo23 = tap_pair(kLo[2], kLo[3]);
  auto store = [](int16_t* out, __m256i x) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), x);
  };
  store(a, dwt0_taps16(l, lo01, lo23));
  if (hh == nullptr) return;
  const __m512i hi01 = tap_pair(kHi[0], kHi[1]), hi23 = tap_pair(kHi[2], kHi[3]);
  store(v, dwt0_taps16(l, hi01, hi23));
  store(hb, dwt0_taps16(hh, lo01, lo23));
  store(d, dwt0_taps16(hh, hi01, hi23));
}

#include "metrics/integer_adm/adm_vector_stages.inc"

// ---------------------------------------------------------------------------------------------
// 3.5 at scales 1-3, eight pixels per step.

inline __m512i load_wide(const int32_t* p) {
  return _mm512_cvtepi32_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}

// f64(f32(v)) / 4096 for int64 lanes v: one rounding to f32 (vcvtqq2ps rounds to nearest even,
// as the scalar conversion does), then exact steps (the division by 2^12 is the exact product
// with 2^-12).
inline __m512d f32_over_4096(__m512i v) {
  return _mm512_mul_pd(_mm512_cvtps_pd(_mm512_cvtepi64_ps(v)), _mm512_set1_pd(1.0 / 4096.0));
}

// One band of 3.5 for eight pixels: o, t the int32 coefficients (as int64 lanes), `flag` the
// angle test. ratio_wide of the plain twin, lane by lane:
//  - e = floor(log2 |o|) - 14 where |o| >= 2^15 (else 0), floor(log2) read from the exponent of
//    the exact f64 of |o| (uint32; |INT32_MIN| = 2^31);
//  - m = (|o| + 2^(e-1)) >> e, below 2^32; DIV[m] = trunc(2^30 / m) from the f64 quotient
//    (div_q30: exact); o == 0 divides by 1 and takes k = 32768;
//  - DIV[m] * t (below 2^61 in magnitude) and k * o (below 2^47) are int64 products (vpmullq).
// The capped value trunc(min(q, t)) / trunc(max(q, t)) converts to int64 and then keeps the low
// 32 bits, the plain twin's Coef(int64_t(...)).
inline void decouple_band8(__m512i o, __m512i t, __mmask8 flag, __m512d gain_limit,
                           int32_t* restored, int32_t* additive) {
  const __m256i o32 = _mm512_cvtepi64_epi32(o);
  const __m256i abs_o = _mm256_abs_epi32(o32);  // as uint32: INT32_MIN -> 2^31
  const __mmask8 o_zero = _mm512_cmpeq_epi64_mask(o, _mm512_setzero_si512());
  const __mmask8 o_neg = _mm512_cmplt_epi64_mask(o, _mm512_setzero_si512());
  const __mmask8 o_pos = _mm512_cmpgt_epi64_mask(o, _mm512_setzero_si512());
  const __mmask8 big = _mm256_cmpge_epu32_mask(abs_o, _mm256_set1_epi32(32768));
  const __m512d abs_f = _mm512_cvtepu32_pd(abs_o);
  const __m256i log2 = _mm512_cvttpd_epi32(_mm512_getexp_pd(abs_f));
  const __m256i e = _mm256_maskz_sub_epi32(big, log2, _mm256_set1_epi32(14));
  const __m256i half = _mm256_maskz_sllv_epi32(big, _mm256_set1_epi32(1),
                                               _mm256_sub_epi32(e, _mm256_set1_epi32(1)));
  __m256i m = _mm256_srlv_epi32(_mm256_add_epi32(abs_o, half), e);
  m = _mm256_mask_mov_epi32(m, o_zero, _mm256_set1_epi32(1));
  const __m256i div =
      _mm512_cvttpd_epi32(_mm512_div_pd(_mm512_set1_pd(1073741824.0), _mm512_cvtepu32_pd(m)));
  const __m512i e64 = _mm512_cvtepi32_epi64(e);
  __m512i k = _mm512_mullo_epi64(_mm512_cvtepi32_epi64(div), t);
  k = _mm512_mask_sub_epi64(k, o_neg, _mm512_setzero_si512(), k);
  const __m512i round =
      _mm512_sllv_epi64(_mm512_set1_epi64(1), _mm512_add_epi64(e64, _mm512_set1_epi64(14)));
  k = _mm512_srav_epi64(_mm512_add_epi64(k, round), _mm512_add_epi64(e64, _mm512_set1_epi64(15)));
  k = _mm512_min_epi64(_mm512_max_epi64(k, _mm512_setzero_si512()), _mm512_set1_epi64(32768));
  k = _mm512_mask_mov_epi64(k, o_zero, _mm512_set1_epi64(32768));
  const __m512i rb64 = _mm512_srai_epi64(
      _mm512_add_epi64(_mm512_mullo_epi64(k, o), _mm512_set1_epi64(16384)), 15);
  __m256i rb = _mm512_cvtepi64_epi32(rb64);
  const __mmask8 apply =
      flag & _mm512_cmpgt_epi64_mask(k, _mm512_setzero_si512()) & __mmask8(o_pos | o_neg);
  if (apply != 0) {
    const __m512d q = _mm512_mul_pd(_mm512_cvtepi32_pd(rb), gain_limit);
    const __m512d tf = _mm512_cvtepi64_pd(t);
    __m512d capped = _mm512_mask_min_pd(_mm512_max_pd(q, tf), o_pos, q, tf);
    rb = _mm256_mask_mov_epi32(rb, apply, _mm512_cvtepi64_epi32(_mm512_cvttpd_epi64(capped)));
  }
  const __m256i t32 = _mm512_cvtepi64_epi32(t);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(restored), rb);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(additive), _mm256_sub_epi32(t32, rb));
}

// The angle test (x >= 0 and x^2 >= C1 (om / 4096) (tm / 4096), x = dp / 4096) in the spec's
// f64 order; the int64 sums wrap where the plain twin's would overflow.
template <typename Coef>
void decouple_row_wide(const AdmBands<Coef>& ref, const AdmBands<Coef>& dis, double gain_limit,
                       size_t row_at, int left, int right, AdmDetail<Coef>& restored,
                       AdmDetail<Coef>& additive) {
  static_assert(sizeof(Coef) == 4);
  const __m512d gl = _mm512_set1_pd(gain_limit);
  const __m512d c1 = _mm512_set1_pd(kCos1Sq);
  int j = left;
  for (; j + 8 <= right; j += 8) {
    const size_t at = row_at + size_t(j);
    const __m512i oh = load_wide(ref.detail[kH].data() + at);
    const __m512i ov = load_wide(ref.detail[kV].data() + at);
    const __m512i th = load_wide(dis.detail[kH].data() + at);
    const __m512i tv = load_wide(dis.detail[kV].data() + at);
    const __m512i dp = _mm512_add_epi64(_mm512_mullo_epi64(oh, th), _mm512_mullo_epi64(ov, tv));
    const __m512i om = _mm512_add_epi64(_mm512_mullo_epi64(oh, oh), _mm512_mullo_epi64(ov, ov));
    const __m512i tm = _mm512_add_epi64(_mm512_mullo_epi64(th, th), _mm512_mullo_epi64(tv, tv));
    const __m512d x = f32_over_4096(dp);
    const __m512d rhs = _mm512_mul_pd(_mm512_mul_pd(c1, f32_over_4096(om)), f32_over_4096(tm));
    const __mmask8 flag = _mm512_cmp_pd_mask(x, _mm512_setzero_pd(), _CMP_GE_OQ) &
                          _mm512_cmp_pd_mask(_mm512_mul_pd(x, x), rhs, _CMP_GE_OQ);
    decouple_band8(oh, th, flag, gl, restored.band[kH].data() + at, additive.band[kH].data() + at);
    decouple_band8(ov, tv, flag, gl, restored.band[kV].data() + at, additive.band[kV].data() + at);
    decouple_band8(load_wide(ref.detail[kD].data() + at), load_wide(dis.detail[kD].data() + at),
                   flag, gl, restored.band[kD].data() + at, additive.band[kD].data() + at);
  }
  decouple_wide_scalar(ref, dis, gain_limit, row_at, j, right, restored, additive);
}

}  // namespace
}  // namespace vqx::integer_adm

VQX_END_TARGET

namespace vqx::integer_adm {

// Baseline code: filling the table must not itself need AVX-512.
void install_avx512_kernels(AdmKernels& k) {
  k.dwt0_rows_8 = dwt0_rows<uint8_t>;
  k.dwt0_rows_16 = dwt0_rows<uint16_t>;
  k.dwt_rows_from_scale0 = dwt_rows<int16_t>;
  k.dwt_rows = dwt_rows<int32_t>;
  k.scale0 = {decouple_rows<int16_t>, csf_rows<int16_t>, cm_rows<int16_t>, den_rows<int16_t>};
  k.scales123 = {decouple_rows<int32_t>, csf_rows<int32_t>, cm_rows<int32_t>, den_rows<int32_t>};
}

}  // namespace vqx::integer_adm
