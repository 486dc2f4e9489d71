#pragma once
// Per-thread arithmetic of the MS-SSIM window kernel (ssim_cuda.cu), written once for the device
// and the host: nvcc compiles it into the kernel, and tests/gpu/float_ms_ssim_tile_test.cpp runs
// the very same functions on the CPU (no device needed) against the plain twins of ssim_stages.h.
// On the device every operation is an explicit round-to-nearest intrinsic (nothing can be
// contracted); on the host the same IEEE operations (the build has -ffp-contract=off).
//
// Register blocking (spec 4.1 order kept): a thread computes a run of R consecutive outputs of one
// pass from R + 10 samples held in registers. Sample i meets output j at tap k = i - j; since the
// Gaussian table is symmetric bit for bit (kGaussian[k] == kGaussian[10 - k], checked by
// prepare_device() and the tile test), the product of sample i with tap k and with tap 10 - k is
// the same f32 product of the same two operands, so it is formed and widened once and added to
// every output that uses it. Each output still receives its 11 terms in tap order 0..10, one f64
// add each, exactly as window_convolve_plain.
#include <cstdint>
#include <cstring>

#include "metrics/float_ms_ssim/ssim_stages.h"

#if defined(__CUDACC__)
#define VQX_TILE_HD __host__ __device__ __forceinline__
#define VQX_TILE_UNROLL _Pragma("unroll")
#else
#include <cmath>
#define VQX_TILE_HD inline
#define VQX_TILE_UNROLL
#endif

namespace vqx::ssim::cuda::tile {

// ---- IEEE operations, round to nearest ----------------------------------------------------------

VQX_TILE_HD float fmul(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
VQX_TILE_HD float fadd(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
VQX_TILE_HD float fsub(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
VQX_TILE_HD float fdiv(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
VQX_TILE_HD float fsqrt(float a) {
#if defined(__CUDA_ARCH__)
  return __fsqrt_rn(a);
#else
  return std::sqrt(a);
#endif
}
VQX_TILE_HD double dadd(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
VQX_TILE_HD double dmul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
VQX_TILE_HD double ddiv(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}
VQX_TILE_HD float to_f32(double a) {
#if defined(__CUDA_ARCH__)
  return __double2float_rn(a);
#else
  return float(a);
#endif
}
VQX_TILE_HD uint32_t bits(float a) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(a);
#else
  uint32_t u;
  std::memcpy(&u, &a, sizeof u);
  return u;
#endif
}
VQX_TILE_HD double from_words(uint32_t hi, uint32_t lo) {
#if defined(__CUDA_ARCH__)
  return __hiloint2double(int(hi), int(lo));
#else
  const uint64_t w = (uint64_t(hi) << 32) | lo;
  double d;
  std::memcpy(&d, &w, sizeof d);
  return d;
#endif
}

// ---- Widening of an f32 product into an f64 accumulator -----------------------------------------
//
// kConvert: the conversion instruction (exact). kScaled / kScaledNonneg: p * 2^-896 built from p's
// bits with two or three integer operations (exact for every finite p, subnormals and signed zeros
// included; kScaledNonneg only for p with the sign bit clear). An accumulator fed only scaled terms
// holds exactly 2^-896 times the CPU's accumulator after every add: all terms and partial sums
// are multiples of 2^-149 (2^-1045 scaled), so a partial sum is either >= 2^-126 (scaled: a normal
// f64, where rounding commutes with the power-of-two scale) or an exact multiple of 2^-149 below
// 2^-126 (exact in both). Multiplying by 2^896 at the end restores the CPU's f64 sum exactly.
// The conversion instruction runs on a quarter-rate unit, the integer path on the ALU, so the
// quantities are split between the two; a quantity never mixes them.
enum class Widen { kConvert, kScaled, kScaledNonneg };

template <Widen W>
VQX_TILE_HD double widen(float p) {
  if constexpr (W == Widen::kConvert) {
    return double(p);
  } else if constexpr (W == Widen::kScaledNonneg) {
    const uint32_t u = bits(p);
    return from_words(u >> 3, u << 29);
  } else {
    const uint32_t u = bits(p);
    // The sign stays at bit 31, bits 30..28 cleared: the f32 fields moved to the f64 positions.
    return from_words(uint32_t(int32_t(u) >> 3) & 0x8fffffffu, u << 29);
  }
}

template <Widen W>
VQX_TILE_HD float finish(double acc) {
  if constexpr (W == Widen::kConvert) return to_f32(acc);
  else return to_f32(dmul(acc, 0x1p896));
}

// ---- One run of R outputs of the 11-tap pass ----------------------------------------------------

// out[j] = f32( sum_{k=0..10} f64(f32(v[j + k] * g(k))) ), the adds in tap order, for j < R.
// G::g(t) returns kGaussian[t] (t <= 5 is enough: the table is symmetric).
template <int R, Widen W, class G>
VQX_TILE_HD void convolve_run(const float* v, float* out) {
  double acc[R];
  VQX_TILE_UNROLL
  for (int j = 0; j < R; ++j) acc[j] = 0.0;
  VQX_TILE_UNROLL
  for (int i = 0; i < R + kWindowMargin; ++i) {
    // The products of sample i with the distinct taps it meets; on the device the unused ones
    // are never formed (everything is unrolled with constant indices).
    double w[kWindowTaps / 2 + 1];
    VQX_TILE_UNROLL
    for (int t = 0; t <= kWindowTaps / 2; ++t) w[t] = widen<W>(fmul(v[i], G::g(t)));
    VQX_TILE_UNROLL
    for (int j = 0; j < R; ++j) {
      const int k = i - j;
      if (k < 0 || k >= kWindowTaps) continue;
      const double term = w[k <= kWindowTaps / 2 ? k : kWindowMargin - k];
      // 0 + x == x for every x but -0; kScaledNonneg terms are never -0, so their first add is
      // the term itself (one add less, same value).
      if (W == Widen::kScaledNonneg && k == 0) acc[j] = term;
      else acc[j] = dadd(acc[j], term);
    }
  }
  VQX_TILE_UNROLL
  for (int j = 0; j < R; ++j) out[j] = finish<W>(acc[j]);
}

// The widening each of the five quantities uses (mu_r, mu_d, r*r, d*d, r*d): squares and
// horizontal sums of squares are never negative (-0 * -0 = +0).
inline constexpr Widen kQuantityWiden[5] = {Widen::kConvert, Widen::kConvert, Widen::kScaledNonneg,
                                            Widen::kScaledNonneg, Widen::kScaled};

// Horizontal pass of one run: r, d hold R + 10 input samples of a row; out[q][j] are the five
// quantities of outputs j (window_statistics_plain forms r*r, d*d, r*d in f32 first).
template <int R, class G>
VQX_TILE_HD void horizontal_run(const float* r, const float* d, float (*out)[R]) {
  constexpr int n = R + kWindowMargin;
  convolve_run<R, kQuantityWiden[0], G>(r, out[0]);
  convolve_run<R, kQuantityWiden[1], G>(d, out[1]);
  float p[n];
  VQX_TILE_UNROLL
  for (int i = 0; i < n; ++i) p[i] = fmul(r[i], r[i]);
  convolve_run<R, kQuantityWiden[2], G>(p, out[2]);
  VQX_TILE_UNROLL
  for (int i = 0; i < n; ++i) p[i] = fmul(d[i], d[i]);
  convolve_run<R, kQuantityWiden[3], G>(p, out[3]);
  VQX_TILE_UNROLL
  for (int i = 0; i < n; ++i) p[i] = fmul(r[i], d[i]);
  convolve_run<R, kQuantityWiden[4], G>(p, out[4]);
}

// ---- Statistics and l, c, s (spec 4.2, 4.3) -------------------------------------------------------

struct Terms {
  double l, c;
  float s;
};

VQX_TILE_HD Terms lcs_terms(float mu_r, float mu_d, float sum_rr, float sum_dd, float sum_rd) {
  // pixel_statistics: f32, MAX(0, v) as upstream writes it (keeps -0 and NaN).
  float var_r = fsub(sum_rr, fmul(mu_r, mu_r));
  float var_d = fsub(sum_dd, fmul(mu_d, mu_d));
  var_r = 0.0f > var_r ? 0.0f : var_r;
  var_d = 0.0f > var_d ? 0.0f : var_d;
  const float cov = fsub(sum_rd, fmul(mu_r, mu_d));
  // lcs_term: sigma = f32(sqrt_f64(f64(vR*vD))). The f64 square root of an f32 value rounded to
  // f32 equals the f32 square root (double rounding is innocuous for sqrt when 53 >= 2*24 + 2;
  // the tile test checks it on the whole f32 range), so the cheaper f32 instruction is used.
  const float sigma = fsqrt(fmul(var_r, var_d));
  Terms t;
  t.l = ddiv(dadd(dmul(dmul(2.0, double(mu_r)), double(mu_d)), double(kC1)),
             double(fadd(fadd(fmul(mu_r, mu_r), fmul(mu_d, mu_d)), kC1)));
  t.c = ddiv(dadd(dmul(2.0, double(sigma)), double(kC2)), double(fadd(fadd(var_r, var_d), kC2)));
  const float cov_fixed = (cov < 0.0f && sigma <= 0.0f) ? 0.0f : cov;  // zli-nflx flat fix
  t.s = fdiv(fadd(cov_fixed, kC3), fadd(sigma, kC3));
  return t;
}

}  // namespace vqx::ssim::cuda::tile
