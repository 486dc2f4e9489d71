#pragma once
// The CUDA twin of integer `vif` (shared/spec/vmaf.md 2 and 11): every stage on the device, the
// four per-scale integer sums exact (integer atomics), the f64/f32 combination on the host with
// the CPU's vif_scale_result.
#include <memory>

#include "engine/cuda/cuda_metric.h"

namespace vqx {

std::unique_ptr<CudaMetric> make_integer_vif_cuda(const OptionValues& options);

}  // namespace vqx
