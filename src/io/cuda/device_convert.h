#pragma once
// Decoded frames in device memory (NVDEC's NV12, P010 and P016 surfaces, its 4:4:4 ones, or any
// other layout io/pixel_convert.h takes) into vqx's Picture layout in device memory: the device
// twin of convert_planes, sample for sample.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/picture.h"
#include "io/pixel_convert.h"

namespace vqx::cuda {

// Enqueues on `stream` the conversion of `planes` (device pointers, laid out as `layout`, at the
// size of `format`) into `out` (device memory, a Picture of `format`).
void enqueue_convert_planes(const DecodedPlanes& planes, const SampleLayout& layout,
                            const PictureFormat& format, uint8_t* out, cudaStream_t stream);

}  // namespace vqx::cuda
