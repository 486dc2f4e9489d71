// Stage 3 of the psnr_hvs twin: each plane's f32 running sum of its nonzero terms, in the CPU's
// order (blocks in raster order, 64 terms each). A running float sum cannot be reassociated
// without changing bits, so one thread adds every kept term in order. The other warps of its
// thread block stage the next chunk into shared memory meanwhile (coalesced), so the adding
// thread reads shared memory only and its chain of dependent adds is the whole cost.
#include "engine/cuda/cuda_check.h"
#include "metrics/psnr_hvs/cuda/psnr_hvs_kernels.h"

namespace vqx::psnr_hvs::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kChunk = 4096;  // floats per staged chunk; two chunks of shared memory (32 KB)

__device__ void stage_chunk(const float* src, uint64_t count, float* dst, unsigned first_thread) {
  for (uint64_t i = threadIdx.x - first_thread; i < count; i += kThreads - first_thread)
    dst[i] = src[i];
}

__global__ void __launch_bounds__(kThreads)
    plane_sums_kernel(FrameBlocks layout, const float* kept, const long long* counts,
                      float* scores) {
  __shared__ float chunk[2][kChunk];
  const PlaneBlocks& plane = layout.plane[blockIdx.x];
  const float* src = kept + plane.first_block * 64;
  const uint64_t n = uint64_t(counts[blockIdx.x]);
  const uint64_t chunks = (n + kChunk - 1) / kChunk;
  auto chunk_size = [&](uint64_t c) { return c + 1 < chunks ? uint64_t(kChunk) : n - c * kChunk; };

  if (chunks > 0) stage_chunk(src, chunk_size(0), chunk[0], 0);
  __syncthreads();
  float sum = 0;
  for (uint64_t c = 0; c < chunks; ++c) {
    // Warp 0 adds chunk c while warps 1.. stage chunk c + 1.
    if (threadIdx.x >= 32) {
      if (c + 1 < chunks)
        stage_chunk(src + (c + 1) * kChunk, chunk_size(c + 1), chunk[(c + 1) & 1], 32);
    } else if (threadIdx.x == 0) {
      const float* values = chunk[c & 1];
      const uint64_t size = chunk_size(c);
      for (uint64_t i = 0; i < size; ++i) sum = __fadd_rn(sum, values[i]);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) scores[blockIdx.x] = finish_plane_sum(sum, plane.blocks, layout.bit_depth);
}

}  // namespace

void launch_plane_sums(const FrameBlocks& layout, const NonzeroScratch& scratch, float* scores,
                       cudaStream_t stream) {
  plane_sums_kernel<<<3, kThreads, 0, stream>>>(layout, scratch.kept, scratch.counts, scores);
  vqx::cuda::check_launch("psnr_hvs: plane_sums_kernel");
}

}  // namespace vqx::psnr_hvs::cuda
