// Stage 4 of SSIMULACRA 2 on the device, once per frame: the block partials of each (scale,
// channel, sum) added in a fixed order in double-double and rounded to f64 once (spec 15.2). The
// 108 sums are the frame's only readback; pool_score() runs on the host.
#include "engine/cuda/cuda_check.h"
#include "metrics/ssimulacra2/cuda/device_math.cuh"

namespace vqx::ssimulacra2::cuda {
namespace {

// Block (scale, channel), thread s: the column strips' partials of accumulator s in strip order.
__global__ void reduce_kernel(const Dd* __restrict__ partials, ScaleTable table,
                              double* __restrict__ result) {
  const int scale = blockIdx.x, c = blockIdx.y, s = threadIdx.x;
  if (s >= kSums) return;
  double value = 0.0;
  if (scale < table.scales) {
    const uint32_t strips = table.strips[scale];
    const Dd* p = partials + table.partial_offset[scale] + size_t(c) * strips * kSums + s;
    Dd total = p[0];
    for (uint32_t i = 1; i < strips; ++i) total = dd_add(total, p[size_t(i) * kSums]);
    value = __dadd_rn(total.hi, total.lo);
  }
  result[(scale * 3 + c) * kSums + s] = value;
}

}  // namespace

void launch_reduce(const Dd* partials, const ScaleTable& table, double* result,
                   cudaStream_t stream) {
  reduce_kernel<<<dim3(kNumScales, 3), 32, 0, stream>>>(partials, table, result);
  vqx::cuda::check_launch("ssimulacra2: reduce_kernel");
}

}  // namespace vqx::ssimulacra2::cuda
