#pragma once
// The row kernels behind the SsimKernels table (ssim_kernels.h): the plain ones in
// ssim_kernels.cpp, the AVX2 ones in ssim_kernels_avx2.cpp. Internal to ssim_core (and its tests).
#include "metrics/ssim_core/ssim_kernels.h"
#include "metrics/ssim_core/ssim_stages.h"

namespace vqx::ssim::detail {

// Overrides the entries that have an AVX2 version (ssim_kernels_avx2.cpp).
void install_avx2_kernels(SsimKernels& kernels);

// Scalar bodies shared by the generic kernels and the vector kernels' tails: output x only.
inline float decimate_one(const float* const even[kLpfTaps], const float* const odd[kLpfTaps],
                          int x) {
  double sum = 0.0;
  for (int v = 0; v < kLpfTaps; ++v)
    for (int u = 0; u < kLpfTaps; ++u) {
      // The row is picked before it is indexed: GCC 12 with -fsanitize=signed-integer-overflow
      // miscompiles `(c ? a : b)[x + u / 2]` (the checked index is evaluated in one arm only, the
      // other reads through a stale register).
      const float* row = (u & 1) ? odd[v] : even[v];
      const float p = row[x + u / 2];
      sum += double(p * kLpf[v][u]);
    }
  return float(sum);
}

inline void window_h_one(const float* ref, const float* dis, int x, float* const out[kQuantities]) {
  double a[kQuantities] = {0.0, 0.0, 0.0, 0.0, 0.0};
  for (int t = 0; t < kWindowTaps; ++t) {
    const float r = ref[x + t], d = dis[x + t], g = kGaussian[t];
    a[0] += double(r * g);
    a[1] += double(d * g);
    a[2] += double((r * r) * g);
    a[3] += double((d * d) * g);
    a[4] += double((r * d) * g);
  }
  for (int q = 0; q < kQuantities; ++q) out[q][x] = float(a[q]);
}

inline LcsTerm window_v_terms_one(const float* const rows[kQuantities][kWindowTaps], int x) {
  float w[kQuantities];
  for (int q = 0; q < kQuantities; ++q) {
    double a = 0.0;
    for (int t = 0; t < kWindowTaps; ++t) a += double(rows[q][t][x] * kGaussian[t]);
    w[q] = float(a);
  }
  const PixelStatistics p = pixel_statistics(w[0], w[1], w[2], w[3], w[4]);
  return lcs_term(w[0], w[1], p.var_r, p.var_d, p.cov);
}

}  // namespace vqx::ssim::detail
