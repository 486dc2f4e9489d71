// The AVX-512 level of the integer VIF row kernels (shared/spec/vmaf.md 2.5, 2.7): the vector
// levels' source (vif_vector_stages.inc, the method described at the top of
// vif_kernels_avx2.cpp) compiled for AVX-512 F/BW/DQ/VL, with blocks twice as wide where it
// has intrinsics: 32 columns of the 8-bit vertical pass, 32 outputs of the horizontal pass
// (vpmaddwd on 512-bit registers) and 8 pixels of the log branch (its table entries gathered).
// Each pass runs its 512-bit blocks first, then the AVX2 blocks and the scalar columns of the
// .inc for what is left. They compute the same integers as the plain twins (vif_kernels.cpp).
//
// Everything between the target pragmas has internal linkage; the headers come first, so the
// inline functions they define stay baseline code (one definition for every translation unit).
#include "core/avx512_intrinsics.h"

#include <cstddef>
#include <vector>

#include "core/cpu_features.h"
#include "metrics/integer_vif/vif_kernels.h"
#include "metrics/integer_vif/vif_rows.h"
#include "metrics/vmaf_common/mirror.h"

VQX_BEGIN_TARGET_AVX512

namespace vqx::integer_vif {
namespace {

#include "metrics/integer_vif/vif_vector_stages.inc"

inline __m512i coef_pair(int kS, int R, int p) {
  const uint32_t lo = kFilter[kS][2 * p];
  const uint32_t hi = 2 * p + 1 <= 2 * R ? kFilter[kS][2 * p + 1] : 0;
  return _mm512_set1_epi32(int32_t(lo | (hi << 16)));
}

// vertical_8bit_avx2 for blocks of 32 columns: the same unpack / vpmaddwd / pack steps inside
// each 128-bit lane, so the column order comes back the same way.
template <int R>
size_t vertical_8bit_avx512(const uint8_t* const (&rr)[2 * R + 1],
                            const uint8_t* const (&dr)[2 * R + 1], uint32_t w, unsigned sv,
                            uint32_t cv, OffsetRows& o) {
  constexpr int kS = scale_of_radius(R);
  __m512i coef[R + 1];
  for (int p = 0; p <= R; ++p) coef[p] = coef_pair(kS, R, p);
  const __m512i flip = _mm512_set1_epi16(int16_t(0x8000));
  const __m128i shift = _mm_cvtsi32_si128(int(sv));
  const __m512i round = _mm512_set1_epi32(int32_t(cv));
  const __m512i bias = _mm512_set1_epi32(int32_t(0x80000000u));
  const __m512i low16 = _mm512_set1_epi32(0xffff);
  size_t j = 0;
  for (; j + 32 <= w; j += 32) {
    __m512i acc[5][2];
    for (auto& a : acc) a[0] = a[1] = _mm512_setzero_si512();
    auto add_pair = [&](__m512i (&a)[2], __m512i v0, __m512i v1, __m512i c) {
      a[0] = _mm512_add_epi32(a[0], _mm512_madd_epi16(_mm512_unpacklo_epi16(v0, v1), c));
      a[1] = _mm512_add_epi32(a[1], _mm512_madd_epi16(_mm512_unpackhi_epi16(v0, v1), c));
    };
    for (int p = 0; p <= R; ++p) {
      const int k0 = 2 * p, k1 = 2 * p + 1 <= 2 * R ? 2 * p + 1 : 2 * p;
      auto row = [&](const uint8_t* r) {
        return _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(r + j)));
      };
      const __m512i x0 = row(rr[k0]), x1 = row(rr[k1]), y0 = row(dr[k0]), y1 = row(dr[k1]);
      add_pair(acc[0], x0, x1, coef[p]);
      add_pair(acc[1], y0, y1, coef[p]);
      auto sq16 = [&](__m512i a, __m512i b) {
        return _mm512_xor_si512(_mm512_mullo_epi16(a, b), flip);
      };
      add_pair(acc[2], sq16(x0, x0), sq16(x1, x1), coef[p]);
      add_pair(acc[3], sq16(y0, y0), sq16(y1, y1), coef[p]);
      add_pair(acc[4], sq16(x0, y0), sq16(x1, y1), coef[p]);
    }
    auto mean = [&](const __m512i (&a)[2]) {
      const __m512i l = _mm512_srl_epi32(_mm512_add_epi32(a[0], round), shift);
      const __m512i h = _mm512_srl_epi32(_mm512_add_epi32(a[1], round), shift);
      return _mm512_xor_si512(_mm512_packus_epi32(l, h), flip);
    };
    auto store = [&](int16_t* dst, __m512i v) { _mm512_storeu_si512(dst + j, v); };
    store(o.m1, mean(acc[0]));
    store(o.m2, mean(acc[1]));
    int16_t* hi_rows[3] = {o.q11h, o.q22h, o.q12h};
    int16_t* lo_rows[3] = {o.q11l, o.q22l, o.q12l};
    for (int q = 0; q < 3; ++q) {
      const __m512i l = _mm512_add_epi32(acc[2 + q][0], bias);  // q = b (sq = 0, cq = 0)
      const __m512i h = _mm512_add_epi32(acc[2 + q][1], bias);
      store(hi_rows[q], _mm512_xor_si512(
                            _mm512_packus_epi32(_mm512_srli_epi32(l, 16), _mm512_srli_epi32(h, 16)),
                            flip));
      store(lo_rows[q], _mm512_xor_si512(_mm512_packus_epi32(_mm512_and_si512(l, low16),
                                                             _mm512_and_si512(h, low16)),
                                         flip));
    }
  }
  return j;
}

template <int R>
size_t vertical_8bit_blocks(const uint8_t* const (&rr)[2 * R + 1],
                            const uint8_t* const (&dr)[2 * R + 1], uint32_t w, unsigned sv,
                            uint32_t cv, OffsetRows& o) {
  return vertical_8bit_avx2<R>(rr, dr, w, sv, cv, o, vertical_8bit_avx512<R>(rr, dr, w, sv, cv, o));
}

// filter16 for 32 outputs: lane m of `even` / `odd` is output j + 2m / j + 2m + 1 (plus 2^31).
// The loads read a[j .. j + 2R + 32], inside the padded row for j + 32 <= w.
template <int R>
inline void filter32(const int16_t* a, size_t j, const __m512i (&coef)[R + 1], __m512i& even,
                     __m512i& odd) {
  even = _mm512_set1_epi32(int32_t(0x80000000u));
  odd = even;
  for (int p = 0; p <= R; ++p) {
    const __m512i e = _mm512_loadu_si512(a + j + 2 * p);
    const __m512i o = _mm512_loadu_si512(a + j + 1 + 2 * p);
    even = _mm512_add_epi32(even, _mm512_madd_epi16(e, coef[p]));
    odd = _mm512_add_epi32(odd, _mm512_madd_epi16(o, coef[p]));
  }
}

// (a * b + 2^31) >> 32 for sixteen uint32 lanes (64-bit products).
inline __m512i mul_round_hi16(__m512i a, __m512i b) {
  const __m512i c = _mm512_set1_epi64(0x80000000);
  const __m512i pe = _mm512_add_epi64(_mm512_mul_epu32(a, b), c);
  const __m512i po = _mm512_add_epi64(
      _mm512_mul_epu32(_mm512_srli_epi64(a, 32), _mm512_srli_epi64(b, 32)), c);
  return _mm512_mask_blend_epi32(__mmask16(0xAAAA), _mm512_srli_epi64(pe, 32), po);
}

// horizontal_blocks16 for blocks of 32 outputs, stored even outputs first (16 each); returns the
// first column left.
template <int R>
size_t horizontal_blocks32(uint32_t w, FastScratch& s) {
  constexpr int kS = scale_of_radius(R);
  __m512i coef[R + 1];
  for (int p = 0; p <= R; ++p) coef[p] = coef_pair(kS, R, p);
  const __m512i half = _mm512_set1_epi32(32768);
  size_t j = 0;
  for (; j + 32 <= w; j += 32) {
    __m512i mu1e, mu1o, mu2e, mu2o;
    filter32<R>(s.o_m1, j, coef, mu1e, mu1o);
    filter32<R>(s.o_m2, j, coef, mu2e, mu2o);
    const __m512i u11e = mul_round_hi16(mu1e, mu1e), u11o = mul_round_hi16(mu1o, mu1o);
    const __m512i u22e = mul_round_hi16(mu2e, mu2e), u22o = mul_round_hi16(mu2o, mu2o);
    const __m512i u12e = mul_round_hi16(mu1e, mu2e), u12o = mul_round_hi16(mu1o, mu2o);
    auto sigma = [&](const int16_t* hi, const int16_t* lo, __m512i ue, __m512i uo, int32_t* dst,
                     bool clamp) {
      __m512i he, ho, le, lo_;
      filter32<R>(hi, j, coef, he, ho);
      filter32<R>(lo, j, coef, le, lo_);
      __m512i te = _mm512_sub_epi32(
          _mm512_add_epi32(he, _mm512_srli_epi32(_mm512_add_epi32(le, half), 16)), ue);
      __m512i to = _mm512_sub_epi32(
          _mm512_add_epi32(ho, _mm512_srli_epi32(_mm512_add_epi32(lo_, half), 16)), uo);
      if (clamp) {
        te = _mm512_max_epi32(te, _mm512_setzero_si512());
        to = _mm512_max_epi32(to, _mm512_setzero_si512());
      }
      _mm512_storeu_si512(dst + j, te);
      _mm512_storeu_si512(dst + j + 16, to);
    };
    sigma(s.o_q11h, s.o_q11l, u11e, u11o, s.s1, false);
    sigma(s.o_q22h, s.o_q22l, u22e, u22o, s.s2, true);
    sigma(s.o_q12h, s.o_q12l, u12e, u12o, s.s12, false);
  }
  return j;
}

template <int R>
size_t horizontal_blocks(uint32_t w, FastScratch& s) {
  return horizontal_blocks16<R>(horizontal_blocks32<R>(w, s), w, s);
}

// lg4_exponent for eight lanes.
inline __m512i lg8_exponent(__m512d v, __m512i& index) {
  const __m512d two52 = _mm512_set1_pd(4503599627370496.0);
  const __m512i e = _mm512_sub_epi64(_mm512_srli_epi64(_mm512_castpd_si512(v), 52),
                                     _mm512_set1_epi64(1023 + 15));
  const __m512i iv = _mm512_sub_epi64(_mm512_castpd_si512(_mm512_add_pd(v, two52)),
                                      _mm512_castpd_si512(two52));
  index = _mm512_srlv_epi64(iv, e);
  return _mm512_slli_epi64(e, 11);  // 2048 * e
}

// log_pixels4 for eight pixels: the same IEEE operations in the same order, lane by lane, with
// mask registers for the branches.
inline void log_pixels8(const uint16_t* table, __m256i s1, __m256i s2, __m256i s12,
                        __m512d gain_limit, __m512i& num_acc, __m512i& den_acc) {
  const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1);
  const __mmask8 log_mask = _mm256_cmpgt_epi32_mask(s1, _mm256_set1_epi32(kNoiseVariance - 1));
  const __mmask8 num_mask =
      log_mask & _mm256_cmpgt_epi32_mask(s12, zero) & _mm256_cmpgt_epi32_mask(s2, zero);
  s1 = _mm256_mask_mov_epi32(_mm256_set1_epi32(kNoiseVariance), log_mask, s1);
  s2 = _mm256_mask_mov_epi32(one, num_mask, s2);
  s12 = _mm256_mask_mov_epi32(one, num_mask, s12);
  const __m512d d1 = _mm512_cvtepi32_pd(s1), d2 = _mm512_cvtepi32_pd(s2);
  const __m512d d12 = _mm512_cvtepi32_pd(s12);
  // den_log: lg32(NS + sigma1) - 2048 * 17; NS + sigma1 < 2^32 is exact in f64.
  __m512i ix, i1, i2;
  const __m512i den = _mm512_sub_epi64(
      lg8_exponent(_mm512_add_pd(d1, _mm512_set1_pd(double(kNoiseVariance))), ix),
      _mm512_set1_epi64(2048 * 17));
  den_acc = _mm512_mask_add_epi64(den_acc, log_mask, den_acc, den);
  // num_log: the f64 steps of log_pixel, one IEEE operation each.
  const __m512d eps = _mm512_set1_pd(65536 * 1.0e-10);
  __m512d g = _mm512_div_pd(d12, _mm512_add_pd(d1, eps));
  __m256i sv = _mm512_cvttpd_epi32(_mm512_sub_pd(d2, _mm512_mul_pd(g, d12)));
  sv = _mm256_max_epi32(sv, zero);
  g = _mm512_min_pd(g, gain_limit);  // g < limit ? g : limit
  const __m512d n1 = _mm512_cvtepi32_pd(_mm256_add_epi32(sv, _mm256_set1_epi32(kNoiseVariance)));
  const __m512d x = _mm512_mul_pd(_mm512_mul_pd(g, g), d1);
  const __m512d n2 =
      _mm512_add_pd(_mm512_roundscale_pd(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC), n1);
  const __m512i num = _mm512_sub_epi64(lg8_exponent(n2, i2), lg8_exponent(n1, i1));
  num_acc = _mm512_mask_add_epi64(num_acc, num_mask, num_acc, num);
  // The table terms of the lanes that take each branch, gathered: every index is in
  // 32768..65535, so the 32-bit word at entry index - 1 lies in the table, and its high half is
  // the entry. Lanes off the mask read nothing and add 0.
  auto entries = [table](__m512i index, __mmask8 mask) {
    const __m256i words = _mm512_mask_i64gather_epi32(
        _mm256_setzero_si256(), mask, _mm512_sub_epi64(index, _mm512_set1_epi64(1)), table, 2);
    return _mm512_cvtepu32_epi64(_mm256_srli_epi32(words, 16));
  };
  den_acc = _mm512_add_epi64(den_acc, entries(ix, log_mask));
  num_acc =
      _mm512_add_epi64(num_acc, _mm512_sub_epi64(entries(i2, num_mask), entries(i1, num_mask)));
}

size_t log_blocks(const uint16_t* table, uint32_t w, const FastScratch& s, double gain_limit,
                  int64_t& num_log, int64_t& den_log) {
  const __m512d limit = _mm512_set1_pd(gain_limit);
  __m512i num_acc = _mm512_setzero_si512(), den_acc = _mm512_setzero_si512();
  const __m256i below = _mm256_set1_epi32(kNoiseVariance);
  size_t j = 0;
  for (; j + 8 <= w; j += 8) {
    const __m256i v1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s.s1 + j));
    if (_mm256_cmplt_epi32_mask(v1, below) == 0xff) continue;  // all flat
    log_pixels8(table, v1, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s.s2 + j)),
                _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s.s12 + j)), limit, num_acc,
                den_acc);
  }
  alignas(64) int64_t lanes[2][8];
  _mm512_store_si512(lanes[0], num_acc);
  _mm512_store_si512(lanes[1], den_acc);
  for (int k = 0; k < 8; ++k) num_log += lanes[0][k], den_log += lanes[1][k];
  return log_blocks4(table, j, w, s, gain_limit, num_log, den_log);
}

}  // namespace
}  // namespace vqx::integer_vif

VQX_END_TARGET

namespace vqx::integer_vif {

// Baseline code: filling the table must not itself need AVX-512.
void install_avx512_kernels(VifKernels& k) {
  k.u8 = {statistic_rows<uint8_t>, downsample_rows<uint8_t>};
  k.u16 = {statistic_rows<uint16_t>, downsample_rows<uint16_t>};
}

}  // namespace vqx::integer_vif
