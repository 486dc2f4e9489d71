// decoded_surface_format: the layouts NVDEC's surfaces are read with, at the stream's own depth,
// subsampling and range, and the pairs that do not fit.
#include <gtest/gtest.h>

extern "C" {
#include <libavutil/pixdesc.h>
}

#include "io/pixel_convert.h"

namespace vqx::test {
namespace {

TEST(SurfaceFormat, SurfacesAreReadAtTheStreamsDepth) {
  struct Case {
    AVPixelFormat surface, stream;
    uint8_t depth, shift, bytes;
    ChromaSubsampling subsampling;
  };
  const Case cases[] = {
      {AV_PIX_FMT_NV12, AV_PIX_FMT_YUV420P, 8, 0, 1, ChromaSubsampling::k420},
      {AV_PIX_FMT_P010LE, AV_PIX_FMT_YUV420P10LE, 10, 6, 2, ChromaSubsampling::k420},
      {AV_PIX_FMT_P016LE, AV_PIX_FMT_YUV420P12LE, 12, 4, 2, ChromaSubsampling::k420},
      {AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUV444P, 8, 0, 1, ChromaSubsampling::k444},
      {AV_PIX_FMT_YUV444P16LE, AV_PIX_FMT_YUV444P10LE, 10, 6, 2, ChromaSubsampling::k444},
      {AV_PIX_FMT_YUV444P16LE, AV_PIX_FMT_YUV444P12LE, 12, 4, 2, ChromaSubsampling::k444},
      {AV_PIX_FMT_NV12, AV_PIX_FMT_GRAY8, 8, 0, 1, ChromaSubsampling::k400},
      {AV_PIX_FMT_P016LE, AV_PIX_FMT_GRAY12LE, 12, 4, 2, ChromaSubsampling::k400},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message()
                 << av_get_pix_fmt_name(c.surface) << " holding " << av_get_pix_fmt_name(c.stream));
    auto f = decoded_surface_format(c.surface, c.stream, 33, 17);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->picture.bit_depth, c.depth);
    EXPECT_EQ(f->picture.subsampling, c.subsampling);
    EXPECT_EQ(f->picture.width, 33u);
    EXPECT_EQ(f->picture.height, 17u);
    EXPECT_EQ(f->samples.shift, c.shift);
    EXPECT_EQ(f->samples.bytes_per_sample, c.bytes);
    EXPECT_EQ(f->samples.components[0].plane, 0);
  }
  auto nv12 = decoded_surface_format(AV_PIX_FMT_NV12, AV_PIX_FMT_YUV420P, 8, 8);
  EXPECT_EQ(nv12->samples.components[1].plane, 1);
  EXPECT_EQ(nv12->samples.components[2].offset, 1);
  EXPECT_EQ(nv12->samples.components[2].step, 2);
  EXPECT_EQ(decoded_surface_format(AV_PIX_FMT_NV12, AV_PIX_FMT_YUVJ420P, 8, 8)->picture.range,
            ColorRange::kFull);
}

TEST(SurfaceFormat, SurfacesThatCannotHoldTheStreamAreRefused) {
  EXPECT_FALSE(decoded_surface_format(AV_PIX_FMT_NV12, AV_PIX_FMT_YUV422P, 8, 8));
  EXPECT_FALSE(decoded_surface_format(AV_PIX_FMT_NV12, AV_PIX_FMT_YUV420P10LE, 8, 8));
  EXPECT_FALSE(decoded_surface_format(AV_PIX_FMT_P016LE, AV_PIX_FMT_YUV444P12LE, 8, 8));
  EXPECT_FALSE(decoded_surface_format(AV_PIX_FMT_CUDA, AV_PIX_FMT_YUV420P, 8, 8));
  EXPECT_FALSE(decoded_surface_format(AV_PIX_FMT_NV12, AV_PIX_FMT_RGB24, 8, 8));
}

}  // namespace
}  // namespace vqx::test
