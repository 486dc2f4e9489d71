#pragma once
// The CUDA twin of cambi (shared/spec/cambi.md section 10): every stage on the device, one
// readback per frame of the per-scale exact top-K sums and a status word.
#include <memory>

#include "engine/cuda/cuda_metric.h"

namespace vqx {

std::unique_ptr<CudaMetric> make_cambi_cuda(const OptionValues& options);

}  // namespace vqx
