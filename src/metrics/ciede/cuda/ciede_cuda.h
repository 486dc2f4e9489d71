#pragma once
// The CUDA twin of ciede: per-pixel dE00 on the device (ciede_kernels.h), the positions its
// bounds leave undecided and the raster-order f64 sum on the host; bit-identical to the CPU.
#include <memory>

#include "engine/cuda/cuda_metric.h"

namespace vqx {

std::unique_ptr<CudaMetric> make_ciede_cuda(const OptionValues& options);

}  // namespace vqx
