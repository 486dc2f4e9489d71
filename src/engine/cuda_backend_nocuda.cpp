#include "engine/cuda_backend.h"
#include "core/error.h"

namespace vqx {

bool cuda_device_available(int) { return false; }

std::string cuda_device_name(int) { return {}; }

std::unique_ptr<RunReport> run_cuda(FrameSource&, FrameSource&, const std::vector<MetricRequest>&,
                                    const RunSettings&) {
  throw RuntimeFailure("--backend cuda: this vqx was built without CUDA (configure with VQX_CUDA=ON)");
}

}  // namespace vqx
