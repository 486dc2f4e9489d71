// The recursive Gaussian of SSIMULACRA 2 (Charalampidis 2016, three poles; shared/spec/
// ssimulacra2.md section 6): coefficients and the plain one-line recurrence, the twin of the blur
// kernels (ssimulacra2_kernels.inc).
#include <cmath>

#include "metrics/ssimulacra2/ssimulacra2_core.h"

namespace vqx::ssimulacra2 {

// ---- 6.1 coefficients --------------------------------------------------------------------------

const BlurCoefficients& blur_coefficients() {
  // Hard-coded f32 bit patterns of 6.1; the fork (Cramer's rule) and libjxl (adjugate) derive
  // betas that differ in the last f64 bit but round to these same floats.
  static const BlurCoefficients kCoefficients = {
      {std::bit_cast<float>(0x3d627d42u), std::bit_cast<float>(0xbd70febdu),
       std::bit_cast<float>(0x3c5444a5u)},
      {std::bit_cast<float>(0xbff37871u), std::bit_cast<float>(0xbf967918u),
       std::bit_cast<float>(0xa50d3132u)},  // d1 of pole 5 is -1.2e-16, cos(pi/2) in f64
  };
  return kCoefficients;
}

BlurCoefficients blur_coefficients_derivation(double* beta_dot_p) {
  const double sigma = 1.5;
  const double pi = 3.14159265358979323846;
  const double n = std::round(3.2795 * sigma + 0.2546);
  const double mul = pi / (2.0 * n);
  const double w[3] = {mul, 3.0 * mul, 5.0 * mul};
  const double p[3] = {1.0 / std::tan(0.5 * w[0]), -1.0 / std::tan(0.5 * w[1]),
                       1.0 / std::tan(0.5 * w[2])};
  const double r[3] = {p[0] * p[0] / std::sin(w[0]), -p[1] * p[1] / std::sin(w[1]),
                       p[2] * p[2] / std::sin(w[2])};
  double rho[3];
  for (int k = 0; k < 3; ++k)
    rho[k] = std::exp(-0.5 * sigma * sigma * w[k] * w[k]) * (1.0 / n);
  const double d13 = p[0] * r[1] - r[0] * p[1];
  const double d35 = p[1] * r[2] - r[1] * p[2];
  const double d51 = p[2] * r[0] - r[2] * p[0];
  const double inv_d13 = 1.0 / d13;
  const double zeta15 = d35 * inv_d13;
  const double zeta35 = d51 * inv_d13;
  // [p1 p3 p5; r1 r3 r5; z15 z35 1] * beta = rhs, by Cramer's rule.
  const double a[3][3] = {{p[0], p[1], p[2]}, {r[0], r[1], r[2]}, {zeta15, zeta35, 1.0}};
  const double rhs[3] = {1.0, n * n - sigma * sigma, zeta15 * rho[0] + zeta35 * rho[1] + rho[2]};
  auto det3 = [](const double m[3][3]) {
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
           m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  };
  const double det = det3(a);
  double beta[3];
  for (int k = 0; k < 3; ++k) {
    double m[3][3];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) m[i][j] = j == k ? rhs[i] : a[i][j];
    beta[k] = det3(m) / det;
  }
  if (beta_dot_p) *beta_dot_p = beta[0] * p[0] + beta[1] * p[1] + beta[2] * p[2];
  BlurCoefficients c{};
  for (int k = 0; k < 3; ++k) {
    c.n2[k] = float(-beta[k] * std::cos(w[k] * (n + 1.0)));
    c.d1[k] = float(-2.0 * std::cos(w[k]));
  }
  return c;
}

// ---- 6.2 / 6.3 plain twins ---------------------------------------------------------------------

void blur_line_reference(const float* in, size_t in_stride, float* out, size_t out_stride,
                         size_t n) {
  const BlurCoefficients& c = blur_coefficients();
  float prev1[3] = {0, 0, 0}, prev2[3] = {0, 0, 0};
  const long len = long(n);
  for (long t = -kBlurRadius + 1; t < len; ++t) {
    const long ia = t - kBlurRadius - 1, ib = t + kBlurRadius - 1;
    const float a = ia >= 0 ? in[size_t(ia) * in_stride] : 0.0f;
    const float b = ib < len ? in[size_t(ib) * in_stride] : 0.0f;
    const float sum = a + b;
    float o[3];
    for (int k = 0; k < 3; ++k) {
      o[k] = ((c.n2[k] * sum) - (c.d1[k] * prev1[k])) - prev2[k];
      prev2[k] = prev1[k];
      prev1[k] = o[k];
    }
    if (t >= 0) out[size_t(t) * out_stride] = (o[0] + o[1]) + o[2];
  }
}

void blur_plane_reference(const float* in, float* temp, float* out, uint32_t w, uint32_t h) {
  for (uint32_t y = 0; y < h; ++y) blur_line_reference(in + size_t{y} * w, 1, temp + size_t{y} * w, 1, w);
  for (uint32_t x = 0; x < w; ++x) blur_line_reference(temp + x, w, out + x, w, h);
}

}  // namespace vqx::ssimulacra2
