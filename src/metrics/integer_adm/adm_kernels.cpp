// The plain twins of the integer ADM row kernels (shared/spec/vmaf.md 3.3-3.9): the
// straightforward transcription of the spec. Also the table builder: these entries first, then
// each level's overrides.
#include "metrics/integer_adm/adm_kernels.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "metrics/integer_adm/adm_stage_rules.h"

namespace vqx::integer_adm {
namespace {

// Division table of 3.5 computed on the fly: DIV[32768 + q] = sign(q) trunc(2^30 / |q|).
inline int32_t div_lookup(int32_t q) {
  if (q > 0) return int32_t((int64_t{1} << 30) / q);
  return -int32_t((int64_t{1} << 30) / -q);
}

#include "metrics/integer_adm/adm_shared_stages.inc"

// ---------------------------------------------------------------------------------------------
// 3.3 DWT, scale 0.
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
    for (uint32_t j = 0; j < width; ++j) {
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
    int16_t* a = out.a_row(int(i));
#pragma GCC ivdep
    for (uint32_t j = 0; j < w; ++j) {
      const int16_t* l = tl.data() + 2 * j;
      a[j] = int16_t((kLo[0] * l[0] + kLo[1] * l[1] + kLo[2] * l[2] + kLo[3] * l[3] + 32768) >> 16);
    }
    if (lowpass_only) continue;
    int16_t* v = out.detail_row(kV, int(i));
    int16_t* hb = out.detail_row(kH, int(i));
    int16_t* d = out.detail_row(kD, int(i));
#pragma GCC ivdep
    for (uint32_t j = 0; j < w; ++j) {
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

// The ratio k in Q15, clamped to [0, 32768].
inline int64_t ratio_scale0(int32_t o, int32_t t) {
  if (o == 0) return 32768;
  int64_t k = (int64_t(div_lookup(o)) * t + 16384) >> 15;
  return std::clamp<int64_t>(k, 0, 32768);
}

inline int64_t ratio_wide(int32_t o, int32_t t) {
  if (o == 0) return 32768;
  uint32_t abs_o = o < 0 ? uint32_t(0) - uint32_t(o) : uint32_t(o);
  uint32_t m = abs_o;
  int e = 0;
  if (abs_o >= 32768) {
    e = 17 - std::countl_zero(abs_o);
    m = (abs_o + (uint32_t{1} << (e - 1))) >> e;  // may equal 32768
  }
  int64_t sign = o < 0 ? -1 : 1;
  int64_t k = ((int64_t(div_lookup(int32_t(m))) * t) * sign + (int64_t{1} << (14 + e))) >> (15 + e);
  return std::clamp<int64_t>(k, 0, 32768);
}

template <typename Coef>
void decouple_rows(int scale, const AdmBands<Coef>& ref, const AdmBands<Coef>& dis,
                   double gain_limit, const AdmRect& ext, AdmDetail<Coef>& restored,
                   AdmDetail<Coef>& additive, int row_begin, int row_end) {
  for (int i = row_begin; i < row_end; ++i) {
    const Coef* o_row[3] = {ref.detail_row(kH, i), ref.detail_row(kV, i), ref.detail_row(kD, i)};
    const Coef* t_row[3] = {dis.detail_row(kH, i), dis.detail_row(kV, i), dis.detail_row(kD, i)};
    Coef* r_row[3] = {restored.row(kH, i), restored.row(kV, i), restored.row(kD, i)};
    Coef* a_row[3] = {additive.row(kH, i), additive.row(kV, i), additive.row(kD, i)};
#pragma GCC ivdep
    for (int j = ext.left; j < ext.right; ++j) {
      const int64_t oh = o_row[kH][j], ov = o_row[kV][j];
      const int64_t th = t_row[kH][j], tv = t_row[kV][j];
      // Angle test (1 degree): int64 -> f32 first, then f64 arithmetic.
      const int64_t dp = oh * th + ov * tv;
      const int64_t om = oh * oh + ov * ov;
      const int64_t tm = th * th + tv * tv;
      const double x = double(float(dp)) / 4096.0;
      const bool flag = x >= 0 && x * x >= (kCos1Sq * (double(float(om)) / 4096.0)) *
                                               (double(float(tm)) / 4096.0);
      for (int b = 0; b < 3; ++b) {
        const int32_t o = o_row[b][j], t = t_row[b][j];
        int64_t k = scale == 0 ? ratio_scale0(o, t) : ratio_wide(o, t);
        Coef rb = Coef((k * o + 16384) >> 15);
        if (flag && k > 0) {
          double q = double(rb) * gain_limit;
          if (o > 0) rb = Coef(int64_t(std::min(q, double(t))));  // trunc, then store
          else if (o < 0) rb = Coef(int64_t(std::max(q, double(t))));
        }
        r_row[b][j] = rb;
        a_row[b][j] = Coef(t - rb);
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
  std::array<int64_t, 3> acc{};
  for (int i = row_begin; i < row_end; ++i) {
    const int im = i == 0 ? 1 : i - 1;      // -1 -> 1
    const int ip = i + 1 == h ? h - 1 : i + 1;  // h -> h-1
    const bool d1_row = i >= d1_top && i < d1_bottom;
    int64_t inner[3] = {0, 0, 0};
    #pragma GCC ivdep
    for (int j = in.left; j < in.right; ++j) {
      const int jm = j == 0 ? 1 : j - 1;
      const int jp = j + 1 == w ? w - 1 : j + 1;
      int32_t thr = 0;
      for (int b = 0; b < 3; ++b) {
        const Coef* r0 = m.row(b, im);
        const Coef* r1 = m.row(b, i);
        const Coef* r2 = m.row(b, ip);
        int32_t sum = int32_t(r0[jm]) + r0[j] + r0[jp] + r1[jm] + r1[jp] + r2[jm] + r2[j] + r2[jp];
        int32_t cv = c.row(b, i)[j];
        int32_t ctr;
        if (scale == 0) {
          int32_t full = (8738 * std::abs(cv) + 2048) >> 12;
          ctr = (d1_row && j >= d1_left && j < d1_right) ? full : int16_t(full);
        } else {
          ctr = int32_t((286331153 * std::abs(int64_t(cv)) - (int64_t{1} << 31)) >> 32);
        }
        thr += sum + ctr;
      }
      for (int b = 0; b < 3; ++b) {
        const int32_t xv = x.row(b, i)[j];
        int64_t val;
        if (scale == 0) {
          const int u = b == kD ? 12 : 10;
          int32_t t = int32_t(xv * int32_t(fixed[b]));
          t = int32_t(uint32_t(std::abs(t)) - (uint32_t(thr) << u));  // int32, wrapping
          t = std::max(t, 0);
          const int sh = b == kD ? 30 : 29;
          int32_t xs = int32_t((int64_t(t) * t + (int64_t{1} << (sh - 1))) >> sh);
          val = (int64_t(xs) * t + zround[b]) >> z[b];
        } else {
          int32_t t = int32_t((int64_t(xv) * fixed[b] + (int64_t{1} << 27)) >> 28);
          t = int32_t(uint32_t(std::abs(t)) - uint32_t(thr));
          t = std::max(t, 0);
          int32_t xs = int32_t((int64_t(t) * t + (int64_t{1} << 29)) >> 30);
          val = (int64_t(xs) * t + zround[b]) >> z[b];
        }
        inner[b] += val;
      }
    }
    for (int b = 0; b < 3; ++b) acc[b] += (inner[b] + (int64_t{1} << (y - 1))) >> y;
  }
  return acc;
}

}  // namespace

AdmKernels plain_adm_kernels() {
  AdmKernels k;
  k.dwt0_rows_8 = dwt0_rows<uint8_t>;
  k.dwt0_rows_16 = dwt0_rows<uint16_t>;
  k.dwt_rows_from_scale0 = dwt_rows<int16_t>;
  k.dwt_rows = dwt_rows<int32_t>;
  k.scale0 = {decouple_rows<int16_t>, csf_rows<int16_t>, cm_rows<int16_t>, den_rows<int16_t>};
  k.scales123 = {decouple_rows<int32_t>, csf_rows<int32_t>, cm_rows<int32_t>, den_rows<int32_t>};
  return k;
}

AdmKernels make_adm_kernels(const CpuFeatures& cpu) {
  AdmKernels k = plain_adm_kernels();
  if (cpu.avx2) install_avx2_kernels(k);
  if (cpu.avx512) install_avx512_kernels(k);
  return k;
}

const AdmKernels& adm_kernels() {
  static const AdmKernels kernels = make_adm_kernels(host_cpu_features());
  return kernels;
}

}  // namespace vqx::integer_adm
