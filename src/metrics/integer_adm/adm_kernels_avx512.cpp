// The AVX-512 level of the integer ADM row kernels (shared/spec/vmaf.md 3.3-3.9): the vector
// levels' C++ (adm_vector_stages.inc) and the plain twins' source for 3.7 and 3.9
// (adm_shared_stages.inc) compiled for AVX-512 F/BW/DQ/VL, plus intrinsics for
//  - the scale-0 DWT: the vertical pass of 8-bit samples and the horizontal pass, with vpmaddwd;
//  - the decoupling: sixteen pixels at a time in int32 lanes at scale 0, eight in int64 / f64
//    lanes at scales 1-3 (AVX-512DQ converts int64 to f32, which the angle test needs), with the
//    division table's quotients from vrcp14ps (div_q30_16);
//  - the masking's sums and the CSF of scales 1-3, with 32 x 32-bit multiplies instead of 64-bit
//    ones.
// The DWT of scales 1-3 has its own unit (adm_dwt_avx512.cpp), whose entries the table takes from
// install_avx512_kernels. They compute the same integers as
// the plain twins (adm_kernels.cpp). Everything between the target pragmas has internal linkage;
// the headers come first, so the inline functions they define stay baseline code.
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
// 3.3's vertical pass on 8-bit samples, thirty-two columns per step with vpmaddwd: the samples
// widen to int16 and pair up row 0 with row 1 and row 2 with row 3 (vpunpck*wd, within 128-bit
// lanes), and each pair multiplies a pair of taps (all within int16). The int32 sums are the
// spec's (no wrap at 8 bits), and after >> 8 they lie within int16 (|v| < 2^15: the taps' sums
// of either sign times 255, less the offset), so the saturating pack, which also undoes the
// unpacking order, is exact. Deeper samples take the generic loop (16-bit ones do not fit int16).
inline __m512i dwt0_tap_pair(int32_t a, int32_t b) {
  return _mm512_set1_epi32(int32_t((uint32_t(b) << 16) | (uint32_t(a) & 0xffff)));
}

template <typename Sample>
void dwt0_vertical(const Sample* const p[4], size_t width, unsigned bpc, int16_t* tl,
                   int16_t* th) {
  size_t j = 0;
  if constexpr (sizeof(Sample) == 1) {
    const __m512i lo01 = dwt0_tap_pair(kLo[0], kLo[1]), lo23 = dwt0_tap_pair(kLo[2], kLo[3]);
    const __m512i hi01 = dwt0_tap_pair(kHi[0], kHi[1]), hi23 = dwt0_tap_pair(kHi[2], kHi[3]);
    const __m512i round = _mm512_set1_epi32(128);
    const __m512i low_round = _mm512_set1_epi32(128 - 46342 * 128);
    auto widen = [&](int k) {
      return _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p[k] + j)));
    };
    for (; j + 32 <= width; j += 32) {
      const __m512i s0 = widen(0), s1 = widen(1), s2 = widen(2), s3 = widen(3);
      const __m512i a_lo = _mm512_unpacklo_epi16(s0, s1), a_hi = _mm512_unpackhi_epi16(s0, s1);
      const __m512i b_lo = _mm512_unpacklo_epi16(s2, s3), b_hi = _mm512_unpackhi_epi16(s2, s3);
      auto filter = [&](__m512i x, __m512i y, __m512i t01, __m512i t23, __m512i add) {
        const __m512i v = _mm512_add_epi32(_mm512_madd_epi16(x, t01), _mm512_madd_epi16(y, t23));
        return _mm512_srai_epi32(_mm512_add_epi32(v, add), 8);
      };
      _mm512_storeu_si512(tl + j, _mm512_packs_epi32(filter(a_lo, b_lo, lo01, lo23, low_round),
                                                     filter(a_hi, b_hi, lo01, lo23, low_round)));
      _mm512_storeu_si512(th + j, _mm512_packs_epi32(filter(a_lo, b_lo, hi01, hi23, round),
                                                     filter(a_hi, b_hi, hi01, hi23, round)));
    }
  }
  dwt0_vertical_generic(p, j, width, bpc, tl, th);
}


// ---------------------------------------------------------------------------------------------
// 3.8's masked sum, sixteen columns per step. The vectoriser's form multiplies in int64 lanes
// (vpmullq, three uops); every product here fits a 32 x 32 -> 64-bit multiply of the even lanes
// (vpmuludq / vpmuldq), the odd lanes shifted down:
//  - t lies in [0, 2^31), so t^2 is an unsigned 32-bit square and xs * t a signed one (xs is the
//    low 32 bits of the shifted square, read as int32 like the plain twin's conversion);
//  - at scales 1-3, x * fixed with fixed in [0, 2^32) is x * (fixed - 2^32) + x * 2^32 where
//    fixed >= 2^31, both exact mod 2^64, and the true product stays below 2^63.
// Columns where every t is 0 add (zround >> z) each, without the multiplies.

// The 64-bit terms (xs * t + zround) >> z of the even 32-bit lanes of t.
inline __m512i masked_terms_even(__m512i t, __m512i round, __m128i square_shift, __m512i zround,
                                 __m128i z) {
  const __m512i xs = _mm512_srl_epi64(_mm512_add_epi64(_mm512_mul_epu32(t, t), round),
                                      square_shift);
  return _mm512_sra_epi64(_mm512_add_epi64(_mm512_mul_epi32(xs, t), zround), z);
}

// int32((x * fixed + 2^27) >> 28) of the even lanes of x (int32), in the low half of each lane.
inline __m512i q32_product_even(__m512i x, __m512i fixed, bool fixed_high) {
  __m512i p = _mm512_mul_epi32(x, fixed);
  if (fixed_high) p = _mm512_add_epi64(p, _mm512_slli_epi64(x, 32));
  return _mm512_srai_epi64(_mm512_add_epi64(p, _mm512_set1_epi64(int64_t{1} << 27)), 28);
}

template <typename Coef>
int64_t masked_sum_row(const Coef* xr, const uint32_t* thr, ptrdiff_t left, ptrdiff_t right,
                       const MaskedSum& s) {
  if (s.scale0 != (sizeof(Coef) == 2)) return masked_sum_row_generic(xr, thr, left, right, s);
  const __m512i fixed = _mm512_set1_epi32(int32_t(s.fixed));
  const bool fixed_high = s.fixed >= 0x80000000u;
  const __m128i thr_shift = _mm_cvtsi32_si128(int(s.thr_shift));
  const __m128i square_shift = _mm_cvtsi32_si128(int(s.square_shift));
  const __m128i z = _mm_cvtsi32_si128(s.z);
  const __m512i round = _mm512_set1_epi64(int64_t{1} << (s.square_shift - 1));
  const __m512i zround = _mm512_set1_epi64(s.zround);
  __m512i acc = _mm512_setzero_si512();
  int64_t zero_columns = 0;
  ptrdiff_t j = left;
  for (; j + 16 <= right; j += 16) {
    __m512i p;
    if constexpr (sizeof(Coef) == 2) {
      const __m512i x = _mm512_cvtepi16_epi32(
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xr + j)));
      p = _mm512_mullo_epi32(x, fixed);
    } else {
      const __m512i x = _mm512_loadu_si512(xr + j);
      const __m512i even = q32_product_even(x, fixed, fixed_high);
      const __m512i odd = q32_product_even(_mm512_srli_epi64(x, 32), fixed, fixed_high);
      p = _mm512_mask_blend_epi32(0xaaaa, even, _mm512_slli_epi64(odd, 32));
    }
    const __m512i limit = _mm512_sll_epi32(_mm512_loadu_si512(thr + j), thr_shift);
    const __m512i t =
        _mm512_max_epi32(_mm512_sub_epi32(_mm512_abs_epi32(p), limit), _mm512_setzero_si512());
    if (_mm512_test_epi32_mask(t, t) == 0) {
      zero_columns += 16;
      continue;
    }
    acc = _mm512_add_epi64(acc, masked_terms_even(t, round, square_shift, zround, z));
    acc = _mm512_add_epi64(
        acc, masked_terms_even(_mm512_srli_epi64(t, 32), round, square_shift, zround, z));
  }
  return _mm512_reduce_add_epi64(acc) + zero_columns * (s.zround >> s.z) +
         masked_sum_row_generic(xr, thr, j, right, s);
}

// ---------------------------------------------------------------------------------------------
// 3.5's division, sixteen lanes: trunc(2^30 / m) for 1 <= m <= 32768 (the domain of the table
// at every scale) without the divider, which would bound the decoupling (three quotients a
// pixel). One Newton step on vrcp14ps gives 1 / m within about 2^-23, so q0 = trunc(2^30 x) lies
// within 2^8 of 2^30 / m and the remainder r = 2^30 - q0 m is exact in int32 and in f32 (below
// 2^24); q0 plus r x rounded to nearest is the quotient or one more, which the sign of the last
// remainder settles. integer_adm_kernels_test checks every m.
inline __m512i div_q30_16(__m512i m) {
  const __m512 mf = _mm512_cvtepi32_ps(m);
  __m512 x = _mm512_rcp14_ps(mf);
  x = _mm512_fmadd_ps(x, _mm512_fnmadd_ps(mf, x, _mm512_set1_ps(1.0f)), x);
  const __m512i two30 = _mm512_set1_epi32(1 << 30);
  const __m512i q0 = _mm512_cvttps_epi32(_mm512_mul_ps(x, _mm512_set1_ps(1073741824.0f)));
  const __m512i r = _mm512_sub_epi32(two30, _mm512_mullo_epi32(q0, m));
  __m512i q = _mm512_add_epi32(q0, _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_cvtepi32_ps(r), x)));
  const __m512i last = _mm512_sub_epi32(two30, _mm512_mullo_epi32(q, m));
  q = _mm512_mask_sub_epi32(q, _mm512_cmplt_epi32_mask(last, _mm512_setzero_si512()), q,
                            _mm512_set1_epi32(1));
  return _mm512_mask_add_epi32(q, _mm512_cmpge_epi32_mask(last, m), q, _mm512_set1_epi32(1));
}

// ---------------------------------------------------------------------------------------------
// 3.5 at scale 0, sixteen pixels per step in int32 lanes (the bands are int16).

// The angle flag of sixteen pixels from (h, v) of the reference (o) and the distorted (t) bands.
// vpmaddwd on (h, v) int16 pairs gives h0 h1 + v0 v1 and the squared norms in one step; a sum
// wraps only at 2^31 (every value -32768), which reads back right as uint32 for the norms and
// stands for +2^31 in dp (whose true values are otherwise above -2^31). f32 of these exact
// integers is the spec's rounding, / 4096 is exact in f32, and the rest is the spec's f64.
inline __mmask16 angle_flag16(__m512i oh, __m512i ov, __m512i th, __m512i tv) {
  const __m512i o_pair = _mm512_mask_blend_epi16(0xaaaaaaaa, oh, _mm512_slli_epi32(ov, 16));
  const __m512i t_pair = _mm512_mask_blend_epi16(0xaaaaaaaa, th, _mm512_slli_epi32(tv, 16));
  const __m512i dp = _mm512_madd_epi16(o_pair, t_pair);
  const __m512 scale = _mm512_set1_ps(1.0f / 4096.0f);
  __m512 dpf = _mm512_cvtepi32_ps(dp);
  dpf = _mm512_mask_mov_ps(dpf, _mm512_cmpeq_epi32_mask(dp, _mm512_set1_epi32(INT32_MIN)),
                           _mm512_set1_ps(2147483648.0f));
  const __m512 x = _mm512_mul_ps(dpf, scale);
  const __m512 om = _mm512_mul_ps(_mm512_cvtepu32_ps(_mm512_madd_epi16(o_pair, o_pair)), scale);
  const __m512 tm = _mm512_mul_ps(_mm512_cvtepu32_ps(_mm512_madd_epi16(t_pair, t_pair)), scale);
  const __m512d c1 = _mm512_set1_pd(kCos1Sq);
  auto half = [&](int h) {
    auto wide = [h](__m512 v) {
      return _mm512_cvtps_pd(h == 0 ? _mm512_castps512_ps256(v)
                                    : _mm256_castpd_ps(_mm512_extractf64x4_pd(
                                          _mm512_castps_pd(v), 1)));
    };
    const __m512d xd = wide(x);
    const __m512d rhs = _mm512_mul_pd(_mm512_mul_pd(c1, wide(om)), wide(tm));
    return __mmask16(_mm512_cmp_pd_mask(xd, _mm512_setzero_pd(), _CMP_GE_OQ) &
                     _mm512_cmp_pd_mask(_mm512_mul_pd(xd, xd), rhs, _CMP_GE_OQ));
  };
  return __mmask16(half(0) | (half(1) << 8));
}

// (v + 16384) >> 15 of the int64 products of the even int32 lanes of a and b, clamped to
// [0, 32768].
inline __m512i ratio_even(__m512i a, __m512i b) {
  const __m512i k = _mm512_srai_epi64(
      _mm512_add_epi64(_mm512_mul_epi32(a, b), _mm512_set1_epi64(16384)), 15);
  return _mm512_min_epi64(_mm512_max_epi64(k, _mm512_setzero_si512()), _mm512_set1_epi64(32768));
}

// decouple_band for sixteen pixels: o, t the int16 coefficients as int32 lanes. DIV[o] * t is
// an int64 product of the even / odd lanes; k * o + 16384 fits int32. The restored value stays
// in int16's range before the cap, and the stores narrow by truncation like Coef(...).
inline void decouple_band16(__m512i o, __m512i t, __mmask16 flag, __m512d gain_limit,
                            int16_t* restored, int16_t* additive) {
  const __m512i zero = _mm512_setzero_si512();
  const __mmask16 o_zero = _mm512_cmpeq_epi32_mask(o, zero);
  const __mmask16 o_pos = _mm512_cmpgt_epi32_mask(o, zero);
  const __mmask16 o_neg = _mm512_cmplt_epi32_mask(o, zero);
  const __m512i m = _mm512_mask_mov_epi32(_mm512_abs_epi32(o), o_zero, _mm512_set1_epi32(1));
  __m512i div = div_q30_16(m);
  div = _mm512_mask_sub_epi32(div, o_neg, zero, div);
  const __m512i k_even = ratio_even(div, t);
  const __m512i k_odd = ratio_even(_mm512_srli_epi64(div, 32), _mm512_srli_epi64(t, 32));
  __m512i k = _mm512_mask_blend_epi32(0xaaaa, k_even, _mm512_slli_epi64(k_odd, 32));
  k = _mm512_mask_mov_epi32(k, o_zero, _mm512_set1_epi32(32768));
  __m512i rb = _mm512_srai_epi32(
      _mm512_add_epi32(_mm512_mullo_epi32(k, o), _mm512_set1_epi32(16384)), 15);
  const __mmask16 apply = flag & _mm512_cmpgt_epi32_mask(k, zero) & __mmask16(~o_zero);
  if (apply != 0) {
    auto capped_half = [&](__m256i r) {
      return _mm512_cvttpd_epi32(_mm512_mul_pd(_mm512_cvtepi32_pd(r), gain_limit));
    };
    const __m512i q = _mm512_inserti64x4(
        _mm512_castsi256_si512(capped_half(_mm512_castsi512_si256(rb))),
        capped_half(_mm512_extracti64x4_epi64(rb, 1)), 1);
    const __m512i capped =
        _mm512_mask_min_epi32(_mm512_max_epi32(q, t), o_pos, q, t);  // o > 0: min, else max
    rb = _mm512_mask_mov_epi32(rb, apply, capped);
  }
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(restored), _mm512_cvtepi32_epi16(rb));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(additive),
                      _mm512_cvtepi32_epi16(_mm512_sub_epi32(t, rb)));
}

inline __m512i load_narrow(const int16_t* p) {
  return _mm512_cvtepi16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}

template <typename Coef>
void decouple_row_narrow(const AdmBands<Coef>& ref, const AdmBands<Coef>& dis, double gain_limit,
                         int i, int left, int right, AdmDetail<Coef>& restored,
                         AdmDetail<Coef>& additive) {
  static_assert(sizeof(Coef) == 2);
  const __m512d gl = _mm512_set1_pd(gain_limit);
  const int16_t* o[3] = {ref.detail_row(kH, i), ref.detail_row(kV, i), ref.detail_row(kD, i)};
  const int16_t* t[3] = {dis.detail_row(kH, i), dis.detail_row(kV, i), dis.detail_row(kD, i)};
  int16_t* r[3] = {restored.row(kH, i), restored.row(kV, i), restored.row(kD, i)};
  int16_t* a[3] = {additive.row(kH, i), additive.row(kV, i), additive.row(kD, i)};
  int j = left;
  for (; j + 16 <= right; j += 16) {
    const __m512i oh = load_narrow(o[kH] + j);
    const __m512i ov = load_narrow(o[kV] + j);
    const __m512i th = load_narrow(t[kH] + j);
    const __m512i tv = load_narrow(t[kV] + j);
    const __mmask16 flag = angle_flag16(oh, ov, th, tv);
    decouple_band16(oh, th, flag, gl, r[kH] + j, a[kH] + j);
    decouple_band16(ov, tv, flag, gl, r[kV] + j, a[kV] + j);
    decouple_band16(load_narrow(o[kD] + j), load_narrow(t[kD] + j), flag, gl, r[kD] + j, a[kD] + j);
  }
  decouple_row_narrow_generic(ref, dis, gain_limit, i, j, right, restored, additive);
}

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
//  - m = (|o| + 2^(e-1)) >> e, at most 2^15; DIV[m] = trunc(2^30 / m) from div_q30_16 (in the
//    low eight lanes); o == 0 divides by 1 and takes k = 32768;
//  - DIV[m] * t (below 2^61 in magnitude) and k * o (below 2^47) are int64 products (vpmullq).
// The capped value trunc(min(q, t)) / trunc(max(q, t)) converts to int64 and then keeps the low
// 32 bits, the plain twin's Coef(int64_t(...)). Every product is of two int32 values in int64
// lanes (o, t sign-extended, the quotient below 2^31, k within [0, 32768]): vpmuldq, exact.
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
  const __m256i div = _mm512_castsi512_si256(div_q30_16(_mm512_zextsi256_si512(m)));
  const __m512i e64 = _mm512_cvtepi32_epi64(e);
  __m512i k = _mm512_mul_epi32(_mm512_cvtepi32_epi64(div), t);
  k = _mm512_mask_sub_epi64(k, o_neg, _mm512_setzero_si512(), k);
  const __m512i round =
      _mm512_sllv_epi64(_mm512_set1_epi64(1), _mm512_add_epi64(e64, _mm512_set1_epi64(14)));
  k = _mm512_srav_epi64(_mm512_add_epi64(k, round), _mm512_add_epi64(e64, _mm512_set1_epi64(15)));
  k = _mm512_min_epi64(_mm512_max_epi64(k, _mm512_setzero_si512()), _mm512_set1_epi64(32768));
  k = _mm512_mask_mov_epi64(k, o_zero, _mm512_set1_epi64(32768));
  const __m512i rb64 =
      _mm512_srai_epi64(_mm512_add_epi64(_mm512_mul_epi32(k, o), _mm512_set1_epi64(16384)), 15);
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
                       int i, int left, int right, AdmDetail<Coef>& restored,
                       AdmDetail<Coef>& additive) {
  static_assert(sizeof(Coef) == 4);
  const __m512d gl = _mm512_set1_pd(gain_limit);
  const __m512d c1 = _mm512_set1_pd(kCos1Sq);
  const int32_t* o[3] = {ref.detail_row(kH, i), ref.detail_row(kV, i), ref.detail_row(kD, i)};
  const int32_t* t[3] = {dis.detail_row(kH, i), dis.detail_row(kV, i), dis.detail_row(kD, i)};
  int32_t* r[3] = {restored.row(kH, i), restored.row(kV, i), restored.row(kD, i)};
  int32_t* a[3] = {additive.row(kH, i), additive.row(kV, i), additive.row(kD, i)};
  int j = left;
  for (; j + 8 <= right; j += 8) {
    const __m512i oh = load_wide(o[kH] + j);
    const __m512i ov = load_wide(o[kV] + j);
    const __m512i th = load_wide(t[kH] + j);
    const __m512i tv = load_wide(t[kV] + j);
    const __m512i dp = _mm512_add_epi64(_mm512_mul_epi32(oh, th), _mm512_mul_epi32(ov, tv));
    const __m512i om = _mm512_add_epi64(_mm512_mul_epi32(oh, oh), _mm512_mul_epi32(ov, ov));
    const __m512i tm = _mm512_add_epi64(_mm512_mul_epi32(th, th), _mm512_mul_epi32(tv, tv));
    const __m512d x = f32_over_4096(dp);
    const __m512d rhs = _mm512_mul_pd(_mm512_mul_pd(c1, f32_over_4096(om)), f32_over_4096(tm));
    const __mmask8 flag = _mm512_cmp_pd_mask(x, _mm512_setzero_pd(), _CMP_GE_OQ) &
                          _mm512_cmp_pd_mask(_mm512_mul_pd(x, x), rhs, _CMP_GE_OQ);
    decouple_band8(oh, th, flag, gl, r[kH] + j, a[kH] + j);
    decouple_band8(ov, tv, flag, gl, r[kV] + j, a[kV] + j);
    decouple_band8(load_wide(o[kD] + j), load_wide(t[kD] + j), flag, gl, r[kD] + j, a[kD] + j);
  }
  decouple_wide_scalar(ref, dis, gain_limit, i, j, right, restored, additive);
}

// ---------------------------------------------------------------------------------------------
// 3.7 at scales 1-3, sixteen int32 coefficients a step: c = int32((x * fixed + 2^27) >> 28) by
// q32_product_even, m = int32((143165577 |c| - 2^31) >> 32) with |c| as uint32 (INT32_MIN gives
// 2^31, as the plain twin's int64 abs) by vpmuludq; both exact in int64.
inline __m512i csf_mask_even(__m512i abs_c) {
  const __m512i p = _mm512_mul_epu32(abs_c, _mm512_set1_epi64(143165577));
  return _mm512_srai_epi64(_mm512_sub_epi64(p, _mm512_set1_epi64(int64_t{1} << 31)), 32);
}

inline __m512i join_even_odd(__m512i even, __m512i odd) {
  return _mm512_mask_blend_epi32(0xaaaa, even, _mm512_slli_epi64(odd, 32));
}

void csf_rows_wide(int scale, const AdmDetail<int32_t>& in, const AdmScaleWeights& weights,
                   const AdmRect& ext, AdmDetail<int32_t>& c, AdmDetail<int32_t>& m, int row_begin,
                   int row_end) {
  const int vector_end = ext.left + (ext.right - ext.left) / 16 * 16;
  for (int i = row_begin; i < row_end; ++i) {
    for (int b = 0; b < 3; ++b) {
      const uint32_t fixed = b == kD ? weights.fixed_d : weights.fixed_hv;
      const __m512i f = _mm512_set1_epi32(int32_t(fixed));
      const bool fixed_high = fixed >= 0x80000000u;
      const int32_t* s = in.row(b, i);
      int32_t* cr = c.row(b, i);
      int32_t* mr = m.row(b, i);
      for (int j = ext.left; j < vector_end; j += 16) {
        const __m512i x = _mm512_loadu_si512(s + j);
        const __m512i cv = join_even_odd(q32_product_even(x, f, fixed_high),
                                         q32_product_even(_mm512_srli_epi64(x, 32), f, fixed_high));
        _mm512_storeu_si512(cr + j, cv);
        const __m512i a = _mm512_abs_epi32(cv);
        _mm512_storeu_si512(
            mr + j, join_even_odd(csf_mask_even(a), csf_mask_even(_mm512_srli_epi64(a, 32))));
      }
    }
  }
  AdmRect tail = ext;
  tail.left = vector_end;
  csf_rows<int32_t>(scale, in, weights, tail, c, m, row_begin, row_end);
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
  k.scales123 = {decouple_rows<int32_t>, csf_rows_wide, cm_rows<int32_t>, den_rows<int32_t>};
  install_avx512_dwt_kernels(k);  // the scales 1-3 DWT (adm_dwt_avx512.cpp)
}

}  // namespace vqx::integer_adm
