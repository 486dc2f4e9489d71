// The device conversion of decoded frames (io/cuda/device_convert) moves the same samples as
// convert_planes, its CPU twin: every pixel format vqx takes, odd and tiny sizes, every byte of
// the planes random (so the low bits that P010-like formats drop are not zero), padded strides,
// frames stored bottom up, and the layouts NVDEC's 10 and 12-bit surfaces are read with.
#include <fmt/format.h>

extern "C" {
#include <libavutil/pixdesc.h>
}

#include <cstring>
#include <random>

#include "engine/cuda/cuda_check.h"
#include "engine/cuda/device_context.h"
#include "gpu/gpu_support.h"
#include "io/av_support.h"
#include "io/cuda/device_convert.h"

namespace vqx::test {
namespace {

// A frame of `pixel_format` with every byte of its planes random.
av::FramePtr random_frame(AVPixelFormat pixel_format, int width, int height, uint32_t seed) {
  av::FramePtr frame = av::make_frame();
  frame->format = pixel_format;
  frame->width = width;
  frame->height = height;
  EXPECT_EQ(av_frame_get_buffer(frame.get(), 0), 0);
  std::mt19937 rng(seed);
  for (int p = 0; p < 4 && frame->buf[p]; ++p)
    for (size_t i = 0; i < frame->buf[p]->size; ++i) frame->buf[p]->data[i] = uint8_t(rng());
  return frame;
}

// Rows of each of the frame's planes.
int plane_rows(const AVFrame& frame, int plane) {
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(AVPixelFormat(frame.format));
  return plane == d->comp[0].plane ? frame.height : AV_CEIL_RSHIFT(frame.height, d->log2_chroma_h);
}

// Converts `planes` (host memory, laid out as `layout`) on the device and on the host; expects
// the same bytes. `flip` reads the rows bottom up (negative strides).
void expect_same_conversion(const AVFrame& frame, const SampleLayout& layout,
                            const PictureFormat& format, bool flip, const std::string& label) {
  cuda::DeviceContext context(0);
  cuda::Stream stream;
  std::vector<cuda::DeviceBuffer> device_planes;
  DecodedPlanes host, device;
  for (int p = 0; p < 4 && frame.data[p]; ++p) {
    const int rows = plane_rows(frame, p);
    const size_t bytes = size_t(frame.linesize[p]) * rows;
    device_planes.emplace_back(context, bytes, "test plane");
    cuda::check(
        cudaMemcpy(device_planes.back().get(), frame.data[p], bytes, cudaMemcpyHostToDevice),
        "plane upload");
    const ptrdiff_t last_row = ptrdiff_t(rows - 1) * frame.linesize[p];
    host.data[p] = frame.data[p] + (flip ? last_row : 0);
    device.data[p] = device_planes.back().get<uint8_t>() + (flip ? last_row : 0);
    host.stride[p] = device.stride[p] = flip ? -frame.linesize[p] : frame.linesize[p];
  }
  Picture expected(format), actual(format);
  convert_planes(host, layout, expected);
  cuda::DeviceBuffer out(context, format.frame_bytes(), "test picture");
  cuda::enqueue_convert_planes(device, layout, format, out.get<uint8_t>(), stream.get());
  cuda::check(cudaMemcpyAsync(actual.bytes(), out.get(), format.frame_bytes(),
                              cudaMemcpyDeviceToHost, stream.get()),
              "picture download");
  cuda::check(cudaStreamSynchronize(stream.get()), "conversion");
  for (unsigned p = 0; p < format.plane_count(); ++p)
    EXPECT_EQ(std::memcmp(actual.bytes() + format.plane_offset(p),
                          expected.bytes() + format.plane_offset(p), format.plane_bytes(p)),
              0)
        << label << " plane " << p;
}

TEST(ConvertCuda, EveryTakenFormatMatchesTheCpuConversion) {
  VQX_REQUIRE_CUDA();
  const std::pair<int, int> sizes[] = {{1, 1},  {2, 2},   {3, 5},    {17, 9},
                                       {64, 3}, {33, 17}, {853, 481}};
  size_t formats = 0;
  for (const AVPixFmtDescriptor* d = av_pix_fmt_desc_next(nullptr); d;
       d = av_pix_fmt_desc_next(d)) {
    const AVPixelFormat pixel_format = av_pix_fmt_desc_get_id(d);
    if (!decoded_format(pixel_format, 8, 8)) continue;
    ++formats;
    for (auto [w, h] : sizes) {
      av::FramePtr frame = random_frame(pixel_format, w, h, uint32_t(w * 131 + h));
      DecodedFormat decoded = decoded_format_of(*frame, "distorted");
      for (bool flip : {false, true})
        expect_same_conversion(*frame, decoded.samples, decoded.picture, flip,
                               fmt::format("{} {}x{}{}", d->name, w, h, flip ? " flipped" : ""));
    }
  }
  EXPECT_GE(formats, 60u);
}

// NVDEC hands 12-bit 4:2:0 out in p016 and 10 or 12-bit 4:4:4 in yuv444p16, samples in the high
// bits: they are read at the stream's own depth (decoded_surface_format).
TEST(ConvertCuda, DecoderSurfacesReadAtTheStreamsDepth) {
  VQX_REQUIRE_CUDA();
  const std::pair<AVPixelFormat, AVPixelFormat> surfaces[] = {
      {AV_PIX_FMT_P016LE, AV_PIX_FMT_YUV420P12LE},
      {AV_PIX_FMT_YUV444P16LE, AV_PIX_FMT_YUV444P10LE},
      {AV_PIX_FMT_YUV444P16LE, AV_PIX_FMT_YUV444P12LE},
      {AV_PIX_FMT_P010LE, AV_PIX_FMT_YUV420P10LE},
      {AV_PIX_FMT_NV12, AV_PIX_FMT_GRAY8}};
  for (auto [surface, stream] : surfaces) {
    av::FramePtr frame = random_frame(surface, 37, 21, uint32_t(stream));
    auto decoded = decoded_surface_format(surface, stream, 37, 21);
    ASSERT_TRUE(decoded);
    expect_same_conversion(
        *frame, decoded->samples, decoded->picture, false,
        fmt::format("{} holding {}", av_get_pix_fmt_name(surface), av_get_pix_fmt_name(stream)));
  }
}

}  // namespace
}  // namespace vqx::test
