#pragma once
// The readers of raw inputs (Y4M, raw YUV, PNG, frames in memory): each streams, holding one
// frame at a time whatever the clip length. io/open_input.h chooses among them (and FFmpeg's
// decoders) by content.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/frame_source.h"
#include "core/picture.h"

namespace vqx {

struct RawYuvLayout {
  uint32_t width = 0;
  uint32_t height = 0;
  ChromaSubsampling subsampling = ChromaSubsampling::k420;
  uint8_t bit_depth = 8;
};

// Y4M ("YUV4MPEG2") from a file. `name` labels messages ("reference", "distorted").
std::unique_ptr<FrameSource> open_y4m(const std::string& path, const std::string& name);
// Y4M from an already open stream (owned by the reader); used by the fuzz target.
std::unique_ptr<FrameSource> open_y4m_stream(std::FILE* stream, const std::string& name);
// Headerless planar YUV.
std::unique_ptr<FrameSource> open_raw_yuv(const std::string& path, const RawYuvLayout& layout,
                                          const std::string& name);
// Headerless planar YUV from an open stream (owned by the reader); `label` prefixes messages.
std::unique_ptr<FrameSource> open_raw_yuv_stream(std::FILE* stream, const RawYuvLayout& layout,
                                                 const std::string& label);

// Frames held in memory (all of one format); `pictures` must outlive the reader.
std::unique_ptr<FrameSource> open_memory(const std::vector<Picture>& pictures, const std::string& name);

// A PNG image (8- or 16-bit; gray, RGB, with or without alpha) as one RGB frame, 4:4:4.
// Implemented in io/png_reader.cpp with libpng.
std::unique_ptr<FrameSource> open_png(const std::string& path, const std::string& name);
// A PNG from an open stream positioned at its start (owned by the reader).
std::unique_ptr<FrameSource> open_png_stream(std::FILE* stream, const std::string& label);

}  // namespace vqx
