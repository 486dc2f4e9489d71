#pragma once
// The step that puts a frame pair into a slot's device frame buffers, where every metric of the
// frame reads it. The pair is in Picture layout (Y, Cb, Cr back to back, tight rows, 1 or 2 bytes
// per sample): the reference at the start of the slot's buffer, the distorted picture
// frame_stride() bytes later. The engine calls read() on the host, then upload() enqueues the
// device side on the copy stream; the metrics start once that stream's work is done.
//
// HostFrameUpload is the step for frame sources that produce host memory: both inputs are read
// concurrently into the slot's pinned host buffer, which one copy brings to the device. A source
// that already holds its frames in device memory implements FrameUpload with a device copy.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/frame_source.h"
#include "core/picture.h"
#include "core/thread_pool.h"
#include "engine/cuda/device_context.h"

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

class HostFrameUpload final : public FrameUpload {
 public:
  // `warn` hears of one input ending before the other.
  HostFrameUpload(FrameSource& reference, FrameSource& distorted, size_t slot_count,
                  std::function<void(const std::string&)> warn);
  bool read(size_t slot, uint64_t index) override;
  void upload(size_t slot, uint8_t* device_pair, cudaStream_t stream) override;

 private:
  struct Staging {
    PinnedBuffer pair;  // reference, then distorted at frame_stride()
    Picture ref, dis;
  };
  FrameSource& reference_;
  FrameSource& distorted_;
  std::function<void(const std::string&)> warn_;
  ThreadPool readers_;  // reads the distorted input while the calling thread reads the reference
  size_t frame_bytes_ = 0, stride_ = 0;
  std::vector<Staging> slots_;
};

}  // namespace vqx::cuda
