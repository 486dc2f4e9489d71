#pragma once
// Row kernels behind ssim_kernels.h, one set per ISA (ssim_kernels.cpp: generic,
// ssim_kernels_avx2.cpp: AVX2). Internal to the float_ms_ssim folder.
#include "metrics/float_ms_ssim/ssim_stages.h"

namespace vqx::ssim::detail {

// Decimation rows are pre-split into even and odd samples of the symmetrically padded row:
// even[j] = row[reflect(2j-4)], odd[j] = row[reflect(2j-3)], j = 0..out_width+3. Output x, tap
// u = 0..8 (offset u-4) then reads (u odd ? odd : even)[x + u/2]: contiguous for consecutive x.
inline constexpr int kSplitPad = 4;

// Window quantities convolved per scale: mu_r, mu_d, then the sums of r*r, d*d, r*d.
inline constexpr int kQuantities = 5;

struct RowKernels {
  // One output row of the 9x9 decimation; even[v], odd[v] are the split input rows 2y+v-4.
  void (*decimate_row)(const float* const even[kLpfTaps], const float* const odd[kLpfTaps],
                       int out_width, float* out);
  // Horizontal window pass of one input row (width map_width + 10) into the five quantities.
  void (*window_h_row)(const float* ref, const float* dis, int map_width,
                       float* const out[kQuantities]);
  // Vertical window pass of one map row from the 11 horizontal rows of each quantity, then the
  // statistics and the l, c, s terms of that row.
  void (*window_v_terms_row)(const float* const rows[kQuantities][kWindowTaps], int map_width,
                             double* l, double* c, float* s);
};

extern const RowKernels kGenericKernels;
extern const RowKernels kAvx2Kernels;

// Scalar bodies shared by the generic kernels and the vector kernels' tails: output x only.
inline float decimate_one(const float* const even[kLpfTaps], const float* const odd[kLpfTaps], int x) {
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
