#pragma once
// Streaming frame readers: memory use is one frame, whatever the clip length.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/picture.h"

namespace vqx {

class FrameReader {
 public:
  virtual ~FrameReader() = default;
  virtual const PictureFormat& format() const = 0;
  const std::string& name() const { return name_; }

  // Fills `picture` (of format()) with the next frame. Returns false at a clean end of input;
  // throws InputError for a truncated frame or a malformed frame header.
  virtual bool read(Picture& picture) = 0;

  // Reads and discards up to `count` frames; returns how many there were.
  uint64_t skip(uint64_t count);

  uint64_t frames_read() const { return frames_read_; }

 protected:
  explicit FrameReader(std::string name) : name_(std::move(name)) {}
  std::string name_;
  uint64_t frames_read_ = 0;
};

struct RawYuvLayout {
  uint32_t width = 0;
  uint32_t height = 0;
  ChromaSubsampling subsampling = ChromaSubsampling::k420;
  uint8_t bit_depth = 8;
};

// Y4M ("YUV4MPEG2") from a file. `name` labels messages ("reference", "distorted").
std::unique_ptr<FrameReader> open_y4m(const std::string& path, const std::string& name);
// Y4M from an already open stream (owned by the reader); used by the fuzz target.
std::unique_ptr<FrameReader> open_y4m_stream(std::FILE* stream, const std::string& name);
// Headerless planar YUV.
std::unique_ptr<FrameReader> open_raw_yuv(const std::string& path, const RawYuvLayout& layout,
                                          const std::string& name);

// Frames held in memory (all of one format); `pictures` must outlive the reader.
std::unique_ptr<FrameReader> open_memory(const std::vector<Picture>& pictures, const std::string& name);

// A PNG image (8- or 16-bit; gray, RGB, with or without alpha) as one RGB frame, 4:4:4.
// Implemented in io/png_reader.cpp with libpng.
std::unique_ptr<FrameReader> open_png(const std::string& path, const std::string& name);

}  // namespace vqx
