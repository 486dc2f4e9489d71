#pragma once
// --scale on the device: pictures in device memory (Picture layout) resized to another size
// exactly as libswscale does it (core/scale_filter.h), so that --backend cuda scores the pixels
// `ffmpeg -vf scale=W:H:flags=<mode>+accurate_rnd+bitexact` would give. Filters are built on the
// host and uploaded once per geometry; each frame is two passes per plane on the caller's stream.
#include <cuda_runtime.h>

#include <vector>

#include "core/picture.h"
#include "core/scale_filter.h"
#include "engine/cuda/device_context.h"
#include "engine/cuda/scale_kernels.h"

namespace vqx::cuda {

class DeviceScaler {
 public:
  // Throws InputError for what build_plane_filters rejects.
  DeviceScaler(DeviceContext& context, const PictureFormat& in, const PictureFormat& out,
               ScaleMode mode);

  const PictureFormat& input_format() const { return in_; }
  const PictureFormat& output_format() const { return out_; }

  // Enqueues the scale of the picture at `in` into `out` (both device memory) on `stream`.
  // Successive calls on one stream may reuse the scaler; calls on different streams may not.
  void enqueue(const uint8_t* in, uint8_t* out, cudaStream_t stream) const;

 private:
  struct Plane {
    PlaneGeometry geometry;
    DeviceFilter horizontal, vertical;
  };
  PictureFormat in_, out_;
  std::vector<Plane> planes_;
  DeviceBuffer filters_;  // every plane's positions and weights
  DeviceBuffer rows_;     // the intermediate rows of the largest plane
};

}  // namespace vqx::cuda
