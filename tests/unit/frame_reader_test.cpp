// Y4M and raw YUV reading: every supported layout, odd sizes, header tags, streaming.
#include "io/readers.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>

#include "core/error.h"
#include "io/input_stream.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

struct Layout {
  const char* tag;
  ChromaSubsampling subsampling;
  uint8_t depth;
};

class Y4mLayouts : public ::testing::TestWithParam<Layout> {};

// Odd sizes exercise the ceil(w/2) chroma rule of every subsampling.
TEST_P(Y4mLayouts, RoundTripsSamplesAtOddSize) {
  const Layout& l = GetParam();
  PictureFormat f = make_format(37, 23, l.subsampling, l.depth);
  auto frames = make_pictures(f, {11, 12, 13});
  std::string path = temp_path(std::string("layout_") + l.tag + ".y4m");
  write_y4m(path, frames, l.tag);
  auto reader = open_y4m(path, "input");
  EXPECT_EQ(reader->format().width, 37u);
  EXPECT_EQ(reader->format().height, 23u);
  EXPECT_EQ(reader->format().subsampling, l.subsampling);
  EXPECT_EQ(reader->format().bit_depth, l.depth);
  Picture p(reader->format());
  for (const auto& expected : frames) {
    ASSERT_TRUE(reader->read(p));
    ASSERT_EQ(p.size_bytes(), expected.size_bytes());
    EXPECT_EQ(std::memcmp(p.bytes(), expected.bytes(), p.size_bytes()), 0);
  }
  EXPECT_FALSE(reader->read(p));
  EXPECT_EQ(reader->frames_read(), 3u);
}

INSTANTIATE_TEST_SUITE_P(
    AllTags, Y4mLayouts,
    ::testing::Values(Layout{"420", ChromaSubsampling::k420, 8}, Layout{"420jpeg", ChromaSubsampling::k420, 8},
                      Layout{"420paldv", ChromaSubsampling::k420, 8}, Layout{"420mpeg2", ChromaSubsampling::k420, 8},
                      Layout{"422", ChromaSubsampling::k422, 8}, Layout{"444", ChromaSubsampling::k444, 8},
                      Layout{"420p10", ChromaSubsampling::k420, 10}, Layout{"420p12", ChromaSubsampling::k420, 12},
                      Layout{"420p16", ChromaSubsampling::k420, 16}, Layout{"422p10", ChromaSubsampling::k422, 10},
                      Layout{"422p12", ChromaSubsampling::k422, 12}, Layout{"422p16", ChromaSubsampling::k422, 16},
                      Layout{"444p10", ChromaSubsampling::k444, 10}, Layout{"444p12", ChromaSubsampling::k444, 12},
                      Layout{"444p16", ChromaSubsampling::k444, 16}, Layout{"mono", ChromaSubsampling::k400, 8},
                      Layout{"mono16", ChromaSubsampling::k400, 16}),
    [](const auto& info) { return std::string(info.param.tag); });

TEST(Y4mReader, ChromaPlaneSizesRoundUp) {
  PictureFormat f = make_format(853, 481, ChromaSubsampling::k420);
  EXPECT_EQ(f.plane_width(1), 427u);
  EXPECT_EQ(f.plane_height(1), 241u);
  EXPECT_EQ(f.frame_bytes(), 853u * 481u + 2u * 427u * 241u);
  PictureFormat g = make_format(5, 3, ChromaSubsampling::k422, 10);
  EXPECT_EQ(g.plane_width(2), 3u);
  EXPECT_EQ(g.plane_height(2), 3u);
  EXPECT_EQ(g.frame_bytes(), size_t(2 * (15 + 2 * 9)));
}

TEST(Y4mReader, ParsesColorRangeAndDefaults) {
  std::string path = temp_path("range.y4m");
  std::ofstream(path, std::ios::binary) << "YUV4MPEG2 W4 H2 F30000:1001 A0:0 XYSCSS=420JPEG XCOLORRANGE=FULL\n";
  auto r = open_y4m(path, "input");
  EXPECT_EQ(r->format().range, ColorRange::kFull);
  EXPECT_EQ(r->format().subsampling, ChromaSubsampling::k420);  // C defaults to 420
  EXPECT_EQ(r->format().bit_depth, 8);
  std::ofstream(path, std::ios::binary) << "YUV4MPEG2 W4 H2 F25:1 C420p10 XCOLORRANGE=LIMITED\n";
  EXPECT_EQ(open_y4m(path, "input")->format().range, ColorRange::kLimited);
}

TEST(Y4mReader, FrameParametersAreSkipped) {
  PictureFormat f = make_format(4, 2, ChromaSubsampling::k444);
  Picture a = make_picture(f, 5);
  std::string path = temp_path("params.y4m");
  {
    std::ofstream out(path, std::ios::binary);
    out << "YUV4MPEG2 W4 H2 F25:1 C444\nFRAME Ixyz XFOO=1\n";
    out.write(reinterpret_cast<const char*>(a.bytes()), std::streamsize(a.size_bytes()));
  }
  auto r = open_y4m(path, "input");
  Picture p(r->format());
  ASSERT_TRUE(r->read(p));
  EXPECT_EQ(std::memcmp(p.bytes(), a.bytes(), a.size_bytes()), 0);
}

TEST(Y4mReader, RejectsBadHeaders) {
  const char* headers[] = {
      "YUV4MPEG W4 H2 F25:1\n",        "YUV4MPEG2 W0 H2 F25:1\n",     "YUV4MPEG2 W4 F25:1\n",
      "YUV4MPEG2 W4 H2 F25\n",         "YUV4MPEG2 W4 H2 F25:1 Ib\n",  "YUV4MPEG2 W4 H2 F25:1 C444alpha\n",
      "YUV4MPEG2 W4 H2 F25:1 Q1\n",   "YUV4MPEG2 W-4 H2 F25:1\n",    "YUV4MPEG2 W99999999999 H2 F25:1\n",
  };
  for (const char* h : headers) {
    std::string path = temp_path("bad.y4m");
    std::ofstream(path, std::ios::binary) << h;
    EXPECT_THROW(open_y4m(path, "input"), InputError) << h;
  }
}

TEST(RawYuvReader, OddSize420RoundTrips) {
  PictureFormat f = make_format(853, 481, ChromaSubsampling::k420, 10);
  auto frames = make_pictures(f, {1, 2});
  std::string path = temp_path("odd.yuv");
  write_raw(path, frames);
  auto r = open_raw_yuv(path, RawYuvLayout{853, 481, ChromaSubsampling::k420, 10}, "input");
  Picture p(r->format());
  for (const auto& expected : frames) {
    ASSERT_TRUE(r->read(p));
    EXPECT_EQ(std::memcmp(p.bytes(), expected.bytes(), p.size_bytes()), 0);
  }
  EXPECT_FALSE(r->read(p));
}

TEST(RawYuvReader, SkipCountsFrames) {
  PictureFormat f = make_format(8, 8);
  std::string path = temp_path("skip.yuv");
  write_raw(path, make_pictures(f, {1, 2, 3}));
  auto r = open_raw_yuv(path, RawYuvLayout{8, 8, ChromaSubsampling::k420, 8}, "input");
  EXPECT_EQ(r->skip(2), 2u);
  EXPECT_EQ(r->skip(5), 1u);
}

// An input read with nothing peeked first (as raw YUV is): the bytes come straight from the
// descriptor, directly and through the stdio stream over it. Sanitizer builds check the empty
// look-ahead is never handed to memcpy.
TEST(InputStream, ReadsWithNothingPeeked) {
  const std::string path = temp_path("unpeeked.bin");
  const std::string bytes = "0123456789abcdef";
  std::ofstream(path, std::ios::binary) << bytes;
  InputStream direct(path, "reference");
  char got[32] = {};
  EXPECT_EQ(direct.read(got, 0), 0u);
  ASSERT_EQ(direct.read(got, sizeof got), bytes.size());
  EXPECT_EQ(std::string(got, bytes.size()), bytes);
  EXPECT_EQ(direct.read(got, sizeof got), 0u);

  FileHandle file = InputStream::into_file(std::make_unique<InputStream>(path, "reference"));
  char via_file[32] = {};
  ASSERT_EQ(std::fread(via_file, 1, sizeof via_file, file.get()), bytes.size());
  EXPECT_EQ(std::string(via_file, bytes.size()), bytes);
}

}  // namespace
}  // namespace vqx::test
