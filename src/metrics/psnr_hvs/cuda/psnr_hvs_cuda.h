#pragma once
// The CUDA twin of psnr_hvs: block terms and plane sums on the device (psnr_hvs_kernels.h), the
// CPU's dB conversion on the host; bit-identical to the CPU path.
#include <memory>

#include "engine/cuda/cuda_metric.h"

namespace vqx {

std::unique_ptr<CudaMetric> make_psnr_hvs_cuda(const OptionValues& options);

}  // namespace vqx
