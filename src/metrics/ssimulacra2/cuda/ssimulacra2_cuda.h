#pragma once
// The CUDA twin of ssimulacra2 (shared/spec/ssimulacra2.md section 15): every stage on the device,
// per-pixel bit-identical to the CPU stages of ssimulacra2_core.h, the 108 sums from a fixed
// double-double reduction tree, one readback per frame, pooling on the host with pool_score().
#include <memory>

#include "engine/cuda/cuda_metric.h"

namespace vqx {

std::unique_ptr<CudaMetric> make_ssimulacra2_cuda(const OptionValues& options);

}  // namespace vqx
