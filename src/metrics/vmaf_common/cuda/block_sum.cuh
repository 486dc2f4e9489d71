#pragma once
// Exact block sums of 64-bit integers for the VMAF CUDA twins (shared/spec/README.md rule 5:
// integer reductions, any order, same result). Warp shuffles, one shared slot per warp, then one
// integer atomic per value and block.
#include <cuda_runtime.h>

namespace vqx::vmaf_cuda {

// Adds v[0..N) of every thread of the block into target[0..N). All threads of the block must call
// it (it synchronises); blockDim.x * blockDim.y * blockDim.z must be a multiple of 32, at most 1024.
template <int N>
__device__ __forceinline__ void block_add(unsigned long long (&v)[N],
                                          unsigned long long* target) {
  __shared__ unsigned long long warp_sums[32][N];
  const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned lane = tid % 32, warp = tid / 32;
#pragma unroll
  for (int n = 0; n < N; ++n)
    for (int shift = 16; shift > 0; shift >>= 1) v[n] += __shfl_down_sync(0xffffffffu, v[n], shift);
  if (lane == 0)
#pragma unroll
    for (int n = 0; n < N; ++n) warp_sums[warp][n] = v[n];
  __syncthreads();
  if (warp == 0) {
#pragma unroll
    for (int n = 0; n < N; ++n) {
      unsigned long long s = lane < threads / 32 ? warp_sums[lane][n] : 0;
      for (int shift = 16; shift > 0; shift >>= 1) s += __shfl_down_sync(0xffffffffu, s, shift);
      if (lane == 0 && s != 0) atomicAdd(target + n, s);
    }
  }
}

// libvmaf's mirror of VIF and motion (vmaf.md 2.3): -k for k < 0, 2(n-1)-k for k >= n. Tiles that
// reach past the picture ask for positions whose values are never used; those are clamped so
// that every read stays inside the plane.
__device__ __forceinline__ int mirror_index(int k, int n) {
  if (k < 0) k = -k;
  if (k >= n) k = 2 * (n - 1) - k;
  return k < 0 ? 0 : (k >= n ? n - 1 : k);
}

}  // namespace vqx::vmaf_cuda
