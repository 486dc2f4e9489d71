// The AVX2 level of the integer ADM row kernels (shared/spec/vmaf.md 3.3-3.9): C++ for the
// auto-vectoriser compiled for AVX2, plus vpmaddwd for the horizontal pass of the scale-0 DWT.
// They compute the same integers as the plain twins (adm_kernels.cpp):
//  - column indices are size_t or ptrdiff_t (uint32 ones keep GCC from vectorising j + k, 2j);
//  - the scale-0 decoupling is branch-free with a few f64 steps where they are exact
//    (decouple_band); scales 1-3 stay scalar but divide in f64 (div_q30);
//  - the masking sums its 3x3 windows from per-column sums (integer regrouping, exact mod 2^32
//    like the int32 sums of the spec);
//  - 3.4, 3.7 and 3.9 are the plain twins' source (adm_shared_stages.inc), built for AVX2.
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

// ---------------------------------------------------------------------------------------------
// 3.3 DWT, scale 0.
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

template <typename Sample>
void dwt0_rows(const Sample* luma, uint32_t width, uint32_t height, unsigned bpc,
               bool lowpass_only, AdmBands<int16_t>& out, uint32_t row_begin, uint32_t row_end) {
  const uint32_t w = out.w;
  const uint32_t rb = uint32_t{1} << (bpc - 1);
  const uint32_t offset = 46342u * rb;  // recentres around 0
  thread_local std::vector<int16_t> tl, th;
  tl.resize(width + 3);
  th.resize(width + 3);
  for (uint32_t i = row_begin; i < row_end; ++i) {
    const Sample* p[4];
    for (int k = 0; k < 4; ++k)
      p[k] = luma + size_t(dwt_index(int64_t(2 * i) - 1 + k, height)) * width;
    int16_t* __restrict tlp = tl.data() + 1;
    int16_t* __restrict thp = th.data() + 1;
    #pragma GCC ivdep
    for (size_t j = 0; j < width; ++j) {
      // int32 sums; uint32 arithmetic so that 16-bit input wraps like upstream without UB.
      uint32_t s0 = p[0][j], s1 = p[1][j], s2 = p[2][j], s3 = p[3][j];
      int32_t vl = int32_t(uint32_t(kLo[0]) * s0 + uint32_t(kLo[1]) * s1 + uint32_t(kLo[2]) * s2 +
                           uint32_t(kLo[3]) * s3 - offset);
      int32_t vh = int32_t(uint32_t(kHi[0]) * s0 + uint32_t(kHi[1]) * s1 + uint32_t(kHi[2]) * s2 +
                           uint32_t(kHi[3]) * s3);
      tlp[j] = int16_t((vl + int32_t(rb)) >> bpc);
      thp[j] = int16_t((vh + int32_t(rb)) >> bpc);
    }
    dwt_pad(tl.data(), width);
    dwt_pad(th.data(), width);
    int16_t* a = out.a.data() + size_t(i) * w;
    int16_t* v = lowpass_only ? nullptr : out.detail[kV].data() + size_t(i) * w;
    int16_t* hb = lowpass_only ? nullptr : out.detail[kH].data() + size_t(i) * w;
    int16_t* d = lowpass_only ? nullptr : out.detail[kD].data() + size_t(i) * w;
    size_t j0 = 0;
    {
      // Blocks of 8 outputs read tl / th up to index 2j + 17 <= 2w + 1 <= width + 2: in range.
      const __m256i lo01 = tap_pair(kLo[0], kLo[1]), lo23 = tap_pair(kLo[2], kLo[3]);
      const __m256i hi01 = tap_pair(kHi[0], kHi[1]), hi23 = tap_pair(kHi[2], kHi[3]);
      for (; j0 + 8 <= w; j0 += 8) {
        const int16_t* l = tl.data() + 2 * j0;
        const int16_t* hh = th.data() + 2 * j0;
        _mm_storeu_si128(reinterpret_cast<__m128i*>(a + j0), dwt0_taps8(l, lo01, lo23));
        if (lowpass_only) continue;
        _mm_storeu_si128(reinterpret_cast<__m128i*>(v + j0), dwt0_taps8(l, hi01, hi23));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(hb + j0), dwt0_taps8(hh, lo01, lo23));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(d + j0), dwt0_taps8(hh, hi01, hi23));
      }
    }
    #pragma GCC ivdep
    for (size_t j = j0; j < w; ++j) {
      const int16_t* l = tl.data() + 2 * j;
      a[j] = int16_t((kLo[0] * l[0] + kLo[1] * l[1] + kLo[2] * l[2] + kLo[3] * l[3] + 32768) >> 16);
    }
    if (lowpass_only) continue;
    #pragma GCC ivdep
    for (size_t j = j0; j < w; ++j) {
      const int16_t* l = tl.data() + 2 * j;
      const int16_t* hh = th.data() + 2 * j;
      v[j] = int16_t((kHi[0] * l[0] + kHi[1] * l[1] + kHi[2] * l[2] + kHi[3] * l[3] + 32768) >> 16);
      hb[j] = int16_t(
          (kLo[0] * hh[0] + kLo[1] * hh[1] + kLo[2] * hh[2] + kLo[3] * hh[3] + 32768) >> 16);
      d[j] = int16_t(
          (kHi[0] * hh[0] + kHi[1] * hh[1] + kHi[2] * hh[2] + kHi[3] * hh[3] + 32768) >> 16);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// 3.5 decoupling.

// trunc(2^30 / m) for 1 <= m <= 32768 (the division table of 3.5) as the truncating conversion
// of the f64 quotient: that quotient cannot round across an integer, since the distance of
// 2^30 / m to the next integer is at least 1/m >= 2^-15, far above half an ulp of a value below
// 2^31. A 64-bit integer division costs several times more.
inline int64_t div_q30(uint32_t m) { return int64_t(int32_t(1073741824.0 / double(m))); }

// 3.5's ratio at scales 1-3, k in Q15 clamped to [0, 32768] (ratio_wide of the plain twin).
inline int64_t ratio_wide(int32_t o, int32_t t) {
  if (o == 0) return 32768;
  const uint32_t abs_o = o < 0 ? uint32_t(0) - uint32_t(o) : uint32_t(o);
  uint32_t m = abs_o;
  int e = 0;
  if (abs_o >= 32768) {
    e = 17 - std::countl_zero(abs_o);
    m = (abs_o + (uint32_t{1} << (e - 1))) >> e;  // may equal 32768
  }
  const int64_t sign = o < 0 ? -1 : 1;
  const int64_t k = ((div_q30(m) * t) * sign + (int64_t{1} << (14 + e))) >> (15 + e);
  return std::clamp<int64_t>(k, 0, 32768);
}

// One row of 3.5 at scales 1-3 (int32 bands, values up to 2^31): scalar, as the plain twin but
// with the division from div_q30. The angle test needs int64 -> f32 conversions, which AVX2 lacks.
template <typename Coef>
void decouple_row_wide(const AdmBands<Coef>& ref, const AdmBands<Coef>& dis, double gain_limit,
                       size_t row_at, int left, int right, AdmDetail<Coef>& restored,
                       AdmDetail<Coef>& additive) {
  for (int j = left; j < right; ++j) {
    const size_t at = row_at + j;
    const int64_t oh = ref.detail[kH][at], ov = ref.detail[kV][at];
    const int64_t th = dis.detail[kH][at], tv = dis.detail[kV][at];
    const int64_t dp = oh * th + ov * tv;
    const int64_t om = oh * oh + ov * ov;
    const int64_t tm = th * th + tv * tv;
    const double x = double(float(dp)) / 4096.0;
    const bool flag =
        x >= 0 && x * x >= (kCos1Sq * (double(float(om)) / 4096.0)) * (double(float(tm)) / 4096.0);
    for (int b = 0; b < 3; ++b) {
      const int32_t o = ref.detail[b][at], t = dis.detail[b][at];
      const int64_t k = ratio_wide(o, t);
      Coef rb = Coef((k * o + 16384) >> 15);
      if (flag && k > 0) {
        const double q = double(rb) * gain_limit;
        if (o > 0) rb = Coef(int64_t(std::min(q, double(t))));
        else if (o < 0) rb = Coef(int64_t(std::max(q, double(t))));
      }
      restored.band[b][at] = rb;
      additive.band[b][at] = Coef(t - rb);
    }
  }
}

// One band of one pixel of 3.5 at scale 0 (int16 bands: |o|, |t| <= 32768):
//  - DIV[o] = trunc(2^30 / o) from the f64 quotient, as in div_q30 (exact; sign symmetric);
//  - DIV[o] * t + 16384 is below 2^46 in magnitude (int64); k * o + 16384 fits int32.
// Written without branches or conditional conversions (bit masks instead of ?: where GCC would
// otherwise thread the o == 0 case into a branch), so that the loop vectorises under the default
// -ftrapping-math.
template <typename Coef>
inline void decouple_band(Coef oc, Coef tc, bool flag, double gain_limit, Coef& restored,
                          Coef& additive) {
  const int32_t oi = oc, ti = tc;
  const bool o_zero = oi == 0;
  // o == 0 divides by 1 instead; its k is forced to 32768 below.
  const int32_t div = int32_t(1073741824.0 / double(oi | int32_t(o_zero)));
  int64_t k = (int64_t(div) * ti + 16384) >> 15;
  k = k < 0 ? 0 : k;
  k = k > 32768 ? 32768 : k;
  const int32_t ki = (int32_t(k) & -int32_t(!o_zero)) | (int32_t(o_zero) << 15);
  Coef rb = Coef((ki * oi + 16384) >> 15);
  // trunc(min(q, t)) = min(trunc(q), t) as t is an integer and trunc is monotone; |q| < 2^22.
  const int32_t qi = int32_t(double(rb) * gain_limit);
  const int32_t lo = qi < ti ? qi : ti;
  const int32_t hi = qi < ti ? ti : qi;
  const Coef capped = oi > 0 ? Coef(lo) : Coef(hi);
  const bool apply = flag & (ki > 0) & !o_zero;
  rb = apply ? capped : rb;
  restored = rb;
  additive = Coef(ti - rb);
}

template <typename Coef>
void decouple_rows(int /*scale*/, const AdmBands<Coef>& ref, const AdmBands<Coef>& dis,
                   double gain_limit, const AdmRect& ext, AdmDetail<Coef>& restored,
                   AdmDetail<Coef>& additive, int row_begin, int row_end) {
  const size_t w = ref.w;
  for (int i = row_begin; i < row_end; ++i) {
    const size_t row_at = size_t(i) * w;
    if constexpr (sizeof(Coef) > 2) {
      decouple_row_wide(ref, dis, gain_limit, row_at, ext.left, ext.right, restored, additive);
    } else {
      const Coef* __restrict oh = ref.detail[kH].data() + row_at;
      const Coef* __restrict ov = ref.detail[kV].data() + row_at;
      const Coef* __restrict od = ref.detail[kD].data() + row_at;
      const Coef* __restrict th = dis.detail[kH].data() + row_at;
      const Coef* __restrict tv = dis.detail[kV].data() + row_at;
      const Coef* __restrict td = dis.detail[kD].data() + row_at;
      Coef* __restrict rh = restored.band[kH].data() + row_at;
      Coef* __restrict rv = restored.band[kV].data() + row_at;
      Coef* __restrict rd = restored.band[kD].data() + row_at;
      Coef* __restrict ah = additive.band[kH].data() + row_at;
      Coef* __restrict av = additive.band[kV].data() + row_at;
      Coef* __restrict ad = additive.band[kD].data() + row_at;
      const ptrdiff_t left = ext.left, right = ext.right;
      #pragma GCC ivdep
      for (ptrdiff_t j = left; j < right; ++j) {
        // Angle test: int16 products fit int32 (at most 2^30; GCC does not vectorise int16 ->
        // f64), the int64 sums of the spec are exact in f64 (below 2^32), and f32(f64(v)) ==
        // f32(v) for an exact v (one rounding either way).
        const int32_t h0 = oh[j], v0 = ov[j], h1 = th[j], v1 = tv[j];
        const double dp = double(h0 * h1) + double(v0 * v1);
        const double om = double(h0 * h0) + double(v0 * v0);
        const double tm = double(h1 * h1) + double(v1 * v1);
        const double x = double(float(dp)) / 4096.0;
        const double lhs = x * x;
        const double rhs =
            (kCos1Sq * (double(float(om)) / 4096.0)) * (double(float(tm)) / 4096.0);
        // x >= 0 && lhs >= rhs, compared without ordered f64 comparisons (which GCC will not
        // if-convert under -ftrapping-math): x >= 0 is a clear sign bit or x == -0.0, and for the
        // non-negative lhs, rhs (never -0.0: squares and products of them) the order of the values
        // is the order of their bit patterns.
        const bool flag = ((std::bit_cast<int64_t>(x) >= 0) | (x == 0.0)) &
                          (std::bit_cast<int64_t>(lhs) >= std::bit_cast<int64_t>(rhs));
        decouple_band(oh[j], th[j], flag, gain_limit, rh[j], ah[j]);
        decouple_band(ov[j], tv[j], flag, gain_limit, rv[j], av[j]);
        decouple_band(od[j], td[j], flag, gain_limit, rd[j], ad[j]);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// 3.8 contrast masking.
template <typename Coef>
std::array<int64_t, 3> cm_rows(int scale, const AdmDetail<Coef>& x, const AdmDetail<Coef>& c,
                               const AdmDetail<Coef>& m, const AdmScaleWeights& weights,
                               const AdmRects& rects, SimdCompat compat, int row_begin,
                               int row_end) {
  const int w = int(x.w), h = int(x.h);
  const AdmRect& in = rects.inner;
  const int y = ceil_log2(h);
  int z[3];
  if (scale == 0) {
    z[kH] = z[kV] = int(std::ceil(std::log2(double(w)) - 4));
    z[kD] = int(std::ceil(std::log2(double(w)) - 3));
  } else {
    z[kH] = z[kV] = z[kD] = ceil_log2(w);
  }
  // The rounding constant is (uint32)pow(2, z - 1) upstream; z >= 1 for accepted sizes (10.1).
  int64_t zround[3];
  for (int b = 0; b < 3; ++b) zround[b] = int64_t(uint32_t(std::pow(2, z[b] - 1)));
  const uint32_t fixed[3] = {weights.fixed_hv, weights.fixed_hv, weights.fixed_d};
  // D1: the AVX2 / AVX-512 scale-0 kernels keep the masking centre term in 32 bits inside a
  // block of columns (vmaf.md 9); elsewhere it is truncated to int16 as in the portable code.
  int d1_top = 0, d1_bottom = 0, d1_left = 0, d1_right = 0;
  if (scale == 0 && compat != SimdCompat::kNone && in.left > 0 && in.right <= w - 1) {
    const int lanes = compat == SimdCompat::kAvx2 ? 6 : 14;
    d1_top = std::max(in.top, 1);
    d1_bottom = std::min(in.bottom, h - 1);
    d1_left = std::max(in.left, 1);
    const int e = std::min(in.right, w - 1);
    d1_right = e - ((e - d1_left) % lanes);
  }
  // Per row: cols[1 + j] = sum over the bands of the three rows' m at column j (uint32: the int32
  // sums of the spec, regrouped, are equal mod 2^32), with the border rule of the window applied
  // to the padding (-1 -> 1, w -> w - 1); thr[j] = the 3.8 threshold of column j.
  thread_local std::vector<uint32_t> cols_buf, thr_buf;
  thread_local std::vector<int32_t> d1_cols;  // -1 in the D1 columns, else 0
  cols_buf.resize(size_t(w) + 2);
  thr_buf.resize(size_t(w));
  d1_cols.assign(size_t(w), 0);
  for (int j = d1_left; j < d1_right; ++j) d1_cols[j] = -1;
  // A per-column mask rather than a test of j: GCC splits a loop on a test of its index and
  // then vectorises only one of the pieces.
  const int32_t* __restrict d1_col = d1_cols.data();
  uint32_t* __restrict cols = cols_buf.data() + 1;
  uint32_t* __restrict thr = thr_buf.data();
  const ptrdiff_t lo = std::max(in.left - 1, 0), hi = std::min(in.right + 1, w);
  const ptrdiff_t left = in.left, right = in.right;  // locals: the row stores could alias in
  std::array<int64_t, 3> acc{};
  for (int i = row_begin; i < row_end; ++i) {
    const int im = i == 0 ? 1 : i - 1;          // -1 -> 1
    const int ip = i + 1 == h ? h - 1 : i + 1;  // h -> h-1
    const bool d1_row = i >= d1_top && i < d1_bottom;
    const Coef* mr[3][3];
    for (int b = 0; b < 3; ++b) {
      mr[b][0] = m.band[b].data() + size_t(im) * w;
      mr[b][1] = m.band[b].data() + size_t(i) * w;
      mr[b][2] = m.band[b].data() + size_t(ip) * w;
    }
    #pragma GCC ivdep
    for (ptrdiff_t j = lo; j < hi; ++j) {
      uint32_t s = 0;
      for (int b = 0; b < 3; ++b)
        s += uint32_t(int32_t(mr[b][0][j])) + uint32_t(int32_t(mr[b][1][j])) +
             uint32_t(int32_t(mr[b][2][j]));
      cols[j] = s;
    }
    if (in.left == 0) cols[-1] = cols[1];
    if (in.right == w) cols[w] = cols[w - 1];
    const Coef* cr[3];
    for (int b = 0; b < 3; ++b) cr[b] = c.band[b].data() + size_t(i) * w;
    #pragma GCC ivdep
    for (ptrdiff_t j = left; j < right; ++j) {
      // The eight neighbours of every band: the 3x3 column sums less the centres.
      uint32_t t = cols[j - 1] + cols[j] + cols[j + 1] - uint32_t(int32_t(mr[kH][1][j])) -
                   uint32_t(int32_t(mr[kV][1][j])) - uint32_t(int32_t(mr[kD][1][j]));
      for (int b = 0; b < 3; ++b) {
        const int32_t cv = cr[b][j];
        int32_t ctr;
        if (scale == 0) {
          const int32_t full = (8738 * (cv < 0 ? -cv : cv) + 2048) >> 12;
          const int32_t keep = d1_col[j] & -int32_t(d1_row);
          ctr = (full & keep) | (int32_t(int16_t(full)) & ~keep);
        } else {
          const int64_t a = cv < 0 ? -int64_t(cv) : int64_t(cv);
          ctr = int32_t((286331153 * a - (int64_t{1} << 31)) >> 32);
        }
        t += uint32_t(ctr);
      }
      thr[j] = t;
    }
    int64_t inner[3] = {0, 0, 0};
    for (int b = 0; b < 3; ++b) {
      const Coef* __restrict xr = x.band[b].data() + size_t(i) * w;
      const int64_t zr = zround[b];
      const int zb = z[b];
      int64_t sum = 0;
      if (scale == 0) {
        const unsigned u = b == kD ? 12 : 10;
        const unsigned sh = b == kD ? 30 : 29;
        const uint64_t round = uint64_t{1} << (sh - 1);
        const uint32_t fb = fixed[b];
        #pragma GCC ivdep
        for (ptrdiff_t j = left; j < right; ++j) {
          // int32 arithmetic that wraps like upstream (uint32 avoids UB).
          const int32_t p = int32_t(uint32_t(int32_t(xr[j])) * fb);
          const uint32_t ap = p < 0 ? 0u - uint32_t(p) : uint32_t(p);
          int32_t t = int32_t(ap - (thr[j] << u));
          t = t > 0 ? t : 0;
          const int32_t xs = int32_t((uint64_t(uint32_t(t)) * uint32_t(t) + round) >> sh);
          sum += (int64_t(xs) * t + zr) >> zb;
        }
      } else {
        const int64_t fb = fixed[b];
        #pragma GCC ivdep
        for (ptrdiff_t j = left; j < right; ++j) {
          const int32_t p = int32_t((int64_t(xr[j]) * fb + (int64_t{1} << 27)) >> 28);
          const uint32_t ap = p < 0 ? 0u - uint32_t(p) : uint32_t(p);
          int32_t t = int32_t(ap - thr[j]);
          t = t > 0 ? t : 0;
          const int32_t xs =
              int32_t((uint64_t(uint32_t(t)) * uint32_t(t) + (uint64_t{1} << 29)) >> 30);
          sum += (int64_t(xs) * t + zr) >> zb;
        }
      }
      inner[b] = sum;
    }
    for (int b = 0; b < 3; ++b) acc[b] += (inner[b] + (int64_t{1} << (y - 1))) >> y;
  }
  return acc;
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
