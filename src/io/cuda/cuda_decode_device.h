#pragma once
// FFmpeg's CUDA device (an AVHWDeviceContext) made from vqx's own CUDA context, the runtime's
// primary context of the GPU, so that NVDEC decodes into the memory the metrics read. Each
// decoder gets one of its own, for a stream of its own: libavcodec copies every decoded picture
// out of NVDEC on the device's stream, and frames of different decoders do not wait for each other.
extern "C" {
#include <libavutil/buffer.h>
}
#include <cuda_runtime.h>

#include "io/cuda/cuda_calls.h"

namespace vqx::cuda {

class CudaDecodeDevice {
 public:
  // Makes `gpu` current on the calling thread. Throws RuntimeFailure when it cannot be used.
  explicit CudaDecodeDevice(int gpu);
  ~CudaDecodeDevice();
  CudaDecodeDevice(const CudaDecodeDevice&) = delete;
  CudaDecodeDevice& operator=(const CudaDecodeDevice&) = delete;

  int gpu() const { return gpu_; }
  AVBufferRef* device() const { return device_; }
  // Where the decoded pictures are written; work that reads a frame waits for it on this stream.
  cudaStream_t stream() const { return stream_.get(); }

 private:
  int gpu_;
  OwnedStream stream_;
  AVBufferRef* device_ = nullptr;
};

}  // namespace vqx::cuda
