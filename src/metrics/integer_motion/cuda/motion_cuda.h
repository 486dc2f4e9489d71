#pragma once
// The CUDA twin of integer `motion` (shared/spec/vmaf.md 4 and 11): the SAD of the blurred
// reference difference on the device, the previous reference luma kept on the device, the score
// and motion2/motion3 on the host with the CPU's code (MotionPostStream).
#include <memory>

#include "engine/cuda/cuda_metric.h"

namespace vqx {

std::unique_ptr<CudaMetric> make_integer_motion_cuda(const OptionValues& options);

}  // namespace vqx
