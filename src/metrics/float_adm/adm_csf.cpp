#include "metrics/float_adm/adm_csf.h"

#include <cmath>
#include <numbers>

namespace vqx::float_adm {
namespace {

constexpr double kPi = std::numbers::pi;
// Barten's CSF is evaluated at upstream's fixed luminance level (cd/m^2).
constexpr double kLuminanceLevel = 100.0;

// Display resolution in pixels per degree of visual angle, f32.
float pixels_per_degree(double view_dist, int display_height) {
  return float(view_dist * display_height * kPi / 180.0);
}

// ---- Watson, Yang, Solomon, Villasenor 1997: the 7-9 wavelet's luma quantisation step ----------

// Table IV's luma entry (subject "sfl"); upstream's double literals rounded to f32.
struct WatsonLuma {
  float a = 0.495, k = 0.466, f0 = 0.401;
  float g[4] = {1.501, 1.0, 0.534, 1.0};
};

// Basis function amplitudes A[lambda][theta] (Watson et al., table V), f32.
const float kAmplitudes[4][4] = {
    {0.62171, 0.67234, 0.72709, 0.67234},
    {0.34537, 0.41317, 0.49428, 0.41317},
    {0.18004, 0.22727, 0.28688, 0.22727},
    {0.091401, 0.11792, 0.15214, 0.11792},
};

float watson_step(int lambda, int theta, double view_dist, int display_height) {
  const WatsonLuma p;
  const float r = pixels_per_degree(view_dist, display_height);
  const float t = float(std::log10(std::pow(2.0, lambda + 1) * p.f0 * p.g[theta] / r));
  return float(2.0 * p.a * std::pow(10.0, double(p.k * t * t)) / kAmplitudes[lambda][theta]);
}

// ---- Barten's CSF as simplified in HDR-VDP-2 (Mantiuk et al. 2011) ----------------------------

const float kBartenAnchors[6] = {0.002, 0.02, 0.2, 2.0, 20.0, 150.0};
const float kBartenParams[6][5] = {
    {0.0160737, 0.991265, 3.74038, 0.50722, 4.46044},
    {0.383873, 0.800889, 3.54104, 0.682505, 4.94958},
    {0.929301, 0.476505, 4.37453, 0.750315, 5.28678},
    {1.29776, 0.405782, 4.40602, 0.935314, 5.61425},
    {1.49222, 0.334278, 3.79542, 1.07327, 6.4635},
    {1.46213, 0.394533, 2.7755, 1.16577, 7.45665},
};
const float kBartenSa[4] = {30.162, 4.0627, 1.6596, 0.2712};
const float kBartenMtfA[4] = {0.424838596301290, 0.572435103936480, 0.000167576239164937,
                              0.00255872352306433};
const float kBartenMtfB[4] = {0.028, 0.37, 37.0, 360.0};

float lerp(float x0, float y0, float x1, float y1, float x) {
  return y0 + ((y1 - y0) / (x1 - x0)) * (x - x0);
}

float rod_cone_sensitivity(float luminance) {
  return float(kBartenSa[0] *
               std::pow(std::pow(double(kBartenSa[1] / luminance), double(kBartenSa[2])) + 1,
                        double(-kBartenSa[3])));
}

float modulation_transfer(float frequency) {
  float mtf = 0.0f;
  for (int i = 0; i < 4; ++i)
    mtf = float(mtf + kBartenMtfA[i] * std::exp(double(-kBartenMtfB[i] * frequency)));
  return mtf;
}

float barten(int lambda, double view_dist, int display_height, double scale) {
  const float r = pixels_per_degree(view_dist, display_height);
  const float frequency = float(r / std::pow(2.0, lambda + 1));
  const double lum = kLuminanceLevel > kBartenAnchors[5]   ? double(kBartenAnchors[5])
                     : kLuminanceLevel < kBartenAnchors[0] ? double(kBartenAnchors[0])
                                                           : kLuminanceLevel;
  int left = 0, right = 0;
  for (int i = 0; i < 5; ++i)
    if (lum >= kBartenAnchors[i] && lum <= kBartenAnchors[i + 1]) {
      left = i;
      right = i + 1;
      break;
    }
  const float x0 = float(std::log10(double(kBartenAnchors[left])));
  const float x1 = float(std::log10(double(kBartenAnchors[right])));
  const float x = float(std::log10(lum));
  float p[4];
  for (int k = 0; k < 4; ++k)
    p[k] = lerp(x0, kBartenParams[left][k + 1], x1, kBartenParams[right][k + 1], x);
  const float a = float(1.0f + std::pow(double(p[0] * frequency), double(p[1])));
  const double f7 = double(frequency / 7);
  const float b = float(1.0f / std::pow(1 - std::exp(-(f7 * f7)), double(p[2])));
  const float csf = float(p[3] / std::pow(double(a * b), 0.5));
  return float(csf * modulation_transfer(frequency) * rod_cone_sensitivity(float(kLuminanceLevel)) *
               scale);
}

// ---- The CSF of the DLM paper (Li, Zhang, Ma, Ngan 2011), with the oblique effect ---------------

float adm_native(int lambda, double view_dist, int display_height, int theta) {
  const float r = pixels_per_degree(view_dist, display_height);
  float frequency = float(r / std::pow(2.0, lambda + 1));
  if (theta == 45) frequency = float(frequency / 0.7);
  return float((0.31 + 0.69 * frequency) * std::exp(-0.29 * frequency));
}

}  // namespace

CsfFactors csf_factors(const CsfOptions& o, int scale) {
  CsfFactors f;
  if (o.mode == 1) {
    f.hv = barten(scale, o.norm_view_dist, o.ref_display_height, o.csf_scale);
    f.d = barten(scale, o.norm_view_dist, o.ref_display_height, o.csf_diag_scale);
  } else if (o.mode == 2) {
    f.hv = adm_native(scale, o.norm_view_dist, o.ref_display_height, 0);
    f.d = adm_native(scale, o.norm_view_dist, o.ref_display_height, 45);
  } else {
    f.hv = 1.0f / watson_step(scale, 1, o.norm_view_dist, o.ref_display_height);
    f.d = 1.0f / watson_step(scale, 2, o.norm_view_dist, o.ref_display_height);
  }
  if (o.f1[scale] >= 0) f.hv = float(o.f1[scale]);
  if (o.f2[scale] >= 0) f.d = float(o.f2[scale]);
  return f;
}

}  // namespace vqx::float_adm
