#include "engine/cuda/device_context.h"

#include <fmt/format.h>

#include "engine/cuda/cuda_check.h"
#include "core/error.h"

namespace vqx::cuda {

void throw_cuda_error(cudaError_t error, const std::string& what) {
  throw RuntimeFailure(fmt::format("CUDA error in {}: {} ({})", what, cudaGetErrorString(error),
                                   cudaGetErrorName(error)));
}

DeviceContext::DeviceContext(int device) : device_(device) {
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();
    throw RuntimeFailure(fmt::format("--backend cuda: no usable CUDA device ({})",
                                     cudaGetErrorString(status)));
  }
  if (device < 0 || device >= count)
    throw RuntimeFailure(fmt::format("--gpu {}: no such CUDA device (this machine has {})", device,
                                     count));
  check(cudaSetDevice(device), "cudaSetDevice");
  check(cudaGetDeviceProperties(&properties_, device), "cudaGetDeviceProperties");
}

std::string DeviceContext::describe() const {
  return fmt::format("device {} ({})", device_, properties_.name);
}

void* DeviceContext::allocate(size_t bytes, const char* what) {
  void* pointer = nullptr;
  cudaError_t status = cudaMalloc(&pointer, bytes == 0 ? 1 : bytes);
  if (status != cudaSuccess) {
    cudaGetLastError();  // allocation failures are not sticky; clear the error state
    size_t free_bytes = 0, total_bytes = 0;
    cudaMemGetInfo(&free_bytes, &total_bytes);
    throw DeviceMemoryExhausted(fmt::format(
        "CUDA {}: cannot allocate {:.1f} MiB for {} ({}; {:.1f} of {:.1f} MiB free)", describe(),
        double(bytes) / (1 << 20), what, cudaGetErrorString(status), double(free_bytes) / (1 << 20),
        double(total_bytes) / (1 << 20)));
  }
  in_use_ += bytes;
  if (in_use_ > peak_) peak_ = in_use_;
  return pointer;
}

void DeviceContext::release(void* pointer, size_t bytes) {
  cudaFree(pointer);  // no throw from destructors; a broken context reports at the next check
  in_use_ -= bytes;
}

PinnedBuffer::PinnedBuffer(size_t bytes, const char* what) : bytes_(bytes) {
  void* pointer = nullptr;
  cudaError_t status = cudaMallocHost(&pointer, bytes == 0 ? 1 : bytes);
  if (status != cudaSuccess) {
    cudaGetLastError();
    throw RuntimeFailure(fmt::format("CUDA: cannot allocate {:.1f} MiB of pinned host memory for {} ({})",
                                     double(bytes) / (1 << 20), what, cudaGetErrorString(status)));
  }
  data_ = static_cast<uint8_t*>(pointer);
}

PinnedBuffer::~PinnedBuffer() {
  if (data_) cudaFreeHost(data_);
}

Event::Event(bool timing) {
  check(cudaEventCreateWithFlags(&event_, timing ? cudaEventDefault : cudaEventDisableTiming),
        "cudaEventCreate");
}
Event::~Event() {
  if (event_) cudaEventDestroy(event_);
}

Stream::Stream(Priority priority) {
  if (priority == Priority::kDefault) {
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    return;
  }
  int least = 0, greatest = 0;
  check(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
  check(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, greatest), "cudaStreamCreate");
}
Stream::~Stream() {
  if (stream_) cudaStreamDestroy(stream_);
}

GraphExec::~GraphExec() {
  if (exec_) cudaGraphExecDestroy(exec_);
}

GraphExec GraphExec::capture(cudaStream_t stream, const std::function<void()>& enqueue) {
  cudaGraph_t graph = nullptr;
  check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "graph capture");
  try {
    enqueue();
  } catch (...) {
    cudaStreamEndCapture(stream, &graph);
    if (graph) cudaGraphDestroy(graph);
    throw;
  }
  check(cudaStreamEndCapture(stream, &graph), "graph capture");
  GraphExec result;
  cudaError_t status = cudaGraphInstantiate(&result.exec_, graph, 0);
  cudaGraphDestroy(graph);
  check(status, "cudaGraphInstantiate");
  return result;
}

void GraphExec::launch(cudaStream_t stream) const {
  check(cudaGraphLaunch(exec_, stream), "cudaGraphLaunch");
}

float elapsed_ms(const Event& begin, const Event& end) {
  float ms = 0;
  check(cudaEventElapsedTime(&ms, begin.get(), end.get()), "cudaEventElapsedTime");
  return ms;
}

void copy_to_device_now(void* device_dst, const void* host_src, size_t bytes, const char* what) {
  check(cudaMemcpy(device_dst, host_src, bytes, cudaMemcpyHostToDevice), what);
  check(cudaStreamSynchronize(cudaStreamLegacy), what);
}

void clear_device_now(void* device_dst, size_t bytes, const char* what) {
  check(cudaMemset(device_dst, 0, bytes), what);
  check(cudaStreamSynchronize(cudaStreamLegacy), what);
}

}  // namespace vqx::cuda
