// Stage 1 of the psnr_hvs twin: each thread computes one 8x8 block's 64 terms with the CPU's own
// code (psnr_hvs_block.h). Integer DCT, IEEE f32 arithmetic in the CPU's order (--fmad=false)
// and the f64 square root and division of the masking threshold: the same bits as the CPU.
#include "engine/cuda/cuda_check.h"
#include "metrics/psnr_hvs/cuda/psnr_hvs_kernels.h"
#include "metrics/psnr_hvs/psnr_hvs_math.h"

namespace vqx::psnr_hvs::cuda {
namespace {

constexpr int kThreads = 128;

template <typename Sample>
__global__ void __launch_bounds__(kThreads)
    block_terms_kernel(FrameBlocks layout, const uint8_t* ref, const uint8_t* dis, float* terms) {
  const uint64_t block = uint64_t(blockIdx.x) * kThreads + threadIdx.x;
  if (block >= layout.total_blocks()) return;
  const unsigned p = block >= layout.plane[2].first_block   ? 2
                     : block >= layout.plane[1].first_block ? 1
                                                            : 0;
  const PlaneBlocks& plane = layout.plane[p];
  const uint64_t local = block - plane.first_block;
  const uint64_t by = local / plane.columns, bx = local % plane.columns;
  const size_t start = (by * kStep) * plane.stride + bx * kStep;
  const Sample* r = reinterpret_cast<const Sample*>(ref + plane.offset) + start;
  const Sample* d = reinterpret_cast<const Sample*>(dis + plane.offset) + start;
  block_terms(r, d, plane.stride, layout.weights[p], terms + block * 64);
}

}  // namespace

FrameBlocks make_frame_blocks(const PictureFormat& format) {
  FrameBlocks layout{};
  uint64_t first = 0;
  for (unsigned p = 0; p < 3; ++p) {
    const BlockGrid grid = block_grid(format.plane_width(p), format.plane_height(p));
    layout.plane[p] = {format.plane_offset(p), format.plane_width(p), grid.columns, first,
                       grid.count()};
    layout.weights[p] = plane_weights(p);
    first += grid.count();
  }
  layout.bytes_per_sample = format.bytes_per_sample();
  layout.bit_depth = format.bit_depth;
  return layout;
}

void launch_block_terms(const FrameBlocks& layout, const uint8_t* ref, const uint8_t* dis,
                        float* terms, cudaStream_t stream) {
  const unsigned grid = unsigned((layout.total_blocks() + kThreads - 1) / kThreads);
  if (layout.bytes_per_sample == 1)
    block_terms_kernel<uint8_t><<<grid, kThreads, 0, stream>>>(layout, ref, dis, terms);
  else
    block_terms_kernel<uint16_t><<<grid, kThreads, 0, stream>>>(layout, ref, dis, terms);
  vqx::cuda::check_launch("psnr_hvs: block_terms_kernel");
}

}  // namespace vqx::psnr_hvs::cuda
