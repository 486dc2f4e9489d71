// pixel_convert: every pixel format vqx takes, at odd and tiny sizes, against libavutil's own
// reader of that format (av_read_image_line2), sample for sample; the p010 family's shift drops
// the low bits without rounding; flipped frames (negative strides); refused formats are named.
#include <gmock/gmock.h>

extern "C" {
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
}

#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/error.h"
#include "io/av_support.h"
#include "io/pixel_convert.h"

namespace vqx::test {
namespace {

const std::set<std::string> kTaken = {
    "yuv420p",     "yuv422p",     "yuv444p",     "gray",        "yuvj420p",    "yuvj422p",
    "yuvj444p",    "nv12",        "nv21",        "gray16be",    "gray16le",    "yuv420p16le",
    "yuv420p16be", "yuv422p16le", "yuv422p16be", "yuv444p16le", "yuv444p16be", "yuv420p9be",
    "yuv420p9le",  "yuv420p10be", "yuv420p10le", "yuv422p10be", "yuv422p10le", "yuv444p9be",
    "yuv444p9le",  "yuv444p10be", "yuv444p10le", "yuv422p9be",  "yuv422p9le",  "nv16",
    "nv20le",      "nv20be",      "yuv420p12be", "yuv420p12le", "yuv420p14be", "yuv420p14le",
    "yuv422p12be", "yuv422p12le", "yuv422p14be", "yuv422p14le", "yuv444p12be", "yuv444p12le",
    "yuv444p14be", "yuv444p14le", "p010le",      "p010be",      "gray12be",    "gray12le",
    "gray10be",    "gray10le",    "p016le",      "p016be",      "gray9be",     "gray9le",
    "gray14be",    "gray14le",    "nv24",        "nv42",        "p210be",      "p210le",
    "p410be",      "p410le",      "p216be",      "p216le",      "p416be",      "p416le"};

std::vector<AVPixelFormat> taken_formats() {
  std::vector<AVPixelFormat> out;
  for (const AVPixFmtDescriptor* d = av_pix_fmt_desc_next(nullptr); d; d = av_pix_fmt_desc_next(d))
    if (decoded_format(av_pix_fmt_desc_get_id(d), 8, 8)) out.push_back(av_pix_fmt_desc_get_id(d));
  return out;
}

av::FramePtr make_frame(AVPixelFormat format, int width, int height) {
  av::FramePtr frame = av::make_frame();
  frame->format = format;
  frame->width = width;
  frame->height = height;
  EXPECT_EQ(av_frame_get_buffer(frame.get(), 0), 0);
  for (int p = 0; p < 4 && frame->buf[p]; ++p) std::memset(frame->buf[p]->data, 0, frame->buf[p]->size);
  return frame;
}

// Writes seeded values below 2^depth into every component through libavutil's own writer (which
// ORs samples into place, hence the zeroed buffers).
void fill_frame(AVFrame& frame, uint32_t seed) {
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(AVPixelFormat(frame.format));
  std::mt19937 rng(seed);
  std::vector<uint16_t> line(size_t(frame.width));
  for (int c = 0; c < d->nb_components; ++c) {
    const int w = c == 0 ? frame.width : AV_CEIL_RSHIFT(frame.width, d->log2_chroma_w);
    const int h = c == 0 ? frame.height : AV_CEIL_RSHIFT(frame.height, d->log2_chroma_h);
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) line[size_t(x)] = uint16_t(rng() & ((1u << d->comp[c].depth) - 1));
      av_write_image_line2(line.data(), frame.data, frame.linesize, d, 0, y, c, w, 2);
    }
  }
}

// What libavutil reads from the frame, in vqx's plane order and layout.
std::vector<uint16_t> reference_samples(const AVFrame& frame, const PictureFormat& f) {
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(AVPixelFormat(frame.format));
  std::vector<uint16_t> out;
  for (unsigned p = 0; p < f.plane_count(); ++p) {
    std::vector<uint16_t> line(f.plane_width(p));
    for (uint32_t y = 0; y < f.plane_height(p); ++y) {
      av_read_image_line2(line.data(), const_cast<const uint8_t**>(frame.data), frame.linesize, d, 0, int(y),
                          int(p), int(f.plane_width(p)), 0, 2);
      out.insert(out.end(), line.begin(), line.end());
    }
  }
  return out;
}

std::vector<uint16_t> picture_samples(const Picture& picture) {
  const PictureFormat& f = picture.format();
  std::vector<uint16_t> out;
  for (unsigned p = 0; p < f.plane_count(); ++p)
    for (size_t i = 0; i < size_t{f.plane_width(p)} * f.plane_height(p); ++i)
      out.push_back(f.bytes_per_sample() == 1 ? picture.plane<uint8_t>(p)[i] : picture.plane<uint16_t>(p)[i]);
  return out;
}

TEST(PixelConvert, TakesExactlyThePlanarAndSemiPlanarYCbCrFormats) {
  std::set<std::string> taken;
  for (AVPixelFormat f : taken_formats()) taken.insert(av_get_pix_fmt_name(f));
  EXPECT_EQ(taken, kTaken);
}

TEST(PixelConvert, EveryTakenFormatMatchesLibavutilsReader) {
  const std::pair<int, int> sizes[] = {{1, 1}, {2, 2}, {3, 5}, {17, 9}, {64, 3}, {33, 17}};
  for (AVPixelFormat pixel_format : taken_formats()) {
    for (auto [w, h] : sizes) {
      SCOPED_TRACE(testing::Message() << av_get_pix_fmt_name(pixel_format) << " " << w << "x" << h);
      av::FramePtr frame = make_frame(pixel_format, w, h);
      fill_frame(*frame, uint32_t(w * 131 + h));
      DecodedFormat decoded = decoded_format_of(*frame, "distorted");
      const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(pixel_format);
      EXPECT_EQ(decoded.picture.bit_depth, d->comp[0].depth);
      EXPECT_EQ(decoded.picture.plane_count(), unsigned(d->nb_components));
      Picture picture(decoded.picture);
      convert_frame(*frame, decoded.samples, picture);
      EXPECT_EQ(picture_samples(picture), reference_samples(*frame, decoded.picture));
    }
  }
}

TEST(PixelConvert, SubsamplingAndRangeFollowTheFormat) {
  auto yuv420 = decoded_format(AV_PIX_FMT_NV12, 5, 3);
  ASSERT_TRUE(yuv420);
  EXPECT_EQ(yuv420->picture.subsampling, ChromaSubsampling::k420);
  EXPECT_EQ(yuv420->picture.plane_width(1), 3u);
  EXPECT_EQ(decoded_format(AV_PIX_FMT_P210LE, 4, 4)->picture.subsampling, ChromaSubsampling::k422);
  EXPECT_EQ(decoded_format(AV_PIX_FMT_NV42, 4, 4)->picture.subsampling, ChromaSubsampling::k444);
  EXPECT_EQ(decoded_format(AV_PIX_FMT_GRAY12LE, 4, 4)->picture.subsampling, ChromaSubsampling::k400);
  EXPECT_EQ(decoded_format(AV_PIX_FMT_P010LE, 4, 4)->picture.bit_depth, 10);
  EXPECT_EQ(decoded_format(AV_PIX_FMT_YUVJ420P, 4, 4)->picture.range, ColorRange::kFull);
  EXPECT_EQ(decoded_format(AV_PIX_FMT_YUV420P, 4, 4)->picture.range, ColorRange::kUnspecified);

  av::FramePtr frame = make_frame(AV_PIX_FMT_YUV420P, 4, 4);
  frame->color_range = AVCOL_RANGE_JPEG;
  EXPECT_EQ(decoded_format_of(*frame, "reference").picture.range, ColorRange::kFull);
  frame->color_range = AVCOL_RANGE_MPEG;
  EXPECT_EQ(decoded_format_of(*frame, "reference").picture.range, ColorRange::kLimited);
}

TEST(PixelConvert, HighBitFormatsShiftWithoutRounding) {
  for (AVPixelFormat pixel_format : {AV_PIX_FMT_P010LE, AV_PIX_FMT_P010BE, AV_PIX_FMT_P210LE, AV_PIX_FMT_P410BE}) {
    SCOPED_TRACE(av_get_pix_fmt_name(pixel_format));
    av::FramePtr frame = make_frame(pixel_format, 7, 5);
    const bool big_endian = av_pix_fmt_desc_get(pixel_format)->flags & AV_PIX_FMT_FLAG_BE;
    std::mt19937 rng(7);
    for (int p = 0; p < 2; ++p)  // every byte random: the low 6 bits of each sample too
      for (int y = 0; y < frame->height; ++y)
        for (int x = 0; x < frame->linesize[p]; ++x) frame->data[p][y * frame->linesize[p] + x] = uint8_t(rng());
    DecodedFormat decoded = decoded_format_of(*frame, "distorted");
    Picture picture(decoded.picture);
    convert_frame(*frame, decoded.samples, picture);
    auto raw = [&](int plane, int y, int x) {
      const uint8_t* s = frame->data[plane] + y * frame->linesize[plane] + 2 * x;
      return big_endian ? (s[0] << 8) | s[1] : s[0] | (s[1] << 8);
    };
    const PictureFormat& f = decoded.picture;
    for (uint32_t y = 0; y < f.height; ++y)
      for (uint32_t x = 0; x < f.width; ++x)
        ASSERT_EQ(picture.plane<uint16_t>(0)[y * f.width + x], raw(0, int(y), int(x)) >> 6);
    for (uint32_t y = 0; y < f.plane_height(1); ++y)
      for (uint32_t x = 0; x < f.plane_width(1); ++x) {
        ASSERT_EQ(picture.plane<uint16_t>(1)[y * f.plane_width(1) + x], raw(1, int(y), int(2 * x)) >> 6);
        ASSERT_EQ(picture.plane<uint16_t>(2)[y * f.plane_width(1) + x], raw(1, int(y), int(2 * x + 1)) >> 6);
      }
  }
}

TEST(PixelConvert, NegativeStridesReadAFlippedFrame) {
  for (AVPixelFormat pixel_format : {AV_PIX_FMT_YUV420P, AV_PIX_FMT_NV12, AV_PIX_FMT_YUV444P10LE}) {
    SCOPED_TRACE(av_get_pix_fmt_name(pixel_format));
    av::FramePtr frame = make_frame(pixel_format, 9, 7);
    fill_frame(*frame, 3);
    DecodedFormat decoded = decoded_format_of(*frame, "distorted");
    Picture upright(decoded.picture);
    convert_frame(*frame, decoded.samples, upright);

    DecodedPlanes flipped;  // the same rows, from the bottom up
    for (unsigned p = 0; p < 3 && frame->data[p]; ++p) {
      const uint32_t rows = p == 0 ? decoded.picture.height : decoded.picture.plane_height(1);
      flipped.data[p] = frame->data[p] + ptrdiff_t(rows - 1) * frame->linesize[p];
      flipped.stride[p] = -frame->linesize[p];
    }
    Picture picture(decoded.picture);
    convert_planes(flipped, decoded.samples, picture);
    const PictureFormat& f = decoded.picture;
    const size_t bytes = f.bytes_per_sample();
    for (unsigned p = 0; p < f.plane_count(); ++p) {
      const size_t row = f.plane_width(p) * bytes;
      for (uint32_t y = 0; y < f.plane_height(p); ++y)
        ASSERT_EQ(std::memcmp(picture.bytes() + f.plane_offset(p) + y * row,
                              upright.bytes() + f.plane_offset(p) + (f.plane_height(p) - 1 - y) * row, row),
                  0)
            << "plane " << p << " row " << y;
    }
  }
}

TEST(PixelConvert, RefusedFormatsAreNamed) {
  for (AVPixelFormat pixel_format : {AV_PIX_FMT_RGB24, AV_PIX_FMT_YUVA420P, AV_PIX_FMT_YUV411P, AV_PIX_FMT_YUV440P,
                                     AV_PIX_FMT_YUYV422, AV_PIX_FMT_PAL8, AV_PIX_FMT_GBRP10LE, AV_PIX_FMT_CUDA,
                                     AV_PIX_FMT_GRAYF32LE, AV_PIX_FMT_Y210LE, AV_PIX_FMT_MONOBLACK}) {
    const std::string name = av_get_pix_fmt_name(pixel_format);
    EXPECT_FALSE(decoded_format(pixel_format, 8, 8)) << name;
    av::FramePtr frame = av::make_frame();
    frame->format = pixel_format;
    frame->width = frame->height = 8;
    try {
      decoded_format_of(*frame, "distorted 'x.mkv'");
      ADD_FAILURE() << name << " was taken";
    } catch (const InputError& e) {
      EXPECT_THAT(e.what(), testing::HasSubstr("distorted 'x.mkv': pixel format " + name + " is not supported"));
    }
  }
}

}  // namespace
}  // namespace vqx::test
