// Integer ADM geometry, CSF weights and final conversions (shared/spec/vmaf.md 3.2, 3.6, 3.8-3.11).
// The integer steps of the row kernels (adm_kernels.h) follow the spec's widths and rounding
// constants exactly, including the ones that look like typos (10.2).
#include "metrics/integer_adm/adm_math.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <span>

#include "core/error.h"
#include "metrics/integer_adm/adm_stage_rules.h"

namespace vqx::integer_adm {

template <typename Coef>
void AdmBands<Coef>::resize(uint32_t width, uint32_t height, bool with_detail, uint32_t ring_rows) {
  w = width, h = height, rows = ring_rows == 0 ? height : std::min(ring_rows, height);
  a.resize(size_t(w) * rows);
  for (auto& b : detail) b.resize(with_detail ? size_t(w) * rows : 0);
}

template <typename Coef>
void AdmDetail<Coef>::resize(uint32_t width, uint32_t height, uint32_t ring_rows) {
  w = width, h = height, rows = ring_rows == 0 ? height : std::min(ring_rows, height);
  for (auto& b : band) b.resize(size_t(w) * rows);
}

template struct AdmBands<int16_t>;
template struct AdmBands<int32_t>;
template struct AdmDetail<int16_t>;
template struct AdmDetail<int32_t>;

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

}  // namespace vqx::integer_adm
