// libswscale's scaler passes on the device. Integer sums in the order of core/scale_rounding.h's
// steps: the results are exact, so they equal libswscale's whatever the thread layout.
#include "core/scale_rounding.h"
#include "engine/cuda/cuda_check.h"
#include "engine/cuda/scale_kernels.h"

namespace vqx::cuda {
namespace {

constexpr unsigned kBlockX = 128;
constexpr unsigned kBlockY = 2;

// One thread per intermediate sample.
template <typename Sample, typename Intermediate>
__global__ void __launch_bounds__(kBlockX* kBlockY)
    horizontal_pass_kernel(const Sample* __restrict__ in, Intermediate* __restrict__ rows,
                           PlaneGeometry g, DeviceFilter filter, unsigned depth) {
  const uint32_t x = blockIdx.x * kBlockX + threadIdx.x;
  const uint32_t y = blockIdx.y * kBlockY + threadIdx.y;
  if (x >= g.out_width || y >= g.in_height) return;
  const Sample* s = in + size_t(y) * g.in_width + __ldg(filter.first + x);
  const int16_t* w = filter.weights + size_t(x) * filter.taps;
  uint32_t sum = 0;  // modulo 2^32, like libswscale's int (its sums stay inside 32 bits)
  for (uint32_t t = 0; t < filter.taps; ++t)
    sum += uint32_t(s[t]) * uint32_t(int32_t(__ldg(w + t)));
  rows[size_t(y) * g.out_width + x] = Intermediate(scale::finish_horizontal(int32_t(sum), depth));
}

template <typename Intermediate, typename Sample>
__global__ void __launch_bounds__(kBlockX* kBlockY)
    vertical_pass_kernel(const Intermediate* __restrict__ rows, Sample* __restrict__ out,
                         PlaneGeometry g, DeviceFilter filter, unsigned depth) {
  const uint32_t x = blockIdx.x * kBlockX + threadIdx.x;
  const uint32_t y = blockIdx.y * kBlockY + threadIdx.y;
  if (x >= g.out_width || y >= g.out_height) return;
  const Intermediate* r = rows + size_t(__ldg(filter.first + y)) * g.out_width + x;
  uint32_t value;
  if (filter.taps == 1) {
    value = scale::vertical_single(r[0], depth);
  } else {
    const int16_t* w = filter.weights + size_t(y) * filter.taps;
    uint32_t sum = scale::vertical_start(depth);
    for (uint32_t t = 0; t < filter.taps; ++t)
      sum += uint32_t(int32_t(r[size_t(t) * g.out_width])) * uint32_t(int32_t(__ldg(w + t)));
    value = scale::vertical_finish(sum, depth);
  }
  out[size_t(y) * g.out_width + x] = Sample(value);
}

dim3 grid_for(uint32_t width, uint32_t height) {
  return dim3((width + kBlockX - 1) / kBlockX, (height + kBlockY - 1) / kBlockY);
}

// Calls launch(Sample{}, Intermediate{}) with the types of pictures of `depth`.
template <typename Launch>
void with_sample_types(unsigned depth, Launch&& launch) {
  if (depth == 8)
    launch(uint8_t{}, int16_t{});
  else if (!scale::wide_intermediate(depth))
    launch(uint16_t{}, int16_t{});
  else
    launch(uint16_t{}, int32_t{});
}

}  // namespace

void enqueue_horizontal_pass(const uint8_t* in, void* rows, const PlaneGeometry& g,
                             const DeviceFilter& filter, unsigned depth, cudaStream_t stream) {
  with_sample_types(depth, [&](auto sample, auto intermediate) {
    horizontal_pass_kernel<<<grid_for(g.out_width, g.in_height), dim3(kBlockX, kBlockY), 0,
                             stream>>>(reinterpret_cast<const decltype(sample)*>(in),
                                       static_cast<decltype(intermediate)*>(rows), g, filter,
                                       depth);
  });
  check_launch("scale horizontal pass");
}

void enqueue_vertical_pass(const void* rows, uint8_t* out, const PlaneGeometry& g,
                           const DeviceFilter& filter, unsigned depth, cudaStream_t stream) {
  with_sample_types(depth, [&](auto sample, auto intermediate) {
    vertical_pass_kernel<<<grid_for(g.out_width, g.out_height), dim3(kBlockX, kBlockY), 0,
                           stream>>>(static_cast<const decltype(intermediate)*>(rows),
                                     reinterpret_cast<decltype(sample)*>(out), g, filter, depth);
  });
  check_launch("scale vertical pass");
}

}  // namespace vqx::cuda
