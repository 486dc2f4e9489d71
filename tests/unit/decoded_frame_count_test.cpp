// The frame counts the progress line's total comes from (io/frame_count.h), against the frames
// the readers actually give: Y4M and raw YUV from their size, PNG one, containers from their
// index or duration, pipes none (nor an IVF file, whose header's count FFmpeg does not read).
#include "io/frame_count.h"

#include <gtest/gtest.h>

#include "io/open_input.h"
#include "support/encodes.h"
#include "support/fixtures.h"

namespace vqx {
namespace {

uint64_t frames_read(const std::string& path, const InputOptions& options = {}) {
  auto input = open_input(path, options, "input").source;
  Picture picture(input->format());
  uint64_t n = 0;
  while (input->read(picture)) ++n;
  return n;
}

PictureFormat format_of(const std::string& path, const InputOptions& options = {}) {
  return open_input(path, options, "input").source->format();
}

TEST(FrameCount, Y4mRawAndPng) {
  VQX_REQUIRE_FIXTURE("n576", dir);
  const std::string y4m = dir + "/dis.y4m";
  EXPECT_EQ(estimate_frame_count(y4m, format_of(y4m), false), frames_read(y4m));
  EXPECT_EQ(estimate_frame_count(y4m, format_of(y4m), false), 48u);
  std::vector<Picture> frames = test::make_pictures(test::make_format(64, 32), {1, 2, 3, 4, 5});
  const std::string raw = test::temp_path("frame_count.yuv");
  test::write_raw(raw, frames);
  EXPECT_EQ(estimate_frame_count(raw, frames[0].format(), true), 5u);
  const std::string png = dir + "/png/ref_f000.png";
  EXPECT_EQ(estimate_frame_count(png, format_of(png), false), 1u);
  EXPECT_EQ(estimate_frame_count("-", format_of(y4m), false), std::nullopt);
  EXPECT_EQ(estimate_frame_count("/nonexistent/file.y4m", format_of(y4m), false), std::nullopt);
}

TEST(FrameCount, Containers) {
  for (const char* file : {"syn_h264.mkv", "syn_h264.mp4", "syn_h264.ts", "syn_vp9.webm"}) {
    VQX_REQUIRE_ENCODE(file, path);
    const auto estimate = estimate_frame_count(path, format_of(path), false);
    ASSERT_TRUE(estimate) << file;
    EXPECT_EQ(*estimate, frames_read(path)) << file;
  }
}

}  // namespace
}  // namespace vqx
