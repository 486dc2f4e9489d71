#pragma once
// The larger decimation kernels, each in its own file; enqueue_decimate (decimate.cu) picks one by
// plane size and sample type. Same arguments and result as enqueue_decimate.
#include <cuda_runtime.h>

#include "metrics/ssim_core/cuda/ssim_cuda.h"

namespace vqx::ssim::cuda {

// decimate_sweep.cu: 64x32 outputs per block, any sample type.
void enqueue_decimate_sweep(const DevicePlane& ref, const DevicePlane& dis, float* out_ref,
                            float* out_dis, cudaStream_t stream);

// decimate_row_runs.cu: raw 8- or 16-bit luma only (level 1, where every partial sum is exact);
// ref and dis of the same sample type.
void enqueue_decimate_row_runs(const DevicePlane& ref, const DevicePlane& dis, float* out_ref,
                               float* out_dis, cudaStream_t stream);

}  // namespace vqx::ssim::cuda
