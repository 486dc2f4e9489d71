#pragma once
// The three stages of the psnr_hvs CUDA twin, callable on their own so that tests can hold each
// to the CPU path (tests/gpu/psnr_hvs_cuda_test.cpp):
//   block_terms  every block's 64 terms, one thread per block, with the CPU's psnr_hvs_block.h
//   nonzero      each plane's terms without the exact zeros, in order (CUB's stable select):
//                the terms are +0 or positive and the running sum starts at +0, so adding a +0
//                never changes it, and dropping them leaves every partial sum as it was
//   plane_sums   each plane's f32 running sum of what remains, in the CPU's order, finished as
//                the CPU does (finish_plane_sum, over all of the plane's terms), one thread
//                block per plane
// All only enqueue on the stream they are given.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/picture.h"
#include "metrics/psnr_hvs/psnr_hvs_block.h"

namespace vqx::psnr_hvs::cuda {

// Where one plane's samples and terms are: the frame's native layout (Picture's), tight rows.
struct PlaneBlocks {
  uint64_t offset;       // bytes from the frame start to the plane's first sample
  uint32_t stride;       // samples per row
  uint32_t columns;      // blocks per row
  uint64_t first_block;  // index of the plane's first block in the terms buffer
  uint64_t blocks;       // columns * rows
};

struct FrameBlocks {
  PlaneBlocks plane[3];
  BlockWeights weights[3];
  uint32_t bytes_per_sample;
  uint32_t bit_depth;
  VQX_HOST_DEVICE uint64_t total_blocks() const { return plane[2].first_block + plane[2].blocks; }
};

// The layout of `format`'s three planes, blocks of plane 0 first, then 1, then 2.
FrameBlocks make_frame_blocks(const PictureFormat& format);

// terms[64 * b + k] = term k of block b, for every block of the three planes.
void launch_block_terms(const FrameBlocks& layout, const uint8_t* ref, const uint8_t* dis,
                        float* terms, cudaStream_t stream);

// Device scratch of the nonzero stage: the kept terms (the planes at their blocks' offsets), the
// number kept per plane and CUB's temporary storage.
struct NonzeroScratch {
  float* kept = nullptr;        // total_blocks() * 64 floats
  long long* counts = nullptr;  // 3
  void* temp = nullptr;
  size_t temp_bytes = 0;
};
// Bytes of CUB temporary storage the nonzero stage needs for `layout` (host only).
size_t nonzero_temp_bytes(const FrameBlocks& layout);

void launch_nonzero(const FrameBlocks& layout, const float* terms, const NonzeroScratch& scratch,
                    cudaStream_t stream);

// scores[p] = finish_plane_sum(running sum of plane p's kept terms), f32.
void launch_plane_sums(const FrameBlocks& layout, const NonzeroScratch& scratch, float* scores,
                       cudaStream_t stream);

}  // namespace vqx::psnr_hvs::cuda
