#pragma once
// The CUDA twin of speed_chroma: preprocessing (prescale, antialias blur, decimation, local mean)
// and the 25x25 covariance on the device; the f32 eigenvalue/solver/entropy code of the CPU twin
// on the host, from the device's K and E (shared/spec/speed.md 15; docs/speed_chroma.md).
#include <memory>

#include "engine/cuda/cuda_metric.h"

namespace vqx {

std::unique_ptr<CudaMetric> make_speed_chroma_cuda(const OptionValues& options);

}  // namespace vqx
