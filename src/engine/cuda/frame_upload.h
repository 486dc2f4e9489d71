#pragma once
// The step that puts a frame pair into a slot's device frame buffers, where every metric of the
// frame reads it. The pair is in Picture layout (Y, Cb, Cr back to back, tight rows, 1 or 2 bytes
// per sample): the reference at the start of the slot's buffer, the distorted picture
// frame_stride() bytes later. The engine calls read() on the host, then upload() enqueues the
// device side on the copy stream; the metrics start once that stream's work is done.
//
// InputsUpload is the step for the run's two inputs, read concurrently. An input read into host
// memory lands in the slot's pinned host buffer and is copied to the device (two such inputs of
// one size in one copy). An input whose frames are decoded into device memory (NVDEC,
// FrameSource::device_frames()) is converted from the decoder's surface into the slot's device
// buffer on the device, so its samples never cross to the host. A distorted input of another
// size (a ladder rung, with --scale) is put into a buffer of its own size first and scaled to the
// reference's on the device, as libswscale scales it (device_scaler.h).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/frame_source.h"
#include "core/picture.h"
#include "core/scale_filter.h"
#include "core/thread_pool.h"
#include "engine/cuda/device_context.h"
#include "engine/cuda/device_scaler.h"

namespace vqx::cuda {

// Bytes from a slot's reference picture to its distorted one (frame_bytes(), aligned).
size_t frame_stride(const PictureFormat& format);

class FrameUpload {
 public:
  virtual ~FrameUpload() = default;
  // Host side of frame `index`, which will run in `slot`. Returns false when an input has ended.
  virtual bool read(size_t slot, uint64_t index) = 0;
  // Enqueues on `stream` what makes `device_pair` (the slot's device buffer) hold the pair that
  // the last read() for `slot` returned.
  virtual void upload(size_t slot, uint8_t* device_pair, cudaStream_t stream) = 0;
};

class InputsUpload final : public FrameUpload {
 public:
  // `warn` hears of one input ending before the other. `scale` is required when the distorted
  // frames are of another size than the reference's; throws InputError without it.
  InputsUpload(DeviceContext& device, FrameSource& reference, FrameSource& distorted,
               size_t slot_count, std::optional<ScaleMode> scale,
               std::function<void(const std::string&)> warn);
  bool read(size_t slot, uint64_t index) override;
  void upload(size_t slot, uint8_t* device_pair, cudaStream_t stream) override;
  // Input `input`'s (0 reference, 1 distorted) picture that the last read() for `slot` put in host
  // memory, at the input's own size; null for an input decoded into device memory.
  const Picture* host_picture(size_t slot, size_t input) const;

 private:
  struct Staging {
    PinnedBuffer pair;      // reference, then distorted at staging_stride_
    Picture pictures[2];    // reference, distorted (each at its own size)
  };
  // Enqueues what writes input i's picture of `slot` (at its own size) into `out`.
  void upload_input(size_t i, size_t slot, uint8_t* out, cudaStream_t stream);

  FrameSource* inputs_[2];
  DeviceFrames* device_frames_[2];  // each input's frames in device memory, or null (host input)
  std::function<void(const std::string&)> warn_;
  ThreadPool readers_;  // reads the distorted input while the calling thread reads the reference
  size_t stride_ = 0;           // of the reference's format: the slot's device pair
  size_t staging_stride_ = 0;   // of the larger of the two formats: the slot's host pair
  std::vector<Staging> slots_;
  std::optional<DeviceScaler> scaler_;  // set when the distorted frames are of another size
  DeviceBuffer rung_;                   // a distorted frame at its own size, before scaling
};

}  // namespace vqx::cuda
