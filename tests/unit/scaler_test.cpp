// --scale on the CPU against Debian's ffmpeg CLI byte for byte: each rung decoded and scaled by
// vqx gives the frames `ffmpeg -i RUNG -vf scale=W:H:flags=<mode>+accurate_rnd+bitexact` writes
// (tests/encodes/make_encodes.sh), on 720p/540p to 1080p, 1080p to 4K, odd sizes, 8 and 10 bits,
// 4:2:0 and 4:4:4, in every mode; RGB is refused; an unchanged size passes frames through.
#include <fmt/format.h>
#include <gmock/gmock.h>

#include <cstring>

#include "core/error.h"
#include "io/open_input.h"
#include "io/readers.h"
#include "io/scaler.h"
#include "support/encodes.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

class ScalerAgainstFfmpeg : public ::testing::TestWithParam<ScaledRung> {};

TEST_P(ScalerAgainstFfmpeg, SameBytes) {
  const ScaledRung& c = GetParam();
  VQX_REQUIRE_ENCODE(c.rung, rung);
  const std::string expected_path = scaled_rung_path(rung, c);
  auto scaled = scale_frames(open_input(rung, {}, "distorted").source, c.width, c.height, *parse_scale_mode(c.mode));
  auto expected = open_y4m(expected_path, "expected");
  ASSERT_TRUE(scaled->format().same_layout(expected->format())) << scaled->format().describe();
  Picture a(scaled->format()), b(expected->format());
  uint64_t frames = 0;
  while (expected->read(b)) {
    ASSERT_TRUE(scaled->read(a));
    const PictureFormat& f = a.format();
    for (unsigned p = 0; p < f.plane_count(); ++p)
      ASSERT_EQ(std::memcmp(a.bytes() + f.plane_offset(p), b.bytes() + f.plane_offset(p), f.plane_bytes(p)), 0)
          << "frame " << frames << " plane " << p;
    ++frames;
  }
  EXPECT_FALSE(scaled->read(a));
  EXPECT_EQ(frames, 2u);
}

INSTANTIATE_TEST_SUITE_P(Rungs, ScalerAgainstFfmpeg, ::testing::ValuesIn(kScaledRungs), [](const auto& info) {
  std::string name = fmt::format("{}_{}x{}_{}", info.param.rung, info.param.width, info.param.height, info.param.mode);
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
});

TEST(Scaler, UnchangedSizePassesFramesThrough) {
  auto pictures = make_pictures(make_format(33, 17), {1, 2});
  auto source = open_memory(pictures, "memory");
  FrameSource* inner = source.get();
  EXPECT_EQ(scale_frames(std::move(source), 33, 17, ScaleMode::kBicubic).get(), inner);
}

TEST(Scaler, RgbIsRefused) {
  PictureFormat rgb = make_format(16, 16, ChromaSubsampling::k444);
  rgb.color = ColorModel::kRGB;
  try {
    PictureScaler scaler(rgb, 32, 32, ScaleMode::kBicubic);
    ADD_FAILURE() << "RGB was scaled";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("libswscale cannot scale"));
  }
}

}  // namespace
}  // namespace vqx::test
