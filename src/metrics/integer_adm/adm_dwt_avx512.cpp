// The AVX-512 DWT of scales 1-3 (shared/spec/vmaf.md 3.4). The spec sums in int64; the
// vectoriser does so with vpmullq (three uops each), but every product here is a 32 x 32-bit
// one: the taps lie within int16 and the inputs within int32, so vpmuldq on the even int32 lanes
// (and on the odd ones shifted down) gives the exact int64 products. The integers are the plain
// twin's (adm_shared_stages.inc's dwt_rows), bit for bit (integer_adm_kernels_test).
#include "core/avx512_intrinsics.h"

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/cpu_features.h"
#include "metrics/integer_adm/adm_kernels.h"
#include "metrics/integer_adm/adm_stage_rules.h"

VQX_BEGIN_TARGET_AVX512

namespace vqx::integer_adm {
namespace {

// The vertical pass's rounding (3.4): none at scale 1, 2^15 and >> 16 at scales 2 and 3.
constexpr int64_t kVertRound[4] = {0, 0, 32768, 32768};
constexpr int kVertShift[4] = {0, 0, 16, 16};
constexpr int64_t kHorRound[4] = {0, 16384, 32768, 16384};
constexpr int kHorShift[4] = {0, 15, 16, 15};

// sum over k of taps[k] * x_k for int32 lanes x_k, the int64 sums of the even lanes.
inline __m512i taps_even(__m512i x0, __m512i x1, __m512i x2, __m512i x3, const int32_t taps[4]) {
  __m512i s = _mm512_mul_epi32(x0, _mm512_set1_epi64(taps[0]));
  s = _mm512_add_epi64(s, _mm512_mul_epi32(x1, _mm512_set1_epi64(taps[1])));
  s = _mm512_add_epi64(s, _mm512_mul_epi32(x2, _mm512_set1_epi64(taps[2])));
  return _mm512_add_epi64(s, _mm512_mul_epi32(x3, _mm512_set1_epi64(taps[3])));
}

// int32((sum + round) >> shift) of both halves of sixteen int32 lanes, back in their order.
inline __m512i round_and_join(__m512i even, __m512i odd, __m512i round, __m128i shift) {
  even = _mm512_sra_epi64(_mm512_add_epi64(even, round), shift);
  odd = _mm512_sra_epi64(_mm512_add_epi64(odd, round), shift);
  return _mm512_mask_blend_epi32(0xaaaa, even, _mm512_slli_epi64(odd, 32));
}

inline __m512i load16(const int32_t* p) { return _mm512_loadu_si512(p); }

// Two int16 taps (t0 in the low half) as the int32 of a vpmaddwd operand.
constexpr int32_t tap_pair(int32_t t0, int32_t t1) {
  return int32_t((uint32_t(t1) << 16) | (uint32_t(t0) & 0xffffu));
}

// The vertical pass at scale 1, whose int16 input is the scale-0 a band and which neither rounds
// nor shifts: every sum is within (15826 + 27411 + 7345 + 4240) * 32768 < 2^31, and so is each
// pair's, so vpmaddwd on (row 0, row 1) and (row 2, row 3) pairs of int16 gives it exactly.
void vertical_scale1(const int16_t* const p[4], size_t n, int32_t* tl, int32_t* th) {
  auto rows = [&](int k, size_t j) {
    const __m512i a =
        _mm512_cvtepi16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p[k] + j)));
    const __m512i b =
        _mm512_cvtepi16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p[k + 1] + j)));
    return _mm512_mask_blend_epi16(0xaaaaaaaa, a, _mm512_slli_epi32(b, 16));
  };
  const __m512i lo01 = _mm512_set1_epi32(tap_pair(kLo[0], kLo[1]));
  const __m512i lo23 = _mm512_set1_epi32(tap_pair(kLo[2], kLo[3]));
  const __m512i hi01 = _mm512_set1_epi32(tap_pair(kHi[0], kHi[1]));
  const __m512i hi23 = _mm512_set1_epi32(tap_pair(kHi[2], kHi[3]));
  size_t j = 0;
  for (; j + 16 <= n; j += 16) {
    const __m512i r01 = rows(0, j), r23 = rows(2, j);
    _mm512_storeu_si512(
        tl + j, _mm512_add_epi32(_mm512_madd_epi16(r01, lo01), _mm512_madd_epi16(r23, lo23)));
    _mm512_storeu_si512(
        th + j, _mm512_add_epi32(_mm512_madd_epi16(r01, hi01), _mm512_madd_epi16(r23, hi23)));
  }
  for (; j < n; ++j) {
    const int32_t s0 = p[0][j], s1 = p[1][j], s2 = p[2][j], s3 = p[3][j];
    tl[j] = kLo[0] * s0 + kLo[1] * s1 + kLo[2] * s2 + kLo[3] * s3;
    th[j] = kHi[0] * s0 + kHi[1] * s1 + kHi[2] * s2 + kHi[3] * s3;
  }
}

// The vertical pass of one output row over columns [0, n): rows p[0..3] to tl, th. int16 input
// (scale 1) widens to int32 first.
template <typename In>
void vertical(const In* const p[4], size_t n, int scale, int32_t* tl, int32_t* th) {
  if constexpr (sizeof(In) == 2) {
    if (scale == 1) return vertical_scale1(p, n, tl, th);
  }
  const __m512i round = _mm512_set1_epi64(kVertRound[scale]);
  const __m128i shift = _mm_cvtsi32_si128(kVertShift[scale]);
  auto load = [&](int k, size_t j) {
    if constexpr (sizeof(In) == 2)
      return _mm512_cvtepi16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p[k] + j)));
    else
      return load16(p[k] + j);
  };
  size_t j = 0;
  for (; j + 16 <= n; j += 16) {
    const __m512i x0 = load(0, j), x1 = load(1, j), x2 = load(2, j), x3 = load(3, j);
    const __m512i y0 = _mm512_srli_epi64(x0, 32), y1 = _mm512_srli_epi64(x1, 32);
    const __m512i y2 = _mm512_srli_epi64(x2, 32), y3 = _mm512_srli_epi64(x3, 32);
    _mm512_storeu_si512(tl + j, round_and_join(taps_even(x0, x1, x2, x3, kLo),
                                               taps_even(y0, y1, y2, y3, kLo), round, shift));
    _mm512_storeu_si512(th + j, round_and_join(taps_even(x0, x1, x2, x3, kHi),
                                               taps_even(y0, y1, y2, y3, kHi), round, shift));
  }
  const int64_t cv = kVertRound[scale];
  const int sv = kVertShift[scale];
  for (; j < n; ++j) {
    const int64_t s0 = p[0][j], s1 = p[1][j], s2 = p[2][j], s3 = p[3][j];
    tl[j] = int32_t((kLo[0] * s0 + kLo[1] * s1 + kLo[2] * s2 + kLo[3] * s3 + cv) >> sv);
    th[j] = int32_t((kHi[0] * s0 + kHi[1] * s1 + kHi[2] * s2 + kHi[3] * s3 + cv) >> sv);
  }
}

// The horizontal pass of one filtered row r (r[0] is position -1, padded): output j reads
// r[2j .. 2j + 3]. A 64-bit lane of a load at r + 2j holds (r[2j], r[2j + 1]), one at r + 2j + 2
// holds (r[2j + 2], r[2j + 3]): eight outputs per pair of loads, in order.
inline void horizontal(const int32_t* r, size_t w, int scale, int32_t* low, int32_t* high) {
  const __m512i round = _mm512_set1_epi64(kHorRound[scale]);
  const __m128i shift = _mm_cvtsi32_si128(kHorShift[scale]);
  size_t j = 0;
  for (; j + 8 <= w; j += 8) {
    const __m512i x = load16(r + 2 * j), y = load16(r + 2 * j + 2);
    const __m512i x1 = _mm512_srli_epi64(x, 32), y1 = _mm512_srli_epi64(y, 32);
    auto out = [&](const int32_t taps[4]) {
      const __m512i s = _mm512_sra_epi64(_mm512_add_epi64(taps_even(x, x1, y, y1, taps), round),
                                         shift);
      return _mm512_cvtepi64_epi32(s);
    };
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(low + j), out(kLo));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(high + j), out(kHi));
  }
  const int64_t ch = kHorRound[scale];
  const int sh = kHorShift[scale];
  for (; j < w; ++j) {
    const int64_t l0 = r[2 * j], l1 = r[2 * j + 1], l2 = r[2 * j + 2], l3 = r[2 * j + 3];
    low[j] = int32_t((kLo[0] * l0 + kLo[1] * l1 + kLo[2] * l2 + kLo[3] * l3 + ch) >> sh);
    high[j] = int32_t((kHi[0] * l0 + kHi[1] * l1 + kHi[2] * l2 + kHi[3] * l3 + ch) >> sh);
  }
}

template <typename In>
void dwt_rows(int scale, const In* in, uint32_t in_w, uint32_t in_h, AdmBands<int32_t>& out,
              uint32_t row_begin, uint32_t row_end) {
  const uint32_t w = out.w;
  thread_local std::vector<int32_t> tl, th;
  // Room for the padding and for the last vector load of the horizontal pass (r + 2j + 2 ..
  // r + 2j + 17 with j + 8 <= w, at most index 2w + 1 <= in_w + 2).
  tl.resize(in_w + 3);
  th.resize(in_w + 3);
  for (uint32_t i = row_begin; i < row_end; ++i) {
    const In* p[4];
    for (int k = 0; k < 4; ++k) p[k] = in + size_t(dwt_index(int64_t(2 * i) - 1 + k, in_h)) * in_w;
    vertical(p, in_w, scale, tl.data() + 1, th.data() + 1);
    dwt_pad(tl.data(), in_w);
    dwt_pad(th.data(), in_w);
    horizontal(tl.data(), w, scale, out.a_row(int(i)), out.detail_row(kV, int(i)));
    horizontal(th.data(), w, scale, out.detail_row(kH, int(i)), out.detail_row(kD, int(i)));
  }
}

}  // namespace
}  // namespace vqx::integer_adm

VQX_END_TARGET

namespace vqx::integer_adm {

void install_avx512_dwt_kernels(AdmKernels& k) {
  k.dwt_rows_from_scale0 = dwt_rows<int16_t>;
  k.dwt_rows = dwt_rows<int32_t>;
}

}  // namespace vqx::integer_adm
