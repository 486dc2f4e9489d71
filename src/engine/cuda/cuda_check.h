#pragma once
// Turns CUDA status codes into vqx::RuntimeFailure with a one-line message. Every CUDA call in
// the backend goes through check(); kernel launches are followed by check_launch().
#include <cuda_runtime.h>

#include <string>

namespace vqx::cuda {

[[noreturn]] void throw_cuda_error(cudaError_t error, const std::string& what);

inline void check(cudaError_t error, const char* what) {
  if (error != cudaSuccess) throw_cuda_error(error, what);
}

// After a kernel launch (also inside stream capture, where launch errors surface the same way).
inline void check_launch(const char* kernel) { check(cudaGetLastError(), kernel); }

// Lets `kernel` launch with `bytes` of dynamic shared memory (beyond the 48 KB default).
template <class Kernel>
void allow_dynamic_smem(Kernel* kernel, size_t bytes, const char* what) {
  check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)), what);
}

}  // namespace vqx::cuda
