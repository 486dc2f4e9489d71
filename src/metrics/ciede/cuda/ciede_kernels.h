#pragma once
// The device stage of the ciede CUDA twin, callable on its own so that tests can hold it to the
// CPU path (tests/gpu/ciede_cuda_test.cpp). Per luma position it writes the CPU's f32 dE00, or,
// where the bounds of bounds.cuh cannot decide that value, sets the position's bit in the
// undecided mask (its value slot then holds 0) for the host to compute with glibc.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/host_device.h"
#include "core/picture.h"

namespace vqx::ciede::cuda {

// Where a luma position's samples are, in the frame's native layout (Picture's).
struct PixelLayout {
  uint32_t width, height;
  uint32_t chroma_width;
  uint32_t shift_x, shift_y;  // ciede::chroma_shift
  uint32_t bit_depth, bytes_per_sample;
  uint64_t cb_offset, cr_offset;  // samples from the frame start
  float twenty_five_to_the_seventh;  // the CPU's powf(25, 7), as its R_T term evaluates it
  VQX_HOST_DEVICE uint64_t pixels() const { return uint64_t(width) * height; }
  // One 32-bit word of the undecided mask per 32 positions, raster order, bit i = position 32w+i.
  VQX_HOST_DEVICE uint64_t mask_words() const { return (pixels() + 31) / 32; }
};

PixelLayout make_pixel_layout(const PictureFormat& format);

// de00[p] = the CPU's dE00 of position p (raster order), or 0 with bit p of `undecided` set.
// Every mask word is written. `undecided_count` (one counter, zeroed here) receives their number.
void launch_differences(const PixelLayout& layout, const uint8_t* ref, const uint8_t* dis,
                        float* de00, uint32_t* undecided, uint32_t* undecided_count,
                        cudaStream_t stream);

}  // namespace vqx::ciede::cuda
