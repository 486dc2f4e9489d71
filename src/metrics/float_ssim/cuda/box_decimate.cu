// float_ssim's box decimation on the device (box_decimate_cuda.h): one thread per output, the
// CPU's tap order (box_decimate in float_ssim.cpp).
#include "engine/cuda/cuda_check.h"
#include "metrics/float_ssim/cuda/box_decimate_cuda.h"
#include "metrics/float_ssim/float_ssim.h"
#include "metrics/ssim_core/cuda/ssim_device.cuh"

namespace vqx::ssim::cuda {
namespace {

__global__ void box_decimate_kernel(DevicePlane in, int factor, float* out, Size small) {
  const int x = int(blockIdx.x * blockDim.x + threadIdx.x),
            y = int(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= small.width || y >= small.height) return;
  const float inverse = inverse_divisor(in.bit_depth);
  const float weight = __fdiv_rn(1.0f, float(factor * factor));  // f32, as the CPU's
  const int lo = -(factor / 2), hi = factor - 1 - factor / 2;
  double sum = 0.0;
  for (int v = lo; v <= hi; ++v) {
    const size_t row =
        size_t(reflect_index(y * factor + v, in.size.height)) * size_t(in.size.width);
    for (int u = lo; u <= hi; ++u) {
      const float p =
          load_sample(in, row + size_t(reflect_index(x * factor + u, in.size.width)), inverse);
      sum = __dadd_rn(sum, widen(__fmul_rn(p, weight)));
    }
  }
  out[size_t(y) * size_t(small.width) + size_t(x)] = __double2float_rn(sum);
}

}  // namespace

void enqueue_box_decimate(const DevicePlane& in, int factor, float* out, cudaStream_t stream) {
  const Size small = box_decimated_size(in.size, factor);
  dim3 block(32, 8);
  dim3 grid(unsigned((small.width + 31) / 32), unsigned((small.height + 7) / 8));
  box_decimate_kernel<<<grid, block, 0, stream>>>(in, factor, out, small);
  vqx::cuda::check_launch("ssim: box_decimate_kernel");
}

}  // namespace vqx::ssim::cuda
