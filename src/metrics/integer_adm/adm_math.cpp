// Integer ADM stages (shared/spec/vmaf.md section 3). The integer steps follow the spec's widths
// and rounding constants exactly, including the ones that look like typos (10.2).
#include "metrics/integer_adm/adm_math.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <span>

#include "engine/error.h"

namespace vqx::integer_adm {

template <typename Coef>
void AdmBands<Coef>::resize(uint32_t width, uint32_t height, bool with_detail) {
  w = width, h = height;
  a.resize(size_t(w) * h);
  for (auto& b : detail) b.resize(with_detail ? size_t(w) * h : 0);
}

template <typename Coef>
void AdmDetail<Coef>::resize(uint32_t width, uint32_t height) {
  w = width, h = height;
  for (auto& b : band) b.resize(size_t(w) * h);
}

template struct AdmBands<int16_t>;
template struct AdmBands<int32_t>;
template struct AdmDetail<int16_t>;
template struct AdmDetail<int32_t>;

namespace {

constexpr int32_t kLo[4] = {15826, 27411, 7345, -4240};
constexpr int32_t kHi[4] = {-4240, -7345, 27411, -15826};

// 3.3 index rule: whole-sample reflection at the start, half-sample reflection at the end.
inline uint32_t dwt_index(int64_t k, uint32_t n) {
  if (k < 0) return uint32_t(-k);
  if (k >= int64_t(n)) return uint32_t(2 * int64_t(n) - 1 - k);
  return uint32_t(k);
}

// Pads `row` (n values at [1, n+1)) for the 3.3 index rule: position -1 and n, n+1.
template <typename T>
void dwt_pad(T* row, uint32_t n) {
  row[0] = row[1 + 1];          // -1 -> 1
  row[n + 1] = row[1 + n - 1];  // n -> n-1
  row[n + 2] = row[1 + n - 2];  // n+1 -> n-2
}

// ceil(log2(v)) in f64 as upstream.
inline int ceil_log2(double v) { return int(std::ceil(std::log2(v))); }

// Division table of 3.5 computed on the fly: DIV[32768 + q] = sign(q) trunc(2^30 / |q|).
inline int32_t div_lookup(int32_t q) {
  if (q > 0) return int32_t((int64_t{1} << 30) / q);
  return -int32_t((int64_t{1} << 30) / -q);
}

// C1 = RN32(cos(pi/180)^2) from f64 (f32 bits 0x3f7fec0a).
const double kCos1Sq = double(float(std::cos(M_PI / 180.0) * std::cos(M_PI / 180.0)));

}  // namespace

AdmRects adm_rects(uint32_t band_w, uint32_t band_h) {
  AdmRects r;
  const double w = band_w, h = band_h;
  r.inner.left = int(w * 0.1 - 0.5);
  r.inner.top = int(h * 0.1 - 0.5);
  r.inner.right = int(band_w) - r.inner.left;
  r.inner.bottom = int(band_h) - r.inner.top;
  int le = int(w * 0.1 - 0.5 - 1), te = int(h * 0.1 - 0.5 - 1);
  r.extended.right = std::min(int(band_w) - le + 2, int(band_w));
  r.extended.bottom = std::min(int(band_h) - te + 2, int(band_h));
  r.extended.left = std::max(le, 0);
  r.extended.top = std::max(te, 0);
  r.count = int64_t(r.inner.bottom - r.inner.top) * (r.inner.right - r.inner.left);
  return r;
}

// ---------------------------------------------------------------------------------------------
// 3.6 CSF weights.
namespace {

struct BlendTable {
  int rdh;
  double nvd;
  float hv[4], d[4];
};

// Mode 2 (Barten-Watson blend) and mode 3 ("MAE") tables, by exact (rdh, nvd).
constexpr BlendTable kMode2[] = {
    {1080, 3.0, {0.01183f, 0.025026f, 0.04295f, 0.058621f}, {0.004302f, 0.011778f, 0.023918f, 0.035901f}},
    {2160, 1.5, {0.01183f, 0.025026f, 0.04295f, 0.058621f}, {0.004302f, 0.011778f, 0.023918f, 0.035901f}},
    {1080, 5.0, {0.004212f, 0.014809f, 0.029642f, 0.047464f}, {0.000984f, 0.005852f, 0.0146f, 0.027574f}},
    {2160, 3.0, {0.00226f, 0.01183f, 0.025026f, 0.04295f}, {0.000479f, 0.004302f, 0.011778f, 0.023918f}},
    {2160, 5.0, {0.000092f, 0.004212f, 0.014809f, 0.029642f}, {0.000050f, 0.000984f, 0.005852f, 0.0146f}},
    {720, 3.0, {0.018715f, 0.035637f, 0.052798f, 0.061509f}, {0.007999f, 0.018396f, 0.031851f, 0.037718f}},
    {720, 5.0, {0.010144f, 0.022561f, 0.040309f, 0.05672f}, {0.003463f, 0.010282f, 0.021839f, 0.034641f}},
    {480, 3.0, {0.027961f, 0.045875f, 0.060275f, 0.056234f}, {0.013572f, 0.026277f, 0.036959f, 0.034511f}},
    {480, 5.0, {0.016781f, 0.032822f, 0.05032f, 0.061594f}, {0.00691f, 0.016545f, 0.029917f, 0.037777f}},
};
constexpr BlendTable kMode3[] = {
    {1080, 3.0, {0.011249f, 0.022606f, 0.035930f, 0.045673f}, {0.004097f, 0.010921f, 0.021430f, 0.031313f}},
    {2160, 1.5, {0.011249f, 0.022606f, 0.035930f, 0.045673f}, {0.004097f, 0.010921f, 0.021430f, 0.031313f}},
    {1080, 5.0, {0.004052f, 0.013939f, 0.026298f, 0.038833f}, {0.000927f, 0.005544f, 0.013415f, 0.024515f}},
    {2160, 3.0, {0.002166f, 0.011249f, 0.022606f, 0.035930f}, {0.000447f, 0.004097f, 0.010921f, 0.021430f}},
    {2160, 5.0, {0.000077f, 0.004052f, 0.013939f, 0.026298f}, {0.000045f, 0.000927f, 0.005544f, 0.013415f}},
    {720, 3.0, {0.017329f, 0.030870f, 0.042134f, 0.047410f}, {0.007509f, 0.016707f, 0.028072f, 0.032722f}},
    {720, 5.0, {0.009689f, 0.020577f, 0.034162f, 0.044523f}, {0.003302f, 0.009579f, 0.019661f, 0.030318f}},
    {480, 3.0, {0.024969f, 0.037825f, 0.046676f, 0.043974f}, {0.012511f, 0.023424f, 0.032139f, 0.030166f}},
    {480, 5.0, {0.015665f, 0.028766f, 0.040612f, 0.047483f}, {0.006514f, 0.015107f, 0.026476f, 0.032776f}},
};

// Watson97 (mode 0), Y channel: 1 / Q with Q = 2a 10^(k t^2) / A[s][theta].
float watson_weight(int scale, int theta, double nvd, int rdh) {
  constexpr float a = 0.495f, k = 0.466f, f0 = 0.401f;
  constexpr float g[4] = {1.501f, 1.0f, 0.534f, 1.0f};
  constexpr float amp[4][4] = {{0.62171f, 0.67234f, 0.72709f, 0.67234f},
                               {0.34537f, 0.41317f, 0.49428f, 0.41317f},
                               {0.18004f, 0.22727f, 0.28688f, 0.22727f},
                               {0.091401f, 0.11792f, 0.15214f, 0.11792f}};
  float r = float(nvd * rdh * M_PI / 180.0);
  float t = float(std::log10(std::pow(2.0, scale + 1) * f0 * g[theta] / r));
  float q = float(2.0 * a * std::pow(10.0, k * t * t) / amp[scale][theta]);
  return 1.0f / q;
}

}  // namespace

AdmWeights adm_weights(int csf_mode, double nvd, int rdh) {
  AdmWeights weights;
  std::array<float, kScales> hv{}, d{};
  if (csf_mode == 0) {
    for (int s = 0; s < kScales; ++s) {
      hv[s] = watson_weight(s, 1, nvd, rdh);
      d[s] = watson_weight(s, 2, nvd, rdh);
    }
  } else if (csf_mode == 2 || csf_mode == 3) {
    const BlendTable* found = nullptr;
    for (const BlendTable& t : csf_mode == 2 ? std::span<const BlendTable>(kMode2)
                                             : std::span<const BlendTable>(kMode3))
      if (t.rdh == rdh && t.nvd == nvd) found = &t;
    if (!found)
      throw UsageError(fmt::format(
          "adm: adm_csf_mode={} has weights only for adm_ref_display_height 480, 720, 1080 or "
          "2160 with adm_norm_view_dist 3 or 5 (and 2160 at 1.5), not {} at {}",
          csf_mode, rdh, nvd));
    for (int s = 0; s < kScales; ++s) hv[s] = found->hv[s], d[s] = found->d[s];
  } else {
    throw UsageError(fmt::format(
        "adm: adm_csf_mode={} is not supported (0 Watson, 2 and 3 blend tables; the Barten "
        "mode 1 is not specified for vqx)",
        csf_mode));
  }
  // Upstream hard-codes the scale-0 weights of the default viewing condition in mode 0; they are
  // not what the formula gives (36451, 49414).
  const bool hard_coded = csf_mode == 0 && std::fabs(nvd * rdh - 3240.0) < 1e-8;
  for (int s = 0; s < kScales; ++s) {
    AdmScaleWeights& w = weights[s];
    w.f_hv = hv[s], w.f_d = d[s];
    if (s == 0) {
      w.fixed_hv = hard_coded ? 36453 : uint16_t(double(hv[s]) * (1 << 21));
      w.fixed_d = hard_coded ? 49417 : uint16_t(double(d[s]) * (1 << 23));
    } else {
      w.fixed_hv = uint32_t(double(hv[s]) * 4294967296.0);
      w.fixed_d = uint32_t(double(d[s]) * 4294967296.0);
    }
    w.cube_hv = std::pow(double(hv[s]), 3);
    w.cube_d = std::pow(double(d[s]), 3);
  }
  return weights;
}

// ---------------------------------------------------------------------------------------------
// 3.3 DWT, scale 0.
template <typename Sample>
void adm_dwt0_rows(const Sample* luma, uint32_t width, uint32_t height, unsigned bpc,
                   bool lowpass_only, AdmBands<int16_t>& out, uint32_t row_begin,
                   uint32_t row_end) {
  const uint32_t w = out.w;
  const uint32_t rb = uint32_t{1} << (bpc - 1);
  const uint32_t offset = 46342u * rb;  // recentres around 0
  thread_local std::vector<int16_t> tl, th;
  tl.resize(width + 3);
  th.resize(width + 3);
  for (uint32_t i = row_begin; i < row_end; ++i) {
    const Sample* p[4];
    for (int k = 0; k < 4; ++k) p[k] = luma + size_t(dwt_index(int64_t(2 * i) - 1 + k, height)) * width;
    int16_t* __restrict tlp = tl.data() + 1;
    int16_t* __restrict thp = th.data() + 1;
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
    int16_t* a = out.a.data() + size_t(i) * w;
    for (uint32_t j = 0; j < w; ++j) {
      const int16_t* l = tl.data() + 2 * j;
      a[j] = int16_t((kLo[0] * l[0] + kLo[1] * l[1] + kLo[2] * l[2] + kLo[3] * l[3] + 32768) >> 16);
    }
    if (lowpass_only) continue;
    int16_t* v = out.detail[kV].data() + size_t(i) * w;
    int16_t* hb = out.detail[kH].data() + size_t(i) * w;
    int16_t* d = out.detail[kD].data() + size_t(i) * w;
    for (uint32_t j = 0; j < w; ++j) {
      const int16_t* l = tl.data() + 2 * j;
      const int16_t* hh = th.data() + 2 * j;
      v[j] = int16_t((kHi[0] * l[0] + kHi[1] * l[1] + kHi[2] * l[2] + kHi[3] * l[3] + 32768) >> 16);
      hb[j] = int16_t((kLo[0] * hh[0] + kLo[1] * hh[1] + kLo[2] * hh[2] + kLo[3] * hh[3] + 32768) >> 16);
      d[j] = int16_t((kHi[0] * hh[0] + kHi[1] * hh[1] + kHi[2] * hh[2] + kHi[3] * hh[3] + 32768) >> 16);
    }
  }
}

// 3.4 DWT, scales 1-3 (int64 sums).
template <typename In>
void adm_dwt_rows(int scale, const In* in, uint32_t in_w, uint32_t in_h, AdmBands<int32_t>& out,
                  uint32_t row_begin, uint32_t row_end) {
  static constexpr int64_t kVertRound[4] = {0, 0, 32768, 32768};
  static constexpr int kVertShift[4] = {0, 0, 16, 16};
  static constexpr int64_t kHorRound[4] = {0, 16384, 32768, 16384};
  static constexpr int kHorShift[4] = {0, 15, 16, 15};
  const int64_t cv = kVertRound[scale], ch = kHorRound[scale];
  const int sv = kVertShift[scale], sh = kHorShift[scale];
  const uint32_t w = out.w;
  thread_local std::vector<int32_t> tl, th;
  tl.resize(in_w + 3);
  th.resize(in_w + 3);
  for (uint32_t i = row_begin; i < row_end; ++i) {
    const In* p[4];
    for (int k = 0; k < 4; ++k) p[k] = in + size_t(dwt_index(int64_t(2 * i) - 1 + k, in_h)) * in_w;
    for (uint32_t j = 0; j < in_w; ++j) {
      int64_t s0 = p[0][j], s1 = p[1][j], s2 = p[2][j], s3 = p[3][j];
      int64_t vl = kLo[0] * s0 + kLo[1] * s1 + kLo[2] * s2 + kLo[3] * s3;
      int64_t vh = kHi[0] * s0 + kHi[1] * s1 + kHi[2] * s2 + kHi[3] * s3;
      tl[1 + j] = int32_t((vl + cv) >> sv);
      th[1 + j] = int32_t((vh + cv) >> sv);
    }
    dwt_pad(tl.data(), in_w);
    dwt_pad(th.data(), in_w);
    int32_t* a = out.a.data() + size_t(i) * w;
    int32_t* v = out.detail[kV].data() + size_t(i) * w;
    int32_t* hb = out.detail[kH].data() + size_t(i) * w;
    int32_t* d = out.detail[kD].data() + size_t(i) * w;
    for (uint32_t j = 0; j < w; ++j) {
      const int32_t* l = tl.data() + 2 * j;
      const int32_t* hh = th.data() + 2 * j;
      int64_t l0 = l[0], l1 = l[1], l2 = l[2], l3 = l[3];
      int64_t h0 = hh[0], h1 = hh[1], h2 = hh[2], h3 = hh[3];
      a[j] = int32_t((kLo[0] * l0 + kLo[1] * l1 + kLo[2] * l2 + kLo[3] * l3 + ch) >> sh);
      v[j] = int32_t((kHi[0] * l0 + kHi[1] * l1 + kHi[2] * l2 + kHi[3] * l3 + ch) >> sh);
      hb[j] = int32_t((kLo[0] * h0 + kLo[1] * h1 + kLo[2] * h2 + kLo[3] * h3 + ch) >> sh);
      d[j] = int32_t((kHi[0] * h0 + kHi[1] * h1 + kHi[2] * h2 + kHi[3] * h3 + ch) >> sh);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// 3.5 decoupling.
namespace {

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

}  // namespace

template <typename Coef>
void adm_decouple_rows(int scale, const AdmBands<Coef>& ref, const AdmBands<Coef>& dis,
                       double gain_limit, const AdmRect& ext, AdmDetail<Coef>& restored,
                       AdmDetail<Coef>& additive, int row_begin, int row_end) {
  const size_t w = ref.w;
  for (int i = row_begin; i < row_end; ++i) {
    for (int j = ext.left; j < ext.right; ++j) {
      const size_t at = size_t(i) * w + j;
      const int64_t oh = ref.detail[kH][at], ov = ref.detail[kV][at];
      const int64_t th = dis.detail[kH][at], tv = dis.detail[kV][at];
      // Angle test (1 degree): int64 -> f32 first, then f64 arithmetic.
      const int64_t dp = oh * th + ov * tv;
      const int64_t om = oh * oh + ov * ov;
      const int64_t tm = th * th + tv * tv;
      const double x = double(float(dp)) / 4096.0;
      const bool flag =
          x >= 0 && x * x >= (kCos1Sq * (double(float(om)) / 4096.0)) * (double(float(tm)) / 4096.0);
      for (int b = 0; b < 3; ++b) {
        const int32_t o = ref.detail[b][at], t = dis.detail[b][at];
        int64_t k = scale == 0 ? ratio_scale0(o, t) : ratio_wide(o, t);
        Coef rb = Coef((k * o + 16384) >> 15);
        if (flag && k > 0) {
          double q = double(rb) * gain_limit;
          if (o > 0) rb = Coef(int64_t(std::min(q, double(t))));  // trunc, then store
          else if (o < 0) rb = Coef(int64_t(std::max(q, double(t))));
        }
        restored.band[b][at] = rb;
        additive.band[b][at] = Coef(t - rb);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// 3.7 CSF.
template <typename Coef>
void adm_csf_rows(int scale, const AdmDetail<Coef>& in, const AdmScaleWeights& weights,
                  const AdmRect& ext, AdmDetail<Coef>& c, AdmDetail<Coef>& m, int row_begin,
                  int row_end) {
  const size_t w = in.w;
  for (int b = 0; b < 3; ++b) {
    const uint32_t fixed = b == kD ? weights.fixed_d : weights.fixed_hv;
    for (int i = row_begin; i < row_end; ++i) {
      const Coef* __restrict s = in.band[b].data() + size_t(i) * w;
      Coef* __restrict cr = c.band[b].data() + size_t(i) * w;
      Coef* __restrict mr = m.band[b].data() + size_t(i) * w;
      if (scale == 0) {
        const int shift = b == kD ? 17 : 15;
        const int32_t round = b == kD ? 65535 : 16384;  // 65535, not 65536 (10.2)
        for (int j = ext.left; j < ext.right; ++j) {
          // int32 arithmetic that wraps like upstream at the extremes (uint32 avoids UB).
          int16_t cv = int16_t(int32_t(fixed * uint32_t(int32_t(s[j])) + uint32_t(round)) >> shift);
          int32_t a = std::abs(int32_t(cv));
          cr[j] = cv;
          mr[j] = int16_t((4369 * a + 2048) >> 12);
        }
      } else {
        for (int j = ext.left; j < ext.right; ++j) {
          int32_t cv = int32_t((int64_t(fixed) * s[j] + (int64_t{1} << 27)) >> 28);
          int64_t a = std::abs(int64_t(cv));
          cr[j] = Coef(cv);
          mr[j] = Coef(int32_t((143165577 * a - (int64_t{1} << 31)) >> 32));  // -2^31 (10.2)
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// 3.8 contrast masking.
template <typename Coef>
std::array<int64_t, 3> adm_cm_rows(int scale, const AdmDetail<Coef>& x, const AdmDetail<Coef>& c,
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
    for (int j = in.left; j < in.right; ++j) {
      const int jm = j == 0 ? 1 : j - 1;
      const int jp = j + 1 == w ? w - 1 : j + 1;
      int32_t thr = 0;
      for (int b = 0; b < 3; ++b) {
        const Coef* r0 = m.band[b].data() + size_t(im) * w;
        const Coef* r1 = m.band[b].data() + size_t(i) * w;
        const Coef* r2 = m.band[b].data() + size_t(ip) * w;
        int32_t sum = int32_t(r0[jm]) + r0[j] + r0[jp] + r1[jm] + r1[jp] + r2[jm] + r2[j] + r2[jp];
        int32_t cv = c.band[b][size_t(i) * w + j];
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
        const int32_t xv = x.band[b][size_t(i) * w + j];
        int64_t val;
        if (scale == 0) {
          const int u = b == kD ? 12 : 10;
          int32_t t = int32_t(xv * int32_t(fixed[b]));
          t = int32_t(uint32_t(std::abs(t)) - (uint32_t(thr) << u));  // int32, wrapping
          t = std::max(t, 0);
          const int sh = b == kD ? 30 : 29;
          int32_t xs = int32_t((int64_t(t) * t + (int64_t{1} << (sh - 1))) >> sh);
          val = (int64_t(xs) * t + int64_t(uint32_t(std::pow(2, z[b] - 1)))) >> z[b];
        } else {
          int32_t t = int32_t((int64_t(xv) * fixed[b] + (int64_t{1} << 27)) >> 28);
          t = int32_t(uint32_t(std::abs(t)) - uint32_t(thr));
          t = std::max(t, 0);
          int32_t xs = int32_t((int64_t(t) * t + (int64_t{1} << 29)) >> 30);
          val = (int64_t(xs) * t + int64_t(uint32_t(std::pow(2, z[b] - 1)))) >> z[b];
        }
        inner[b] += val;
      }
    }
    for (int b = 0; b < 3; ++b) acc[b] += (inner[b] + (int64_t{1} << (y - 1))) >> y;
  }
  return acc;
}

// ---------------------------------------------------------------------------------------------
// 3.9 denominator.
template <typename Coef>
std::array<uint64_t, 3> adm_den_rows(int scale, const AdmBands<Coef>& ref, const AdmRects& rects,
                                     int row_begin, int row_end) {
  const AdmRect& in = rects.inner;
  const size_t w = ref.w;
  std::array<uint64_t, 3> acc{};
  if (scale == 0) {
    const int sa = std::max(0, int(std::ceil(std::log2(double(rects.count)) - 20)));
    const uint64_t ra = sa > 0 ? uint64_t{1} << (sa - 1) : 0;
    for (int b = 0; b < 3; ++b)
      for (int i = row_begin; i < row_end; ++i) {
        const Coef* o = ref.detail[b].data() + size_t(i) * w;
        uint64_t inner = 0;
        for (int j = in.left; j < in.right; ++j) {
          uint64_t a = uint16_t(std::abs(int32_t(o[j])));
          inner += a * a * a;
        }
        acc[b] += (inner + ra) >> sa;
      }
    return acc;
  }
  static constexpr int kQ[4] = {0, 31, 30, 31};
  const int q = kQ[scale];
  const int zc = ceil_log2(in.right - in.left), yc = ceil_log2(in.bottom - in.top);
  for (int b = 0; b < 3; ++b)
    for (int i = row_begin; i < row_end; ++i) {
      const Coef* o = ref.detail[b].data() + size_t(i) * w;
      uint64_t inner = 0;
      for (int j = in.left; j < in.right; ++j) {
        uint64_t a = std::abs(int64_t(o[j]));
        // The rounding term before >> q is 2^q, a full unit (10.2).
        inner += ((((a * a + (uint64_t{1} << q)) >> q) * a) + (uint64_t{1} << (zc - 1))) >> zc;
      }
      acc[b] += (inner + (uint64_t{1} << (yc - 1))) >> yc;
    }
  return acc;
}

// ---------------------------------------------------------------------------------------------
// Final conversions.
namespace {
constexpr float kOneThird = 1.0f / 3.0f;  // 0x3eaaaaab
// glibc's powf (not correctly rounded; vmaf.md 10.3) is what ::powf calls on this platform.
inline float cube_root(float v) { return ::powf(v, kOneThird); }
inline float noise_term(int64_t count, double noise_weight) {
  return cube_root(float(double(count) * noise_weight));
}
}  // namespace

float adm_num_value(int scale, const std::array<int64_t, 3>& acc, uint32_t band_w,
                    uint32_t band_h, int64_t count, double noise_weight) {
  const int y = ceil_log2(band_h);
  float f[3];
  if (scale == 0) {
    const int z_hv = int(std::ceil(std::log2(double(band_w)) - 4));
    const int z_d = int(std::ceil(std::log2(double(band_w)) - 3));
    f[kH] = float(double(acc[kH]) / std::ldexp(1.0, 52 - z_hv - y));
    f[kV] = float(double(acc[kV]) / std::ldexp(1.0, 52 - z_hv - y));
    f[kD] = float(double(acc[kD]) / std::ldexp(1.0, 57 - z_d - y));
  } else {
    static constexpr int kE[4] = {0, 45, 39, 36};
    const int z = ceil_log2(band_w);
    const float p = float(std::ldexp(1.0, kE[scale] - z - y));
    for (int b = 0; b < 3; ++b) f[b] = float(acc[b]) / p;  // int64 -> f32, f32 division
  }
  const float nt = noise_term(count, noise_weight);
  return ((cube_root(f[kH]) + nt) + (cube_root(f[kV]) + nt)) + (cube_root(f[kD]) + nt);
}

float adm_den_value(int scale, const std::array<uint64_t, 3>& acc, const AdmScaleWeights& weights,
                    const AdmRects& rects, double noise_weight) {
  double div;
  if (scale == 0) {
    const int sa = std::max(0, int(std::ceil(std::log2(double(rects.count)) - 20)));
    div = std::ldexp(1.0, 18 - sa);
  } else {
    static constexpr int kE[4] = {0, 32, 27, 23};
    const int zc = ceil_log2(rects.inner.right - rects.inner.left);
    const int yc = ceil_log2(rects.inner.bottom - rects.inner.top);
    div = std::ldexp(1.0, kE[scale] - yc - zc);
  }
  const double cube[3] = {weights.cube_hv, weights.cube_hv, weights.cube_d};
  float cb[3];
  for (int b = 0; b < 3; ++b) cb[b] = float((double(acc[b]) / div) * cube[b]);
  const float nt = noise_term(rects.count, noise_weight);
  return ((cube_root(cb[kH]) + nt) + (cube_root(cb[kV]) + nt)) + (cube_root(cb[kD]) + nt);
}

AdmFrameScores adm_combine(const std::array<AdmScaleValues, kScales>& scales, uint32_t width,
                           uint32_t height, double dlm_weight, double min_val) {
  AdmFrameScores out;
  double num = 0, den = 0, aim = 0;
  for (int s = 0; s < kScales; ++s) {
    num += double(scales[s].num);
    den += double(scales[s].den);
    aim += double(scales[s].aim);
    out.scale[s] = double(scales[s].num) / double(scales[s].den);
  }
  const double lim = (1e-10 * double(width * height)) / (1920.0 * 1080.0);
  num = num < lim ? 0 : num;
  den = den < lim ? 0 : den;
  out.num = num, out.den = den;
  if (den == 0) {
    out.adm2 = 1.0;
    out.aim = 0.0;
    out.den_zero = true;
  } else {
    out.aim = aim / den;
    out.adm2 = num / den;
  }
  out.adm3 = std::max((out.adm2 * dlm_weight) + ((1.0 - out.aim) * (1.0 - dlm_weight)), min_val);
  return out;
}

// ---------------------------------------------------------------------------------------------
template void adm_dwt0_rows<uint8_t>(const uint8_t*, uint32_t, uint32_t, unsigned, bool,
                                     AdmBands<int16_t>&, uint32_t, uint32_t);
template void adm_dwt0_rows<uint16_t>(const uint16_t*, uint32_t, uint32_t, unsigned, bool,
                                      AdmBands<int16_t>&, uint32_t, uint32_t);
template void adm_dwt_rows<int16_t>(int, const int16_t*, uint32_t, uint32_t, AdmBands<int32_t>&,
                                    uint32_t, uint32_t);
template void adm_dwt_rows<int32_t>(int, const int32_t*, uint32_t, uint32_t, AdmBands<int32_t>&,
                                    uint32_t, uint32_t);
#define VQX_ADM_INSTANTIATE(Coef)                                                                  \
  template void adm_decouple_rows<Coef>(int, const AdmBands<Coef>&, const AdmBands<Coef>&, double, \
                                        const AdmRect&, AdmDetail<Coef>&, AdmDetail<Coef>&, int,   \
                                        int);                                                      \
  template void adm_csf_rows<Coef>(int, const AdmDetail<Coef>&, const AdmScaleWeights&,            \
                                   const AdmRect&, AdmDetail<Coef>&, AdmDetail<Coef>&, int, int);  \
  template std::array<int64_t, 3> adm_cm_rows<Coef>(                                               \
      int, const AdmDetail<Coef>&, const AdmDetail<Coef>&, const AdmDetail<Coef>&,                 \
      const AdmScaleWeights&, const AdmRects&, SimdCompat, int, int);                              \
  template std::array<uint64_t, 3> adm_den_rows<Coef>(int, const AdmBands<Coef>&, const AdmRects&, \
                                                      int, int);
VQX_ADM_INSTANTIATE(int16_t)
VQX_ADM_INSTANTIATE(int32_t)
#undef VQX_ADM_INSTANTIATE

}  // namespace vqx::integer_adm
