#include "io/pixel_convert.h"

extern "C" {
#include <libavutil/pixdesc.h>
}

#include <fmt/format.h>

#include <bit>
#include <cstring>

#include "core/error.h"

namespace vqx {
namespace {

static_assert(std::endian::native == std::endian::little,
              "vqx pictures hold 16-bit samples in little-endian host order");

constexpr uint64_t kUnsupportedFlags = AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_BITSTREAM |
                                       AV_PIX_FMT_FLAG_HWACCEL | AV_PIX_FMT_FLAG_RGB |
                                       AV_PIX_FMT_FLAG_ALPHA | AV_PIX_FMT_FLAG_FLOAT |
                                       AV_PIX_FMT_FLAG_BAYER;

std::optional<ChromaSubsampling> subsampling_of(const AVPixFmtDescriptor& d) {
  if (d.nb_components == 1) return ChromaSubsampling::k400;
  if (d.nb_components != 3) return std::nullopt;
  if (d.log2_chroma_w == 1 && d.log2_chroma_h == 1) return ChromaSubsampling::k420;
  if (d.log2_chroma_w == 1 && d.log2_chroma_h == 0) return ChromaSubsampling::k422;
  if (d.log2_chroma_w == 0 && d.log2_chroma_h == 0) return ChromaSubsampling::k444;
  return std::nullopt;  // 4:1:1, 4:1:0, 4:4:0
}

// Luma alone in its plane; chroma either in two planes of its own (planar) or interleaved in one
// (semi-planar, Cb first as NV12 or Cr first as NV21). Packed formats (YUYV, Y210) are refused.
bool planes_are_supported(const AVPixFmtDescriptor& d, unsigned bytes) {
  const AVComponentDescriptor& y = d.comp[0];
  if (y.step != int(bytes) || y.offset != 0) return false;
  if (d.nb_components == 1) return true;
  const AVComponentDescriptor& cb = d.comp[1];
  const AVComponentDescriptor& cr = d.comp[2];
  if (cb.plane == y.plane || cr.plane == y.plane) return false;
  if (cb.plane != cr.plane)
    return cb.step == int(bytes) && cr.step == int(bytes) && cb.offset == 0 && cr.offset == 0;
  return cb.step == int(2 * bytes) && cr.step == int(2 * bytes) &&
         ((cb.offset == 0 && cr.offset == int(bytes)) || (cr.offset == 0 && cb.offset == int(bytes)));
}

template <typename Out, unsigned Bytes, bool BigEndian>
void copy_rows(const uint8_t* src, ptrdiff_t stride, unsigned step, unsigned shift, uint32_t width,
               uint32_t height, Out* out) {
  for (uint32_t y = 0; y < height; ++y, src += stride, out += width) {
    if (step == Bytes && shift == 0 && !BigEndian && sizeof(Out) == Bytes) {
      std::memcpy(out, src, size_t{width} * Bytes);
      continue;
    }
    for (uint32_t x = 0; x < width; ++x) {
      const uint8_t* s = src + size_t{x} * step;
      unsigned raw = Bytes == 1 ? s[0] : BigEndian ? (unsigned(s[0]) << 8) | s[1] : s[0] | (unsigned(s[1]) << 8);
      out[x] = Out(raw >> shift);
    }
  }
}

template <typename Out>
void copy_component(const DecodedPlanes& planes, const SampleLayout& layout, unsigned c,
                    uint32_t width, uint32_t height, Out* out) {
  const SampleLayout::Component& comp = layout.components[c];
  const uint8_t* src = planes.data[comp.plane] + comp.offset;
  const ptrdiff_t stride = planes.stride[comp.plane];
  if (layout.bytes_per_sample == 1)
    copy_rows<Out, 1, false>(src, stride, comp.step, layout.shift, width, height, out);
  else if (layout.big_endian)
    copy_rows<Out, 2, true>(src, stride, comp.step, layout.shift, width, height, out);
  else
    copy_rows<Out, 2, false>(src, stride, comp.step, layout.shift, width, height, out);
}

}  // namespace

std::optional<DecodedFormat> decoded_format(AVPixelFormat format, uint32_t width, uint32_t height) {
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(format);
  if (!d || (d->flags & kUnsupportedFlags)) return std::nullopt;
  auto subsampling = subsampling_of(*d);
  if (!subsampling) return std::nullopt;
  const int depth = d->comp[0].depth, shift = d->comp[0].shift;
  if (depth < 8 || depth > 16) return std::nullopt;
  for (int c = 1; c < d->nb_components; ++c)
    if (d->comp[c].depth != depth || d->comp[c].shift != shift) return std::nullopt;
  const unsigned bytes = depth + shift > 8 ? 2 : 1;
  if (depth + shift > int(8 * bytes) || !planes_are_supported(*d, bytes)) return std::nullopt;

  DecodedFormat out;
  out.picture.width = width;
  out.picture.height = height;
  out.picture.subsampling = *subsampling;
  out.picture.bit_depth = uint8_t(depth);
  if (std::strncmp(d->name, "yuvj", 4) == 0) out.picture.range = ColorRange::kFull;
  out.samples.bytes_per_sample = uint8_t(bytes);
  out.samples.shift = uint8_t(shift);
  out.samples.big_endian = bytes == 2 && (d->flags & AV_PIX_FMT_FLAG_BE);
  for (int c = 0; c < d->nb_components; ++c)
    out.samples.components[c] = {uint8_t(d->comp[c].plane), uint8_t(d->comp[c].step),
                                 uint8_t(d->comp[c].offset)};
  return out;
}

DecodedFormat decoded_format_of(const AVFrame& frame, const std::string& what) {
  const auto pixel_format = AVPixelFormat(frame.format);
  if (frame.width <= 0 || frame.height <= 0)
    throw InputError(fmt::format("{}: decoded picture size {}x{} is empty", what, frame.width, frame.height));
  auto format = decoded_format(pixel_format, uint32_t(frame.width), uint32_t(frame.height));
  if (!format) {
    const char* name = av_get_pix_fmt_name(pixel_format);
    throw InputError(fmt::format(
        "{}: pixel format {} is not supported (planar or semi-planar Y'CbCr 4:2:0, 4:2:2, 4:4:4 "
        "or grey, 8 to 16 bits, without alpha)",
        what, name ? name : "unknown"));
  }
  if (frame.color_range == AVCOL_RANGE_JPEG) format->picture.range = ColorRange::kFull;
  else if (frame.color_range == AVCOL_RANGE_MPEG) format->picture.range = ColorRange::kLimited;
  validate_format(format->picture, what);
  return *format;
}

std::optional<DecodedFormat> decoded_surface_format(AVPixelFormat surface, AVPixelFormat stream,
                                                    uint32_t width, uint32_t height) {
  auto surfaces = decoded_format(surface, width, height);
  auto pictures = decoded_format(stream, width, height);
  if (!surfaces || !pictures) return std::nullopt;
  const PictureFormat& p = pictures->picture;
  if (p.subsampling != surfaces->picture.subsampling && p.subsampling != ChromaSubsampling::k400)
    return std::nullopt;
  const int surface_bits = surfaces->picture.bit_depth + surfaces->samples.shift;
  if (p.bit_depth > surfaces->picture.bit_depth) return std::nullopt;
  DecodedFormat out{p, surfaces->samples};
  out.samples.shift = uint8_t(surface_bits - p.bit_depth);
  return out;
}

void convert_planes(const DecodedPlanes& planes, const SampleLayout& layout, Picture& out) {
  const PictureFormat& f = out.format();
  for (unsigned p = 0; p < f.plane_count(); ++p) {
    if (f.bytes_per_sample() == 1)
      copy_component(planes, layout, p, f.plane_width(p), f.plane_height(p), out.plane<uint8_t>(p));
    else
      copy_component(planes, layout, p, f.plane_width(p), f.plane_height(p), out.plane<uint16_t>(p));
  }
}

void convert_frame(const AVFrame& frame, const SampleLayout& layout, Picture& out) {
  DecodedPlanes planes;
  for (int p = 0; p < 4; ++p) {
    planes.data[p] = frame.data[p];
    planes.stride[p] = frame.linesize[p];
  }
  convert_planes(planes, layout, out);
}

}  // namespace vqx
