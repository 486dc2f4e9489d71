#pragma once
// Decoded frames (FFmpeg's pixel formats) into vqx's Picture layout: planar Y, Cb, Cr rows without
// padding. Samples are copied exactly: no rounding, no range or matrix change. Formats that keep a
// sample in the high bits of 16 (p010, p210, p410) are shifted down, their low bits dropped.
//
// convert_planes is the plain reference of the conversion; it works from a SampleLayout (what the
// format descriptor says about where each sample lives), so a device twin that reads the same
// planes from device memory can be tested against it sample for sample.
extern "C" {
#include <libavutil/frame.h>
#include <libavutil/pixfmt.h>
}

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "core/picture.h"

namespace vqx {

// Sample (x, y) of component c lives at data[plane] + y * stride[plane] + offset + x * step, in
// `bytes_per_sample` bytes (most significant first when big_endian), shifted left by `shift`.
struct SampleLayout {
  struct Component {
    uint8_t plane = 0;
    uint8_t step = 1;    // bytes from one sample of a row to the next
    uint8_t offset = 0;  // bytes before the row's first sample
  };
  Component components[3];  // Y, Cb, Cr; only Y for grey
  uint8_t bytes_per_sample = 1;
  uint8_t shift = 0;
  bool big_endian = false;
};

// A frame's planes as in AVFrame::data / linesize (a stride may be negative).
struct DecodedPlanes {
  const uint8_t* data[4] = {};
  ptrdiff_t stride[4] = {};
};

struct DecodedFormat {
  PictureFormat picture;  // what the frame becomes
  SampleLayout samples;   // where its samples are
};

// The layout of `format` at the given size, or nullopt when vqx cannot take that pixel format.
// Taken: planar and semi-planar (NV12-like) Y'CbCr 4:2:0, 4:2:2, 4:4:4 and grey, 8 to 16 bits,
// either byte order, with no alpha.
std::optional<DecodedFormat> decoded_format(AVPixelFormat format, uint32_t width, uint32_t height);

// The format of `frame`, with its colour range (full for the yuvj formats and for frames tagged
// full range). Throws InputError naming `what` and the pixel format when it cannot be taken.
DecodedFormat decoded_format_of(const AVFrame& frame, const std::string& what);

// The format of the frames a hardware decoder leaves in device memory: surfaces laid out as
// `surface` (the frames' AVHWFramesContext::sw_format; NVDEC's nv12, p010, p016, yuv444p,
// yuv444p16) holding pictures of the stream's own format `stream`, whose depth, subsampling and
// range they take: 12-bit 4:2:0 comes in p016 (shifted by 4), a grey stream in nv12 (its chroma
// unused). nullopt when the surfaces cannot hold such pictures (a 4:2:2 stream in nv12).
std::optional<DecodedFormat> decoded_surface_format(AVPixelFormat surface, AVPixelFormat stream,
                                                    uint32_t width, uint32_t height);

// Copies the samples of `planes` (laid out as `layout`, at out's size) into `out`.
void convert_planes(const DecodedPlanes& planes, const SampleLayout& layout, Picture& out);

void convert_frame(const AVFrame& frame, const SampleLayout& layout, Picture& out);

}  // namespace vqx
