// Stage 2 of the psnr_hvs twin: each plane's terms without the exact zeros (the masked AC
// coefficients, three quarters of the terms on the fixtures), in order, so that the sequential
// plane sum adds only the rest. CUB's DeviceSelect is stable: the kept terms keep their order.
#include <cub/cub.cuh>

#include "engine/cuda/cuda_check.h"
#include "metrics/psnr_hvs/cuda/psnr_hvs_kernels.h"

namespace vqx::psnr_hvs::cuda {
namespace {

struct NotZero {
  __device__ bool operator()(float v) const { return v != 0.0f; }
};

}  // namespace

size_t nonzero_temp_bytes(const FrameBlocks& layout) {
  size_t largest = 0;
  for (const PlaneBlocks& plane : layout.plane) {
    size_t bytes = 0;
    vqx::cuda::check(
        cub::DeviceSelect::If(nullptr, bytes, static_cast<const float*>(nullptr),
                              static_cast<float*>(nullptr), static_cast<long long*>(nullptr),
                              int64_t(plane.blocks * 64), NotZero{}),
        "psnr_hvs: nonzero temp size");
    largest = bytes > largest ? bytes : largest;
  }
  return largest;
}

void launch_nonzero(const FrameBlocks& layout, const float* terms, const NonzeroScratch& scratch,
                    cudaStream_t stream) {
  for (unsigned p = 0; p < 3; ++p) {
    const PlaneBlocks& plane = layout.plane[p];
    size_t bytes = scratch.temp_bytes;
    vqx::cuda::check(
        cub::DeviceSelect::If(scratch.temp, bytes, terms + plane.first_block * 64,
                              scratch.kept + plane.first_block * 64, scratch.counts + p,
                              int64_t(plane.blocks * 64), NotZero{}, stream),
        "psnr_hvs: nonzero select");
  }
}

}  // namespace vqx::psnr_hvs::cuda
