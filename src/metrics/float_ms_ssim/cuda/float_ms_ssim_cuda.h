#pragma once
// The CUDA twin of float_ms_ssim (shared/spec/ms_ssim.md section 10): pyramid, windows and
// per-pixel terms on the device, bit-identical to the CPU; per-scale sums in a fixed tree; the
// CPU's host code for means, pow and the dB options.
#include <memory>

#include "engine/cuda/cuda_metric.h"

namespace vqx {

std::unique_ptr<CudaMetric> make_float_ms_ssim_cuda(const OptionValues& options);

}  // namespace vqx
