#pragma once
// float_ssim's box decimation on the device, bit-identical to box_decimate (float_ssim.h).
#include <cuda_runtime.h>

#include "metrics/ssim_core/cuda/ssim_cuda.h"

namespace vqx::ssim::cuda {

// Decimation of `in` by `factor` >= 2 into `out` (box_decimated_size(in.size, factor), dense f32);
// only enqueues on `stream`.
void enqueue_box_decimate(const DevicePlane& in, int factor, float* out, cudaStream_t stream);

}  // namespace vqx::ssim::cuda
