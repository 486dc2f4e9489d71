#pragma once
// Entry points of the CUDA backend; CPU-only builds link engine/cuda_backend_nocuda.cpp instead.
#include <memory>
#include <string>
#include <vector>

#include "engine/engine.h"

namespace vqx {

bool cuda_device_available(int device);
// The device's name, e.g. "NVIDIA H200"; empty when it is not available.
std::string cuda_device_name(int device);
std::unique_ptr<RunReport> run_cuda(FrameSource& reference, FrameSource& distorted,
                                    const std::vector<MetricRequest>& requests,
                                    const RunSettings& settings);

}  // namespace vqx
