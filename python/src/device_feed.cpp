// The CUDA steps of frames that a vqx.Scorer reads in device memory (frame_feed.h).
#include <fmt/format.h>

#include "core/error.h"
#include "frame_feed.h"

#ifdef VQX_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace vqx::python::device {

#ifdef VQX_HAVE_CUDA
namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw RuntimeFailure(fmt::format("CUDA error in {}: {}", what, cudaGetErrorString(status)));
}

// Makes `gpu` the calling thread's device for a scope: the caller's framework (torch, cupy)
// keeps its own notion of the current device, which is restored afterwards.
class DeviceScope {
 public:
  explicit DeviceScope(int gpu) {
    check(cudaGetDevice(&previous_), "cudaGetDevice");
    if (previous_ != gpu) check(cudaSetDevice(gpu), "cudaSetDevice");
  }
  ~DeviceScope() { cudaSetDevice(previous_); }

 private:
  int previous_ = 0;
};

}  // namespace

bool built() { return true; }

void* record_ready(int gpu, uintptr_t stream) {
  DeviceScope scope(gpu);
  cudaEvent_t event = nullptr;
  check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreate");
  const cudaError_t status = cudaEventRecord(event, reinterpret_cast<cudaStream_t>(stream));
  if (status != cudaSuccess) {
    cudaEventDestroy(event);
    check(status, "recording the frame's stream (is `stream` a CUDA stream of this device?)");
  }
  return event;
}

void* enqueue_copy(const DeviceFrame& frame, const PictureFormat& format, uint8_t* out, void* stream) {
  auto s = static_cast<cudaStream_t>(stream);
  check(cudaStreamWaitEvent(s, static_cast<cudaEvent_t>(frame.ready), 0), "waiting for the frame's stream");
  for (unsigned p = 0; p < format.plane_count(); ++p) {
    const size_t row = size_t{format.plane_width(p)} * format.bytes_per_sample();
    check(cudaMemcpy2DAsync(out + format.plane_offset(p), row, frame.planes[p], frame.pitch[p], row,
                            format.plane_height(p), cudaMemcpyDeviceToDevice, s),
          "device frame copy");
  }
  cudaEvent_t copied = nullptr;
  check(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming), "cudaEventCreate");
  check(cudaEventRecord(copied, s), "cudaEventRecord");
  return copied;
}

void release(const ReleasedFrame& frame) {
  if (frame.copied) {
    cudaEventSynchronize(static_cast<cudaEvent_t>(frame.copied));
    cudaEventDestroy(static_cast<cudaEvent_t>(frame.copied));
  }
  if (frame.ready) cudaEventDestroy(static_cast<cudaEvent_t>(frame.ready));
}

#else

bool built() { return false; }

void* record_ready(int, uintptr_t) {
  throw RuntimeFailure("device arrays need the CUDA backend, and this vqx was built without CUDA");
}

void* enqueue_copy(const DeviceFrame&, const PictureFormat&, uint8_t*, void*) {
  throw RuntimeFailure("device arrays need the CUDA backend, and this vqx was built without CUDA");
}

void release(const ReleasedFrame&) {}

#endif

}  // namespace vqx::python::device
