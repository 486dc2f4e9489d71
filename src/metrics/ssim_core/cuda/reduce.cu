// The per-scale sums (spec 4.3) from the window tiles' partials: one block per (scale, quantity),
// a fixed tree of double-double sums whose shape depends only on the plane sizes.
#include "engine/cuda/cuda_check.h"
#include "metrics/ssim_core/cuda/ssim_device.cuh"

namespace vqx::ssim::cuda {
namespace {

// Threads per tree: many partials per thread would be a long chain of dependent loads.
constexpr int kReduceThreads = 1024;

struct ReduceTable {
  const PartialSum* partials[kMaxJobs];
  int count[kMaxJobs];
};

// Thread i adds partials i, i + kReduceThreads, ... in order, then the block's tree.
__global__ void __launch_bounds__(kReduceThreads)
    reduce_kernel(const __grid_constant__ ReduceTable t, double* sums) {
  __shared__ DoubleDouble red[kReduceThreads];
  const int j = int(blockIdx.x) / kSumQuantities, q = int(blockIdx.x) % kSumQuantities;
  DoubleDouble acc = {0.0, 0.0};
#pragma unroll 4
  for (int i = int(threadIdx.x); i < t.count[j]; i += kReduceThreads) {
    const PartialSum p = t.partials[j][size_t(i) * kSumQuantities + q];
    acc = dd_sum(acc, {p.hi, p.lo});
  }
  red[threadIdx.x] = acc;
  __syncthreads();
  for (int stride = kReduceThreads / 2; stride > 0; stride >>= 1) {
    if (int(threadIdx.x) < stride)
      red[threadIdx.x] = dd_sum(red[threadIdx.x], red[threadIdx.x + stride]);
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[j * kSumQuantities + q] = __dadd_rn(red[0].hi, red[0].lo);
}

}  // namespace

void enqueue_reduce(const Size* sizes, int count, PartialSum* const* partials, double* sums,
                    cudaStream_t stream) {
  ReduceTable t{};
  for (int j = 0; j < count; ++j) {
    t.partials[j] = partials[j];
    t.count[j] = int(partial_count(sizes[j]));
  }
  reduce_kernel<<<unsigned(count * kSumQuantities), kReduceThreads, 0, stream>>>(t, sums);
  vqx::cuda::check_launch("ssim: reduce_kernel");
}

}  // namespace vqx::ssim::cuda
