#pragma once
// The stages of libvmaf's float_ms_ssim and float_ssim (Netflix upstream, the IQA library with the
// "zli-nflx" changes), each callable on its own. Specification: shared/spec/ms_ssim.md.
//
// Every function here is the PLAIN twin: a literal transcription of the reference order of
// operations, kept simple so that optimised paths (ssim_kernels.h, later the CUDA twin) can be
// compared with it bit for bit, stage by stage. Planes are dense f32 (stride = width).
//
//   stage                      plain twin                  optimised twin (ssim_kernels.h)
//   1 luma -> f32              convert_luma                (same function)
//   2 9x9 decimation           decimate_plain              decimate
//   3 11-tap window statistics window_statistics_plain     \ fused in lcs_rows
//   4 per-pixel l, c, s        lcs_terms_plain / lcs_term  /
//   5 per-scale means          ScaleSums (sequential)      (same type)
//   6 combination              combine_scales              (same function)
//
// Precision notes use the spec's notation: f32 where the reference declares float, f64 where it
// declares double; no step may be contracted (the build has -ffp-contract=off).
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/picture.h"

namespace vqx::ssim {

// ---- Constants (spec section 2) ----------------------------------------------------------------

inline constexpr int kScales = 5;
inline constexpr int kWindowTaps = 11;                 // 11-tap Gaussian, sigma 1.5
inline constexpr int kWindowMargin = kWindowTaps - 1;  // a W x H plane gives a (W-10) x (H-10) map
inline constexpr int kLpfTaps = 9;                     // 9x9 decimation table
inline constexpr int kLpfRadius = kLpfTaps / 2;
// The smallest plane float_ms_ssim accepts in each dimension (spec 3.1: 11 * 2^4).
inline constexpr int kMsSsimMinSize = kWindowTaps << (kScales - 1);

// C1 = (K1*L)^2, C2 = (K2*L)^2, C3 = C2/2, all in f32 as the reference's float variables.
inline constexpr float kK1 = 0.01f;
inline constexpr float kK2 = 0.03f;
inline constexpr float kC1 = (kK1 * 255.0f) * (kK1 * 255.0f);
inline constexpr float kC2 = (kK2 * 255.0f) * (kK2 * 255.0f);
inline constexpr float kC3 = kC2 / 2.0f;
static_assert(std::bit_cast<uint32_t>(kC1) == 0x40d0147au, "spec section 2");
static_assert(std::bit_cast<uint32_t>(kC2) == 0x426a1709u, "spec section 2");
static_assert(std::bit_cast<uint32_t>(kC3) == 0x41ea1709u, "spec section 2");

// f32 literals; they sum to 1.0000020 and are not normalised (spec section 2).
inline constexpr float kGaussian[kWindowTaps] = {0.001028f, 0.007599f, 0.036001f, 0.109361f,
                                                 0.213006f, 0.266012f, 0.213006f, 0.109361f,
                                                 0.036001f, 0.007599f, 0.001028f};
// The 2-D table g_lpf (rows v = -4..4, columns u = -4..4), not the product of its 1-D factors.
inline constexpr float kLpf[kLpfTaps][kLpfTaps] = {
    {0.000714f, -0.000450f, -0.002090f, 0.007132f, 0.016114f, 0.007132f, -0.002090f, -0.000450f,
     0.000714f},
    {-0.000450f, 0.000283f, 0.001316f, -0.004490f, -0.010146f, -0.004490f, 0.001316f, 0.000283f,
     -0.000450f},
    {-0.002090f, 0.001316f, 0.006115f, -0.020867f, -0.047149f, -0.020867f, 0.006115f, 0.001316f,
     -0.002090f},
    {0.007132f, -0.004490f, -0.020867f, 0.071207f, 0.160885f, 0.071207f, -0.020867f, -0.004490f,
     0.007132f},
    {0.016114f, -0.010146f, -0.047149f, 0.160885f, 0.363505f, 0.160885f, -0.047149f, -0.010146f,
     0.016114f},
    {0.007132f, -0.004490f, -0.020867f, 0.071207f, 0.160885f, 0.071207f, -0.020867f, -0.004490f,
     0.007132f},
    {-0.002090f, 0.001316f, 0.006115f, -0.020867f, -0.047149f, -0.020867f, 0.006115f, 0.001316f,
     -0.002090f},
    {-0.000450f, 0.000283f, 0.001316f, -0.004490f, -0.010146f, -0.004490f, 0.001316f, 0.000283f,
     -0.000450f},
    {0.000714f, -0.000450f, -0.002090f, 0.007132f, 0.016114f, 0.007132f, -0.002090f, -0.000450f,
     0.000714f},
};
// Exponents: f32 literals widened to f64 when passed to pow (spec section 2).
extern const float kAlpha[kScales];
extern const float kBeta[kScales];  // beta == gamma

// ---- Geometry -----------------------------------------------------------------------------------

struct Size {
  int width = 0;
  int height = 0;
  size_t pixels() const { return size_t(width) * size_t(height); }
  bool operator==(const Size&) const = default;
};

// Level k+1 of the pyramid: ceil(w/2) x ceil(h/2) (spec 3.1).
inline Size half_size(Size s) {
  return {s.width / 2 + (s.width & 1), s.height / 2 + (s.height & 1)};
}
// The SSIM map of a plane: the window fits entirely, no padding (spec 4.1).
inline Size map_size(Size s) { return {s.width - kWindowMargin, s.height - kWindowMargin}; }

// Half-sample symmetric extension of an index into [0, n): -1 -> 0, n -> n-1. A single
// reflection, valid for offsets up to n (spec 3.3).
inline int reflect(int i, int n) { return i < 0 ? -1 - i : (i >= n ? 2 * n - 1 - i : i); }

// ---- Stage 1: conversion (spec section 1) -------------------------------------------------------

// The luma plane of `picture` as f32 on the 8-bit scale: f32(v) / 2^(bpc-8), exact. libvmaf
// defines 8, 10, 12 and 16 bits; 9, 11, 13-15 bits follow the same rule (vqx extension).
void convert_luma(const Picture& picture, float* out);

// ---- Stage 2: decimation (spec 3.2, 3.3) --------------------------------------------------------

// One pyramid step: out (half_size) = 9x9 g_lpf filter centred on (2x, 2y), f32 tap products
// summed in f64 (rows outer, columns inner), symmetric extension. Requires w, h >= 5.
void decimate_plain(const float* in, Size size, float* out);

// ---- Stage 3: window statistics (spec 4.1, 4.2) -------------------------------------------------

// Valid-only separable 11-tap convolution: horizontal then vertical pass, each an f64 sum of f32
// products rounded to f32. `out` is map_size(size).
void window_convolve_plain(const float* in, Size size, float* out);

// The five map planes of one scale: means, clamped variances and the (unclamped) covariance.
struct WindowStatistics {
  Size size;  // map size
  std::vector<float> mu_r, mu_d, var_r, var_d, cov;
};
WindowStatistics window_statistics_plain(const float* ref, const float* dis, Size size);

// ---- Stage 4: per-pixel terms (spec 4.3) --------------------------------------------------------

struct LcsTerm {
  double l;  // f64 division of an f64 numerator by an f32 denominator
  double c;  // same
  float s;   // entirely f32
};

// Variances and covariance straight out of the window sums (spec 4.2), in f32.
struct PixelStatistics {
  float var_r, var_d, cov;
};
inline PixelStatistics pixel_statistics(float mu_r, float mu_d, float sum_rr, float sum_dd,
                                        float sum_rd) {
  float var_r = sum_rr - mu_r * mu_r;
  float var_d = sum_dd - mu_d * mu_d;
  // Upstream's MAX(0.0, v): (0 > v) ? 0 : v, which keeps -0 and NaN as they are.
  var_r = 0.0f > var_r ? 0.0f : var_r;
  var_d = 0.0f > var_d ? 0.0f : var_d;
  return {var_r, var_d, sum_rd - mu_r * mu_d};
}

inline LcsTerm lcs_term(float mu_r, float mu_d, float var_r, float var_d, float cov) {
  // f32(sqrt_f64(f64(vR*vD))): upstream takes the double sqrt of the f32 product and stores it
  // in a float (IEEE sqrt is correctly rounded, so this equals sqrtf of the product).
  const float sigma = float(std::sqrt(double(var_r * var_d)));
  const double l =
      (2.0 * double(mu_r) * double(mu_d) + double(kC1)) / double(mu_r * mu_r + mu_d * mu_d + kC1);
  const double c = (2.0 * double(sigma) + double(kC2)) / double(var_r + var_d + kC2);
  // zli-nflx flat-region fix: a negative covariance of an exactly flat window counts as 0.
  const float cov_fixed = (cov < 0.0f && sigma <= 0.0f) ? 0.0f : cov;
  const float s = (cov_fixed + kC3) / (sigma + kC3);
  return {l, c, s};
}

// Per-pixel l, c, s over a whole map, in raster order.
void lcs_terms_plain(const WindowStatistics& stats, double* l, double* c, float* s);

// ---- Stage 5: per-scale means (spec 4.3) --------------------------------------------------------

struct ScaleMeans {
  float l = 0, c = 0, s = 0;
  float ssim = 0;  // mean of l*c*s per pixel (float_ssim's score); MS-SSIM does not use it
};

// f64 running sums in raster order. add() must be called on consecutive runs of the map, in
// order: the sums are sequential and must not be reordered or split.
struct ScaleSums {
  double l = 0, c = 0, s = 0, ssim = 0;
  void add(const double* l_terms, const double* c_terms, const float* s_terms, size_t n);
  // f32(sum / f64(N)) with N the int product of the map dimensions.
  ScaleMeans means(Size map) const;
};

// ---- Stage 6: combination (spec section 5) ------------------------------------------------------

// prod_k pow(l_k, alpha_k) * pow(c_k, beta_k) * pow(s_k, gamma_k) in f64, scale 0 first.
// `infinite` is set when the running product reaches +inf (upstream then fails the frame).
double combine_scales(const std::array<ScaleMeans, kScales>& means, bool* infinite);

// ---- Options shared by both metrics (spec section 6)
// ---------------------------------------------

// clip_db: ceil(10*log10(peak^2 / mse)) with peak = 2^bpc-1 (u32 arithmetic) and
// mse = 0.5 / f64(w*h); without it +inf.
double max_db(bool clip_db, unsigned bit_depth, uint32_t width, uint32_t height);
// min(-10*log10(1 - score), max_db) with upstream's MIN (a NaN gives max_db).
double to_db(double score, double max_db);

// ---- Plain composition --------------------------------------------------------------------------

// One scale through the plain stages 3-5.
ScaleMeans ssim_scale_plain(const float* ref, const float* dis, Size size);

}  // namespace vqx::ssim
