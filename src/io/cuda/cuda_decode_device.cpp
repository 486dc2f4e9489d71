#include "io/cuda/cuda_decode_device.h"

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/hwcontext_cuda.h>
}
#include <cuda.h>
#include <fmt/format.h>

#include "core/error.h"
#include "io/av_support.h"

namespace vqx::cuda {
namespace {

// The runtime's current context (its primary context of the current device), through the driver
// entry point the runtime hands out: vqx does not link the driver library itself.
CUcontext current_context() {
  using GetCurrent = CUresult (*)(CUcontext*);
  void* entry = nullptr;
  cudaDriverEntryPointQueryResult found{};
  check_call(
      cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &entry, 12000, cudaEnableDefault, &found),
      "cudaGetDriverEntryPoint");
  CUcontext context = nullptr;
  if (found != cudaDriverEntryPointSuccess || !entry ||
      reinterpret_cast<GetCurrent>(entry)(&context) != CUDA_SUCCESS || !context)
    throw RuntimeFailure("NVDEC: cannot find vqx's CUDA context");
  return context;
}

}  // namespace

CudaDecodeDevice::CudaDecodeDevice(int gpu) : gpu_(gpu) {
  check_call(cudaSetDevice(gpu), "cudaSetDevice");
  check_call(cudaFree(nullptr), "CUDA initialisation");  // makes the primary context current
  stream_ = make_stream();
  device_ = av_hwdevice_ctx_alloc(AV_HWDEVICE_TYPE_CUDA);
  if (!device_) throw RuntimeFailure("NVDEC: out of memory");
  auto* cuda =
      static_cast<AVCUDADeviceContext*>(reinterpret_cast<AVHWDeviceContext*>(device_->data)->hwctx);
  cuda->cuda_ctx = current_context();  // borrowed: FFmpeg does not destroy a context it was given
  cuda->stream = stream_.get();
  if (int ret = av_hwdevice_ctx_init(device_); ret < 0) {
    av_buffer_unref(&device_);
    throw RuntimeFailure(
        fmt::format("NVDEC: FFmpeg cannot use the CUDA device {}: {}", gpu, av::error_text(ret)));
  }
}

CudaDecodeDevice::~CudaDecodeDevice() { av_buffer_unref(&device_); }

}  // namespace vqx::cuda
