#include "io/cuda/cuda_calls.h"

#include <fmt/format.h>

#include "core/error.h"

namespace vqx::cuda {

void check_call(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  cudaGetLastError();
  throw RuntimeFailure(fmt::format("CUDA error in {}: {} ({})", what, cudaGetErrorString(status),
                                   cudaGetErrorName(status)));
}

OwnedEvent make_order_event() {
  cudaEvent_t event = nullptr;
  check_call(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreate");
  return OwnedEvent(event);
}

OwnedStream make_stream() {
  cudaStream_t stream = nullptr;
  check_call(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  return OwnedStream(stream);
}

}  // namespace vqx::cuda
