#pragma once
// The CUDA twin of integer `adm` (shared/spec/vmaf.md 3 and 11): DWT, decoupling, CSF, contrast
// masking and denominator on the device with exact per-row integer sums; the f32/f64 conversions
// and the combination on the host with the CPU's adm_num_value / adm_den_value / adm_combine.
#include <memory>

#include "engine/cuda/cuda_metric.h"

namespace vqx {

std::unique_ptr<CudaMetric> make_integer_adm_cuda(const OptionValues& options);

}  // namespace vqx
