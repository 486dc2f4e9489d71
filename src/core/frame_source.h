#pragma once
// Where the engine gets frames: a sequence of pictures of one format, read in order. src/io
// implements it for files, pipes and decoders; the engine reads it without knowing which.
#include <cstdint>
#include <string>

#include "core/device_frames.h"
#include "core/picture.h"

namespace vqx {

class FrameSource {
 public:
  virtual ~FrameSource() = default;
  virtual const PictureFormat& format() const = 0;
  const std::string& name() const { return name_; }

  // Fills `picture` (of format()) with the next frame. Returns false at a clean end of input;
  // throws InputError for a truncated frame or a malformed frame header.
  virtual bool read(Picture& picture) = 0;

  // Reads and discards up to `count` frames; returns how many there were.
  uint64_t skip(uint64_t count);

  // Non-null when the frames are decoded into device memory: the CUDA engine then reads them
  // there instead of through read().
  virtual DeviceFrames* device_frames() { return nullptr; }

  uint64_t frames_read() const { return frames_read_; }

 protected:
  explicit FrameSource(std::string name) : name_(std::move(name)) {}
  std::string name_;
  uint64_t frames_read_ = 0;
};

}  // namespace vqx
