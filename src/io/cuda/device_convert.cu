// convert_planes on the device: each thread moves a few consecutive samples of one plane row.
#include "io/cuda/cuda_calls.h"
#include "io/cuda/device_convert.h"

namespace vqx::cuda {
namespace {

constexpr unsigned kBlockX = 64, kBlockY = 4;
constexpr unsigned kSamplesPerThread = 4;

struct PlaneJob {
  const uint8_t* source;  // the component's first sample (plane start plus offset)
  long long stride;       // bytes between rows; negative for frames stored bottom up
  uint32_t step;          // bytes between samples of a row
  uint32_t width, height;
  unsigned long long out_offset;  // bytes from the picture start
};

struct ConvertJob {
  PlaneJob planes[3];
  uint32_t in_bytes, shift;
  bool big_endian;
};

template <typename Out>
__global__ void __launch_bounds__(kBlockX* kBlockY)
    convert_kernel(ConvertJob job, uint8_t* __restrict__ out) {
  const PlaneJob& p = job.planes[blockIdx.z];
  const uint32_t y = blockIdx.y * kBlockY + threadIdx.y;
  const uint32_t x0 = (blockIdx.x * kBlockX + threadIdx.x) * kSamplesPerThread;
  if (y >= p.height || x0 >= p.width) return;
  const uint8_t* row = p.source + (long long)y * p.stride;
  Out* dst = reinterpret_cast<Out*>(out + p.out_offset) + size_t(y) * p.width;
  const uint32_t end = min(x0 + kSamplesPerThread, p.width);
  for (uint32_t x = x0; x < end; ++x) {
    const uint8_t* s = row + size_t(x) * p.step;
    uint32_t raw;
    if (job.in_bytes == 1)
      raw = s[0];
    else if (job.big_endian)
      raw = (uint32_t(s[0]) << 8) | s[1];
    else
      raw = s[0] | (uint32_t(s[1]) << 8);
    dst[x] = Out(raw >> job.shift);
  }
}

}  // namespace

void enqueue_convert_planes(const DecodedPlanes& planes, const SampleLayout& layout,
                            const PictureFormat& format, uint8_t* out, cudaStream_t stream) {
  ConvertJob job{};
  job.in_bytes = layout.bytes_per_sample;
  job.shift = layout.shift;
  job.big_endian = layout.big_endian;
  uint32_t widest = 0, tallest = 0;
  const unsigned count = format.plane_count();
  for (unsigned p = 0; p < count; ++p) {
    const SampleLayout::Component& c = layout.components[p];
    PlaneJob& j = job.planes[p];
    j.source = planes.data[c.plane] + c.offset;
    j.stride = planes.stride[c.plane];
    j.step = c.step;
    j.width = format.plane_width(p);
    j.height = format.plane_height(p);
    j.out_offset = format.plane_offset(p);
    widest = std::max(widest, j.width);
    tallest = std::max(tallest, j.height);
  }
  const unsigned per_block = kBlockX * kSamplesPerThread;
  const dim3 grid((widest + per_block - 1) / per_block, (tallest + kBlockY - 1) / kBlockY, count);
  if (format.bytes_per_sample() == 1)
    convert_kernel<uint8_t><<<grid, dim3(kBlockX, kBlockY), 0, stream>>>(job, out);
  else
    convert_kernel<uint16_t><<<grid, dim3(kBlockX, kBlockY), 0, stream>>>(job, out);
  check_call(cudaGetLastError(), "decoded frame conversion");
}

}  // namespace vqx::cuda
