#pragma once
// The CUDA runtime calls of the decoders' device side: errors as RuntimeFailure; owned events
// and streams.
#include <cuda_runtime.h>

#include <memory>
#include <type_traits>

namespace vqx::cuda {

// Throws RuntimeFailure naming `what` when `status` is an error.
void check_call(cudaError_t status, const char* what);

struct EventDestroyer {
  void operator()(cudaEvent_t event) const { cudaEventDestroy(event); }
};
using OwnedEvent = std::unique_ptr<std::remove_pointer_t<cudaEvent_t>, EventDestroyer>;
// An event that only orders streams (no timing).
OwnedEvent make_order_event();

struct StreamDestroyer {
  void operator()(cudaStream_t stream) const { cudaStreamDestroy(stream); }
};
using OwnedStream = std::unique_ptr<std::remove_pointer_t<cudaStream_t>, StreamDestroyer>;
// A stream that does not synchronise with the legacy default stream.
OwnedStream make_stream();

}  // namespace vqx::cuda
