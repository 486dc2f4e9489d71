#pragma once
// The two passes of libswscale's scaler on the device, one plane at a time (launchers; kernels in
// scale_kernels.cu). Arithmetic: core/scale_rounding.h, shared with the plain model.
#include <cuda_runtime.h>

#include <cstdint>

namespace vqx::cuda {

// A filter's taps in device memory (core/scale_filter.h's ScaleFilter).
struct DeviceFilter {
  const int32_t* first = nullptr;
  const int16_t* weights = nullptr;
  uint32_t taps = 0;
};

struct PlaneGeometry {
  uint32_t in_width = 0, in_height = 0, out_width = 0, out_height = 0;
};

// Every input row of `in` (in_width x in_height samples of 1 or 2 bytes, tight rows) to
// out_width intermediates per row in `rows` (int16_t, or int32_t for depth 16).
void enqueue_horizontal_pass(const uint8_t* in, void* rows, const PlaneGeometry& g,
                             const DeviceFilter& filter, unsigned depth, cudaStream_t stream);

// The intermediates to out_width x out_height samples of `out`.
void enqueue_vertical_pass(const void* rows, uint8_t* out, const PlaneGeometry& g,
                           const DeviceFilter& filter, unsigned depth, cudaStream_t stream);

}  // namespace vqx::cuda
