#pragma once
// Test-only entry to the window kernel (tests/gpu/float_ms_ssim_cuda_test.cpp): the same kernel
// as enqueue_windows, with its intermediates written out for comparison with the plain twins and
// the strip length chosen by the caller. The product calls enqueue_windows (ssim_cuda.h) only.
#include <cuda_runtime.h>

#include "metrics/ssim_core/cuda/ssim_cuda.h"

namespace vqx::ssim::cuda {

// Map-sized device planes of one scale's intermediates (nullptr: not written): the five convolved
// planes before the statistics, then the per-pixel terms. Given taps, a scale computes every term
// (ScaleJob::cs_only is ignored).
struct WindowTaps {
  float* mu_r = nullptr;
  float* mu_d = nullptr;
  float* sum_rr = nullptr;
  float* sum_dd = nullptr;
  float* sum_rd = nullptr;
  double* l = nullptr;
  double* c = nullptr;
  float* s = nullptr;
};

// enqueue_windows with taps[j] for jobs[j] (taps itself may be null: none) and a block per strip
// of `tiles_per_block` vertically adjacent tiles (>= 1) in every launch. The partials are the
// same for every strip length (one per tile, at the tile's index).
void enqueue_windows_for_test(const ScaleJob* jobs, const WindowTaps* taps, int count,
                              PartialSum* const* partials, int tiles_per_block,
                              cudaStream_t stream);

// The strip length enqueue_windows uses for a launch of `tiles` tiles.
int product_tiles_per_block(size_t tiles);

}  // namespace vqx::ssim::cuda
