#pragma once
// Optimised twins of the MS-SSIM / SSIM stages (ssim_stages.h has the plain ones). Every function
// here gives the same bits as its plain twin for any input, any kernel table and any thread count:
// - vectorised across output pixels only (each output keeps its own sequential f64 sum, taps in the
//   reference order);
// - parallel across output rows only; the per-scale sums stay one sequential raster-order chain.
// tests/unit/float_ms_ssim_kernels_test.cpp checks each one against the plain twin.
//
// The row kernels come from one table (core/cpu_features.h): make_ssim_kernels(CpuFeatures{}) is
// the portable C++ table, ssim_kernels() this host's (AVX2, without FMA, where the CPU has it).
#include <cstdint>

#include "core/cpu_features.h"
#include "metrics/ssim_core/ssim_stages.h"

namespace vqx {
class ThreadPool;
}

namespace vqx::ssim {

// Decimation rows are pre-split into even and odd samples of the symmetrically padded row:
// even[j] = row[reflect(2j-4)], odd[j] = row[reflect(2j-3)], j = 0..out_width+3. Output x, tap
// u = 0..8 (offset u-4) then reads (u odd ? odd : even)[x + u/2]: contiguous for consecutive x.
inline constexpr int kSplitPad = 4;

// Window quantities convolved per scale: mu_r, mu_d, then the sums of r*r, d*d, r*d.
inline constexpr int kQuantities = 5;

struct SsimKernels {
  // One output row of the 9x9 decimation; even[v], odd[v] are the split input rows 2y+v-4, each
  // out_width + kSplitPad samples.
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

// The plain entries, then those `cpu` can run faster.
SsimKernels make_ssim_kernels(const CpuFeatures& cpu);
// This host's table, built once.
const SsimKernels& ssim_kernels();

// Stage 2: same result as decimate_plain. `pool` may be null (runs in the caller).
void decimate(const float* in, Size size, float* out, ThreadPool* pool, const SsimKernels& kernels);

// Stages 3 and 4 fused: l, c, s of map rows [y0, y1) (map_size(size) wide, row-major, starting at
// map row y0), equal to window_statistics_plain + lcs_terms_plain on those rows.
void lcs_rows(const float* ref, const float* dis, Size size, int y0, int y1, double* l, double* c,
              float* s, const SsimKernels& kernels);

// Stages 3 to 5 for one scale: rows computed in parallel, then summed sequentially in raster order.
// Equal to ssim_scale_plain.
ScaleMeans ssim_scale(const float* ref, const float* dis, Size size, ThreadPool* pool,
                      const SsimKernels& kernels);

}  // namespace vqx::ssim
