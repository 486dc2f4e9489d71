// The AVX2 level of the integer VIF row kernels (shared/spec/vmaf.md 2.5, 2.7): C++ for the
// auto-vectoriser compiled for AVX2, plus intrinsics for the 8-bit vertical pass, the horizontal
// pass (vpmaddwd) and the log branch of step 3. They compute the same integers as the plain
// twins (vif_kernels.cpp), regrouped only where integer sums are exact:
//  - the radius is a template argument, so the tap loops unroll and every tap of a filter is
//    summed in registers (one pass over a row instead of one pass per tap);
//  - 32-bit lanes only. A spec sum S = sum_k f[k] * v[k] with uint32 values v is formed in uint64
//    upstream. With v = 2^16 * hi + lo (hi, lo < 2^16) and sum_k f[k] = 65536 (2.2), both
//    H = sum f*hi and L = sum f*lo are at most 65536 * 65535 < 2^32, S = 2^16 * H + L, and for a
//    shift 0 <= sh <= 16 with rounding c < 2^16:
//        (S + c) >> sh = H * 2^(16 - sh) + ((L + c) >> sh)      (L + c < 2^32)
//    exactly; taken mod 2^32 it is the uint32 the spec stores. The vertical second moments split
//    the products x*y (< 2^32) this way, the horizontal pass the q values;
//  - the vertical outputs are stored as int16 offset by -32768 for vpmaddwd (OffsetRows);
//  - the per-pixel step 3 of 2.5 is split in a vectorised pass for the flat pixels and a pass for
//    the others (the accumulators are integer sums, any order), whose f64 steps are the spec's
//    IEEE operations in the spec's order, lane by lane.
// Every partial sum is bounded by the full sum (all terms are non-negative), so nothing wraps.
// Column indices are size_t: with uint32 indices the vectoriser cannot prove j + k contiguous and
// falls back to emulated gathers. The passes stay out of line (one register allocation each, and
// readable profiles).
//
// Everything between the target pragmas has internal linkage; the headers come first, so the
// inline functions they define stay baseline code (one definition for every translation unit).
#include <immintrin.h>

#include <cstddef>
#include <vector>

#include "core/cpu_features.h"
#include "metrics/integer_vif/vif_kernels.h"
#include "metrics/integer_vif/vif_rows.h"
#include "metrics/vmaf_common/mirror.h"

VQX_BEGIN_TARGET_AVX2

namespace vqx::integer_vif {
namespace {

using vmaf_common::mirror;
using vmaf_common::mirror_pad;

// Row buffers of one thread: the vertical outputs as int16 offset by -32768 (m1, m2 and the
// 16-bit halves of q11, q22, q12), padded by the largest filter radius on both sides plus 32
// spare values for the 16-wide loads; the variances; and a uint32 row for the downsampling.
struct FastScratch {
  static constexpr size_t kPad = 8;
  uint32_t width = 0;
  std::vector<int16_t> offset_rows;
  std::vector<int32_t> variance_rows;
  std::vector<uint32_t> row;
  int16_t *o_m1, *o_m2, *o_q11h, *o_q11l, *o_q22h, *o_q22l, *o_q12h, *o_q12l;
  int32_t *s1, *s2, *s12;
  uint32_t* m1;

  void reserve(uint32_t w) {
    if (w <= width) return;
    width = w;
    const size_t n = w + 2 * kPad, n16 = n + 32;
    offset_rows.assign(8 * n16, 0);
    int16_t* o = offset_rows.data();
    for (int16_t** d : {&o_m1, &o_m2, &o_q11h, &o_q11l, &o_q22h, &o_q22l, &o_q12h, &o_q12l}) {
      *d = o;
      o += n16;
    }
    variance_rows.assign(3 * n, 0);
    s1 = variance_rows.data(), s2 = s1 + n, s12 = s2 + n;
    row.assign(n, 0);
    m1 = row.data();
  }
};

FastScratch& thread_scratch(uint32_t w) {
  thread_local FastScratch scratch;
  scratch.reserve(w);
  return scratch;
}

constexpr int scale_of_radius(int r) { return r == 8 ? 0 : r == 4 ? 1 : r == 2 ? 2 : 3; }

// Rows i - R .. i + R of a plane, mirrored (2.3).
template <int R, typename Sample>
inline void window_rows(const Sample* plane, uint32_t w, uint32_t h, int64_t i,
                        const Sample* (&rows)[2 * R + 1]) {
  for (int k = 0; k <= 2 * R; ++k) rows[k] = plane + size_t(mirror(i - R + k, h)) * w;
}

// The vertical outputs m1, m2 (at most 65535) and q11, q22, q12 (uint32, split into 16-bit
// halves) stored as int16 offset by -32768 (v ^ 0x8000), the form the horizontal pass multiplies
// with vpmaddwd. Since every filter sums to 65536 (2.2), sum f * (v - 32768) = sum f * v - 2^31:
// the horizontal pass adds 2^31 back (mod 2^32, exact as the true sums are below 2^32).
struct OffsetRows {
  int16_t *m1, *m2, *q11h, *q11l, *q22h, *q22l, *q12h, *q12l;
  static int16_t off(uint32_t v) { return int16_t(uint16_t(v ^ 0x8000u)); }
  void store(size_t j, uint32_t vm1, uint32_t vm2, uint32_t v11, uint32_t v22, uint32_t v12) {
    m1[j] = off(vm1), m2[j] = off(vm2);
    q11h[j] = off(v11 >> 16), q11l[j] = off(v11 & 0xffff);
    q22h[j] = off(v22 >> 16), q22l[j] = off(v22 & 0xffff);
    q12h[j] = off(v12 >> 16), q12l[j] = off(v12 & 0xffff);
  }
};

// The 8-bit vertical pass (scale 0, sq = 0) for blocks of 16 columns with vpmaddwd, two rows per
// multiply: the samples of rows k and k + 1 are interleaved into 16-bit pairs and multiplied by
// (f[k], f[k + 1]) (taps below 2^15; the odd last row pairs with a zero tap). The squares and
// products x*x, y*y, x*y (below 2^16) enter as int16 offset by -32768, which takes 2^31 off each
// second-moment sum (the taps sum to 65536); adding 2^31 back mod 2^32 gives the spec's uint32
// sums (below 2^32 for 8-bit input, 2.8). unpacklo/hi put columns 0-3, 8-11 / 4-7, 12-15 in the
// 32-bit lanes, and the final packus_epi32 restores the column order (values at most 65535, so
// the unsigned saturation is exact). Returns the first column left for the scalar loop.
template <int R>
size_t vertical_8bit_avx2(const uint8_t* const (&rr)[2 * R + 1],
                          const uint8_t* const (&dr)[2 * R + 1], uint32_t w, unsigned sv,
                          uint32_t cv, OffsetRows& o) {
  constexpr int kS = scale_of_radius(R);
  __m256i coef[R + 1];
  for (int p = 0; p <= R; ++p) {
    const uint32_t lo = kFilter[kS][2 * p];
    const uint32_t hi = 2 * p + 1 <= 2 * R ? kFilter[kS][2 * p + 1] : 0;
    coef[p] = _mm256_set1_epi32(int32_t(lo | (hi << 16)));
  }
  const __m256i flip = _mm256_set1_epi16(int16_t(0x8000));
  const __m128i shift = _mm_cvtsi32_si128(int(sv));
  const __m256i round = _mm256_set1_epi32(int32_t(cv));
  const __m256i bias = _mm256_set1_epi32(int32_t(0x80000000u));
  const __m256i low16 = _mm256_set1_epi32(0xffff);
  size_t j = 0;
  for (; j + 16 <= w; j += 16) {
    __m256i acc[5][2];
    for (auto& a : acc) a[0] = a[1] = _mm256_setzero_si256();
    auto add_pair = [&](__m256i (&a)[2], __m256i v0, __m256i v1, __m256i c) {
      a[0] = _mm256_add_epi32(a[0], _mm256_madd_epi16(_mm256_unpacklo_epi16(v0, v1), c));
      a[1] = _mm256_add_epi32(a[1], _mm256_madd_epi16(_mm256_unpackhi_epi16(v0, v1), c));
    };
    for (int p = 0; p <= R; ++p) {
      const int k0 = 2 * p, k1 = 2 * p + 1 <= 2 * R ? 2 * p + 1 : 2 * p;
      auto row = [&](const uint8_t* r) {
        return _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r + j)));
      };
      const __m256i x0 = row(rr[k0]), x1 = row(rr[k1]), y0 = row(dr[k0]), y1 = row(dr[k1]);
      add_pair(acc[0], x0, x1, coef[p]);
      add_pair(acc[1], y0, y1, coef[p]);
      auto sq16 = [&](__m256i a, __m256i b) {
        return _mm256_xor_si256(_mm256_mullo_epi16(a, b), flip);
      };
      add_pair(acc[2], sq16(x0, x0), sq16(x1, x1), coef[p]);
      add_pair(acc[3], sq16(y0, y0), sq16(y1, y1), coef[p]);
      add_pair(acc[4], sq16(x0, y0), sq16(x1, y1), coef[p]);
    }
    auto mean = [&](const __m256i (&a)[2]) {
      const __m256i l = _mm256_srl_epi32(_mm256_add_epi32(a[0], round), shift);
      const __m256i h = _mm256_srl_epi32(_mm256_add_epi32(a[1], round), shift);
      return _mm256_xor_si256(_mm256_packus_epi32(l, h), flip);
    };
    auto store = [&](int16_t* dst, __m256i v) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + j), v);
    };
    store(o.m1, mean(acc[0]));
    store(o.m2, mean(acc[1]));
    int16_t* hi_rows[3] = {o.q11h, o.q22h, o.q12h};
    int16_t* lo_rows[3] = {o.q11l, o.q22l, o.q12l};
    for (int q = 0; q < 3; ++q) {
      const __m256i l = _mm256_add_epi32(acc[2 + q][0], bias);  // q = b (sq = 0, cq = 0)
      const __m256i h = _mm256_add_epi32(acc[2 + q][1], bias);
      store(hi_rows[q], _mm256_xor_si256(
                            _mm256_packus_epi32(_mm256_srli_epi32(l, 16), _mm256_srli_epi32(h, 16)),
                            flip));
      store(lo_rows[q], _mm256_xor_si256(_mm256_packus_epi32(_mm256_and_si256(l, low16),
                                                             _mm256_and_si256(h, low16)),
                                         flip));
    }
  }
  return j;
}

// Vertical pass of 2.5 for row i into the offset rows at [R, R + w) of the padded rows.
// Samples of at most 8 bits keep the whole second moment in 32 bits (2.8: 65536 * 255^2 < 2^32);
// wider samples use the split form (products x*y < 2^32).
template <int R, typename Sample>
__attribute__((noinline)) void vertical_pass(const Sample* ref, const Sample* dis, uint32_t w,
                                             uint32_t h, uint32_t i, unsigned sv, uint32_t cv,
                                             unsigned sq, uint32_t cq, FastScratch& s) {
  constexpr int kS = scale_of_radius(R);
  uint32_t f[2 * R + 1];
  for (int k = 0; k <= 2 * R; ++k) f[k] = kFilter[kS][k];
  const Sample* rr[2 * R + 1];
  const Sample* dr[2 * R + 1];
  window_rows<R>(ref, w, h, i, rr);
  window_rows<R>(dis, w, h, i, dr);
  OffsetRows o{s.o_m1 + R,   s.o_m2 + R,   s.o_q11h + R, s.o_q11l + R,
               s.o_q22h + R, s.o_q22l + R, s.o_q12h + R, s.o_q12l + R};
  if constexpr (sizeof(Sample) == 1) {
    size_t j0 = 0;
    if constexpr (R >= 2) {
      if (sq == 0 && cq == 0) j0 = vertical_8bit_avx2<R>(rr, dr, w, sv, cv, o);
    }
    #pragma GCC ivdep
    for (size_t j = j0; j < w; ++j) {
      uint32_t x = rr[R][j], y = dr[R][j];
      uint32_t a1 = f[R] * x, a2 = f[R] * y;
      uint32_t b11 = f[R] * (x * x), b22 = f[R] * (y * y), b12 = f[R] * (x * y);
      #pragma GCC unroll 8
      for (int k = 0; k < R; ++k) {
        uint32_t xt = rr[k][j], xb = rr[2 * R - k][j], yt = dr[k][j], yb = dr[2 * R - k][j];
        a1 += f[k] * (xt + xb);
        a2 += f[k] * (yt + yb);
        b11 += f[k] * (xt * xt + xb * xb);
        b22 += f[k] * (yt * yt + yb * yb);
        b12 += f[k] * (xt * yt + xb * yb);
      }
      o.store(j, (a1 + cv) >> sv, (a2 + cv) >> sv, (b11 + cq) >> sq, (b22 + cq) >> sq,
              (b12 + cq) >> sq);
    }
  } else {
    const unsigned hs = 16 - sq;
    #pragma GCC ivdep
    for (size_t j = 0; j < w; ++j) {
      uint32_t x = rr[R][j], y = dr[R][j];
      uint32_t a1 = f[R] * x, a2 = f[R] * y;
      uint32_t p11 = x * x, p22 = y * y, p12 = x * y;
      uint32_t h11 = f[R] * (p11 >> 16), l11 = f[R] * (p11 & 0xffff);
      uint32_t h22 = f[R] * (p22 >> 16), l22 = f[R] * (p22 & 0xffff);
      uint32_t h12 = f[R] * (p12 >> 16), l12 = f[R] * (p12 & 0xffff);
      #pragma GCC unroll 8
      for (int k = 0; k < R; ++k) {
        uint32_t xt = rr[k][j], xb = rr[2 * R - k][j], yt = dr[k][j], yb = dr[2 * R - k][j];
        a1 += f[k] * (xt + xb);
        a2 += f[k] * (yt + yb);
        uint32_t t11 = xt * xt, b11 = xb * xb, t22 = yt * yt, b22 = yb * yb;
        uint32_t t12 = xt * yt, b12 = xb * yb;
        h11 += f[k] * ((t11 >> 16) + (b11 >> 16));
        l11 += f[k] * ((t11 & 0xffff) + (b11 & 0xffff));
        h22 += f[k] * ((t22 >> 16) + (b22 >> 16));
        l22 += f[k] * ((t22 & 0xffff) + (b22 & 0xffff));
        h12 += f[k] * ((t12 >> 16) + (b12 >> 16));
        l12 += f[k] * ((t12 & 0xffff) + (b12 & 0xffff));
      }
      o.store(j, (a1 + cv) >> sv, (a2 + cv) >> sv, (h11 << hs) + ((l11 + cq) >> sq),
              (h22 << hs) + ((l22 + cq) >> sq), (h12 << hs) + ((l12 + cq) >> sq));
    }
  }
  for (int16_t* p : {s.o_m1, s.o_m2, s.o_q11h, s.o_q11l, s.o_q22h, s.o_q22l, s.o_q12h, s.o_q12l})
    mirror_pad(p, w, R);
}

// sigma1, sigma2 (clamped at 0), sigma12 from the horizontal sums (2.5 step 2): mu = M1, M2 and
// the halves H, L of X11, X22, X12, where V = (X + 32768) >> 16 = H + ((L + 32768) >> 16) (see the
// top of this file).
inline void variances(uint32_t mu1, uint32_t mu2, uint32_t h11, uint32_t l11, uint32_t h22,
                      uint32_t l22, uint32_t h12, uint32_t l12, int32_t& s1, int32_t& s2,
                      int32_t& s12) {
  const uint32_t v11 = h11 + ((l11 + 32768) >> 16);
  const uint32_t v22 = h22 + ((l22 + 32768) >> 16);
  const uint32_t v12 = h12 + ((l12 + 32768) >> 16);
  const uint32_t u11 = uint32_t((uint64_t(mu1) * mu1 + 0x80000000u) >> 32);
  const uint32_t u22 = uint32_t((uint64_t(mu2) * mu2 + 0x80000000u) >> 32);
  const uint32_t u12 = uint32_t((uint64_t(mu1) * mu2 + 0x80000000u) >> 32);
  s1 = int32_t(v11 - u11);  // 32-bit wrapping subtraction (2.5)
  const int32_t t2 = int32_t(v22 - u22);
  s2 = t2 > 0 ? t2 : 0;
  s12 = int32_t(v12 - u12);
}

// Horizontal pass of 2.5 for columns [begin, end) in plain C++: every sum from the offset rows,
// in wrapping uint32, plus 2^31.
template <int R>
inline void horizontal_columns(size_t begin, size_t end, FastScratch& s) {
  constexpr int kS = scale_of_radius(R);
  uint32_t f[2 * R + 1];
  for (int k = 0; k <= 2 * R; ++k) f[k] = kFilter[kS][k];
  const int16_t* __restrict m1 = s.o_m1;
  const int16_t* __restrict m2 = s.o_m2;
  const int16_t* __restrict q11h = s.o_q11h;
  const int16_t* __restrict q11l = s.o_q11l;
  const int16_t* __restrict q22h = s.o_q22h;
  const int16_t* __restrict q22l = s.o_q22l;
  const int16_t* __restrict q12h = s.o_q12h;
  const int16_t* __restrict q12l = s.o_q12l;
  int32_t* __restrict s1 = s.s1;
  int32_t* __restrict s2 = s.s2;
  int32_t* __restrict s12 = s.s12;
  #pragma GCC ivdep
  for (size_t j = begin; j < end; ++j) {
    uint32_t acc[8] = {0x80000000u, 0x80000000u, 0x80000000u, 0x80000000u,
                       0x80000000u, 0x80000000u, 0x80000000u, 0x80000000u};
    #pragma GCC unroll 17
    for (int k = 0; k <= 2 * R; ++k) {
      acc[0] += f[k] * uint32_t(int32_t(m1[j + k]));
      acc[1] += f[k] * uint32_t(int32_t(m2[j + k]));
      acc[2] += f[k] * uint32_t(int32_t(q11h[j + k]));
      acc[3] += f[k] * uint32_t(int32_t(q11l[j + k]));
      acc[4] += f[k] * uint32_t(int32_t(q22h[j + k]));
      acc[5] += f[k] * uint32_t(int32_t(q22l[j + k]));
      acc[6] += f[k] * uint32_t(int32_t(q12h[j + k]));
      acc[7] += f[k] * uint32_t(int32_t(q12l[j + k]));
    }
    variances(acc[0], acc[1], acc[2], acc[3], acc[4], acc[5], acc[6], acc[7], s1[j], s2[j],
              s12[j]);
  }
}

// Horizontal pass in AVX2 with vpmaddwd, two taps per multiply: a 32-bit lane of a load of 16
// int16 at a + j + k holds (a[j + k + 2m], a[j + k + 2m + 1]), so madd with the coefficient pair
// (f[k], f[k + 1]) adds both taps for output j + 2m; a load at a + j + 1 + k does the odd outputs.
// Filters of scales 0-2 have every tap below 2^15 (signed 16-bit coefficients). The outputs of a
// block of 16 come out even ones first, odd ones second: the variances only feed integer sums
// (2.5 step 3), so their order does not matter. A pair's partial sums may pass 2^31; the adds
// wrap mod 2^32, which the final value (below 2^32 as uint32) survives.
template <int R>
inline void filter16(const int16_t* a, size_t j, const __m256i (&coef)[R + 1], __m256i& even,
                     __m256i& odd) {
  even = _mm256_set1_epi32(int32_t(0x80000000u));
  odd = even;
  for (int p = 0; p <= R; ++p) {
    const __m256i e = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + j + 2 * p));
    const __m256i o = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + j + 1 + 2 * p));
    even = _mm256_add_epi32(even, _mm256_madd_epi16(e, coef[p]));
    odd = _mm256_add_epi32(odd, _mm256_madd_epi16(o, coef[p]));
  }
}

// (a * b + 2^31) >> 32 for eight uint32 lanes (64-bit products).
inline __m256i mul_round_hi(__m256i a, __m256i b) {
  const __m256i c = _mm256_set1_epi64x(0x80000000);
  const __m256i pe = _mm256_add_epi64(_mm256_mul_epu32(a, b), c);
  const __m256i po = _mm256_add_epi64(
      _mm256_mul_epu32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(b, 32)), c);
  return _mm256_blend_epi32(_mm256_srli_epi64(pe, 32), po, 0xAA);
}


// Horizontal pass of 2.5 and the variances sigma1, sigma2 (clamped at 0), sigma12 of one row.
template <int R>
__attribute__((noinline)) void horizontal_pass(uint32_t w, FastScratch& s) {
  size_t j = 0;
  if constexpr (R >= 2) {
    constexpr int kS = scale_of_radius(R);
    __m256i coef[R + 1];
    for (int p = 0; p <= R; ++p) {
      const uint32_t lo = kFilter[kS][2 * p];
      const uint32_t hi = 2 * p + 1 <= 2 * R ? kFilter[kS][2 * p + 1] : 0;
      coef[p] = _mm256_set1_epi32(int32_t(lo | (hi << 16)));
    }
    const __m256i half = _mm256_set1_epi32(32768);
    for (; j + 16 <= w; j += 16) {
      // One quantity at a time, finished as soon as possible (few live registers).
      __m256i mu1e, mu1o, mu2e, mu2o;
      filter16<R>(s.o_m1, j, coef, mu1e, mu1o);
      filter16<R>(s.o_m2, j, coef, mu2e, mu2o);
      const __m256i u11e = mul_round_hi(mu1e, mu1e), u11o = mul_round_hi(mu1o, mu1o);
      const __m256i u22e = mul_round_hi(mu2e, mu2e), u22o = mul_round_hi(mu2o, mu2o);
      const __m256i u12e = mul_round_hi(mu1e, mu2e), u12o = mul_round_hi(mu1o, mu2o);
      // sigma = V - U with V = H + ((L + 32768) >> 16), stored even outputs first.
      auto sigma = [&](const int16_t* hi, const int16_t* lo, __m256i ue, __m256i uo,
                       int32_t* dst, bool clamp) {
        __m256i he, ho, le, lo_;
        filter16<R>(hi, j, coef, he, ho);
        filter16<R>(lo, j, coef, le, lo_);
        __m256i te = _mm256_sub_epi32(
            _mm256_add_epi32(he, _mm256_srli_epi32(_mm256_add_epi32(le, half), 16)), ue);
        __m256i to = _mm256_sub_epi32(
            _mm256_add_epi32(ho, _mm256_srli_epi32(_mm256_add_epi32(lo_, half), 16)), uo);
        if (clamp) {
          te = _mm256_max_epi32(te, _mm256_setzero_si256());
          to = _mm256_max_epi32(to, _mm256_setzero_si256());
        }
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + j), te);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + j + 8), to);
      };
      sigma(s.o_q11h, s.o_q11l, u11e, u11o, s.s1, false);
      sigma(s.o_q22h, s.o_q22l, u22e, u22o, s.s2, true);
      sigma(s.o_q12h, s.o_q12l, u12e, u12o, s.s12, false);
    }
  }
  horizontal_columns<R>(j, w, s);
}

// The log branch for four pixels in AVX2 lanes (f64 and int64), the same IEEE operations in the
// same order as log_pixel; lanes that do not take a branch get harmless inputs and a zero mask.
//  - lg32 / lg64 of a value v held exactly in an f64 lane (2^17 <= v < 2^52): e = 16 - clz32(v) =
//    48 - clz64(v) = floor(log2 v) - 15 is the f64 exponent less 1023 + 15, and the integer is
//    bits(v + 2^52) - bits(2^52). The table entries L[v >> e] are read one by one (hardware
//    gathers were slower on the AMD machines measured) and added by the caller.
//  - int64_t(x) for the non-negative x = (g*g)*sigma1 < 2^45 is the f64 truncation, and
//    trunc + n1 < 2^53 is exact in f64.
inline __m256i lg4_exponent(__m256d v, __m256i& index) {
  const __m256d two52 = _mm256_set1_pd(4503599627370496.0);
  const __m256i e = _mm256_sub_epi64(_mm256_srli_epi64(_mm256_castpd_si256(v), 52),
                                     _mm256_set1_epi64x(1023 + 15));
  const __m256i iv = _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(v, two52)),
                                      _mm256_castpd_si256(two52));
  index = _mm256_srlv_epi64(iv, e);
  return _mm256_slli_epi64(e, 11);  // 2048 * e
}

inline void log_pixels4(const uint16_t* table, __m128i s1, __m128i s2, __m128i s12,
                        __m256d gain_limit, __m256i& num_acc, __m256i& den_acc,
                        int64_t& num_log, int64_t& den_log) {
  const __m128i zero = _mm_setzero_si128(), one = _mm_set1_epi32(1);
  const __m128i log_mask = _mm_cmpgt_epi32(s1, _mm_set1_epi32(kNoiseVariance - 1));
  const __m128i num_mask = _mm_and_si128(
      log_mask, _mm_and_si128(_mm_cmpgt_epi32(s12, zero), _mm_cmpgt_epi32(s2, zero)));
  s1 = _mm_blendv_epi8(_mm_set1_epi32(kNoiseVariance), s1, log_mask);
  s2 = _mm_blendv_epi8(one, s2, num_mask);
  s12 = _mm_blendv_epi8(one, s12, num_mask);
  const __m256d d1 = _mm256_cvtepi32_pd(s1), d2 = _mm256_cvtepi32_pd(s2);
  const __m256d d12 = _mm256_cvtepi32_pd(s12);
  const __m256i log64 = _mm256_cvtepi32_epi64(log_mask), num64 = _mm256_cvtepi32_epi64(num_mask);
  // den_log: lg32(NS + sigma1) - 2048 * 17; NS + sigma1 < 2^32 is exact in f64.
  __m256i ix, i1, i2;
  const __m256i den = _mm256_sub_epi64(
      lg4_exponent(_mm256_add_pd(d1, _mm256_set1_pd(double(kNoiseVariance))), ix),
      _mm256_set1_epi64x(2048 * 17));
  den_acc = _mm256_add_epi64(den_acc, _mm256_and_si256(log64, den));
  // num_log: the f64 steps of log_pixel, one IEEE operation each.
  const __m256d eps = _mm256_set1_pd(65536 * 1.0e-10);
  __m256d g = _mm256_div_pd(d12, _mm256_add_pd(d1, eps));
  __m128i sv = _mm256_cvttpd_epi32(_mm256_sub_pd(d2, _mm256_mul_pd(g, d12)));
  sv = _mm_max_epi32(sv, zero);
  g = _mm256_min_pd(g, gain_limit);  // g < limit ? g : limit
  const __m256d n1 = _mm256_cvtepi32_pd(_mm_add_epi32(sv, _mm_set1_epi32(kNoiseVariance)));
  const __m256d x = _mm256_mul_pd(_mm256_mul_pd(g, g), d1);
  const __m256d n2 = _mm256_add_pd(_mm256_round_pd(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC), n1);
  const __m256i num = _mm256_sub_epi64(lg4_exponent(n2, i2), lg4_exponent(n1, i1));
  num_acc = _mm256_add_epi64(num_acc, _mm256_and_si256(num64, num));
  // The table terms, masked like the rest (every index is in 32768..65535).
  alignas(32) int64_t lx[4], l1[4], l2[4], ml[4], mn[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lx), ix);
  _mm256_store_si256(reinterpret_cast<__m256i*>(l1), i1);
  _mm256_store_si256(reinterpret_cast<__m256i*>(l2), i2);
  _mm256_store_si256(reinterpret_cast<__m256i*>(ml), log64);
  _mm256_store_si256(reinterpret_cast<__m256i*>(mn), num64);
  for (int k = 0; k < 4; ++k) {
    den_log += int64_t(table[lx[k]]) & ml[k];
    num_log += (int64_t(table[l2[k]]) - int64_t(table[l1[k]])) & mn[k];
  }
}

inline int64_t lane_sum(__m256i v) {
  alignas(32) int64_t lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), v);
  return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
}

// 2.5 step 3 over one row of variances: the flat pixels (sigma1 < NS) in a vectorised pass, the
// others in AVX2 lanes (AVX2 build) or one by one.
__attribute__((noinline)) void accumulate_row(const uint16_t* table, uint32_t w,
                                              const FastScratch& s, double gain_limit,
                                              VifAccumulators& acc) {
  const int32_t* __restrict s1 = s.s1;
  const int32_t* __restrict s2 = s.s2;
  const int32_t* __restrict s12 = s.s12;
  int64_t num_flat = 0;
  int32_t den_flat = 0;
  #pragma GCC ivdep
  for (size_t j = 0; j < w; ++j) {
    const bool flat = s1[j] < kNoiseVariance;
    num_flat += flat ? s2[j] : 0;
    den_flat += flat ? 1 : 0;
  }
  acc.num_flat += num_flat;
  acc.den_flat += den_flat;
  if (uint32_t(den_flat) == w) return;
  int64_t num_log = 0, den_log = 0;
  size_t j = 0;
  const __m256d limit = _mm256_set1_pd(gain_limit);
  __m256i num_acc = _mm256_setzero_si256(), den_acc = _mm256_setzero_si256();
  const __m128i below = _mm_set1_epi32(kNoiseVariance);
  for (; j + 4 <= w; j += 4) {
    const __m128i v1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s1 + j));
    if (_mm_movemask_epi8(_mm_cmplt_epi32(v1, below)) == 0xffff) continue;  // all flat
    log_pixels4(table, v1, _mm_loadu_si128(reinterpret_cast<const __m128i*>(s2 + j)),
                _mm_loadu_si128(reinterpret_cast<const __m128i*>(s12 + j)), limit, num_acc,
                den_acc, num_log, den_log);
  }
  num_log += lane_sum(num_acc);
  den_log += lane_sum(den_acc);
  for (; j < w; ++j)
    if (s1[j] >= kNoiseVariance)
      log_pixel(table, s1[j], s2[j], s12[j], gain_limit, num_log, den_log);
  acc.num_log += num_log;
  acc.den_log += den_log;
}

template <int R, typename Sample>
VifAccumulators statistic_rows_r(const uint16_t* table, const Sample* ref, const Sample* dis,
                                 uint32_t w, uint32_t h, int scale, unsigned bpc,
                                 double gain_limit, uint32_t row_begin, uint32_t row_end,
                                 FastScratch& s) {
  VifAccumulators acc;
  const VerticalRounding rnd = vertical_rounding(scale, bpc);
  for (uint32_t i = row_begin; i < row_end; ++i) {
    vertical_pass<R>(ref, dis, w, h, i, rnd.sv, rnd.cv, rnd.sq, uint32_t(rnd.cq), s);
    horizontal_pass<R>(w, s);
    accumulate_row(table, w, s, gain_limit, acc);
  }
  return acc;
}

template <typename Sample>
VifAccumulators statistic_rows(const Sample* ref, const Sample* dis, uint32_t w, uint32_t h,
                               int scale, unsigned bpc, double gain_limit, uint32_t row_begin,
                               uint32_t row_end) {
  const uint16_t* table = log2_table();
  FastScratch& s = thread_scratch(w);
  switch (scale) {
    case 0:
      return statistic_rows_r<8>(table, ref, dis, w, h, scale, bpc, gain_limit, row_begin,
                                 row_end, s);
    case 1:
      return statistic_rows_r<4>(table, ref, dis, w, h, scale, bpc, gain_limit, row_begin,
                                 row_end, s);
    case 2:
      return statistic_rows_r<2>(table, ref, dis, w, h, scale, bpc, gain_limit, row_begin,
                                 row_end, s);
    default:
      return statistic_rows_r<1>(table, ref, dis, w, h, scale, bpc, gain_limit, row_begin,
                                 row_end, s);
  }
}

// 2.7 with the next scale's filter (radius R).
template <int R, typename Sample>
void downsample_rows_r(const Sample* in, uint32_t w, uint32_t h, int from_scale, unsigned bpc,
                       uint16_t* out, uint32_t row_begin, uint32_t row_end, FastScratch& s) {
  constexpr int kS = scale_of_radius(R);
  uint32_t f[2 * R + 1];
  for (int k = 0; k <= 2 * R; ++k) f[k] = kFilter[kS][k];
  const unsigned sh = from_scale == 0 ? bpc : 16;
  const uint32_t c = from_scale == 0 ? uint32_t{1} << (bpc - 1) : 32768u;
  const uint32_t out_w = w / 2;
  uint32_t* __restrict t = s.m1;
  for (uint32_t i = row_begin; i < row_end; ++i) {
    // Only even rows and columns survive the decimation (2.7 step 3), so only they are filtered.
    const Sample* p[2 * R + 1];
    window_rows<R>(in, w, h, int64_t(2 * i), p);
    #pragma GCC ivdep
    for (size_t j = 0; j < w; ++j) {
      uint32_t acc = f[R] * p[R][j];
      #pragma GCC unroll 8
      for (int k = 0; k < R; ++k) acc += f[k] * (uint32_t(p[k][j]) + p[2 * R - k][j]);
      t[R + j] = (acc + c) >> sh;
    }
    mirror_pad(t, w, R);
    uint16_t* __restrict o = out + size_t(i) * out_w;
    #pragma GCC ivdep
    for (size_t j = 0; j < out_w; ++j) {
      uint32_t sum = f[R] * t[2 * j + R];
      #pragma GCC unroll 8
      for (int k = 0; k < R; ++k) sum += f[k] * (t[2 * j + k] + t[2 * j + 2 * R - k]);
      o[j] = uint16_t((sum + 32768) >> 16);
    }
  }
}

template <typename Sample>
void downsample_rows(const Sample* in, uint32_t w, uint32_t h, int from_scale, unsigned bpc,
                     uint16_t* out, uint32_t row_begin, uint32_t row_end) {
  FastScratch& s = thread_scratch(w);
  switch (from_scale) {
    case 0:
      return downsample_rows_r<4>(in, w, h, from_scale, bpc, out, row_begin, row_end, s);
    case 1:
      return downsample_rows_r<2>(in, w, h, from_scale, bpc, out, row_begin, row_end, s);
    default:
      return downsample_rows_r<1>(in, w, h, from_scale, bpc, out, row_begin, row_end, s);
  }
}

}  // namespace
}  // namespace vqx::integer_vif

VQX_END_TARGET

namespace vqx::integer_vif {

// Baseline code: filling the table must not itself need AVX2.
void install_avx2_kernels(VifKernels& k) {
  k.u8 = {statistic_rows<uint8_t>, downsample_rows<uint8_t>};
  k.u16 = {statistic_rows<uint16_t>, downsample_rows<uint16_t>};
}

}  // namespace vqx::integer_vif
