#pragma once
// The CUDA twin of float_ssim: box decimation, one scale of windows and terms on the device
// (metrics/ssim_core/cuda/ssim_cuda.h), the CPU's host code for the means and the dB options.
#include <memory>

#include "engine/cuda/cuda_metric.h"

namespace vqx {

std::unique_ptr<CudaMetric> make_float_ssim_cuda(const OptionValues& options);

}  // namespace vqx
