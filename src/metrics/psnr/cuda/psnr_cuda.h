#pragma once
// The CUDA twin of psnr: exact 64-bit integer SSE per plane on the device, the CPU's host math.
#include <memory>

#include "engine/cuda/cuda_metric.h"

namespace vqx {

std::unique_ptr<CudaMetric> make_psnr_cuda(const OptionValues& options);

}  // namespace vqx
