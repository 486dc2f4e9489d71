// The plain model of libswscale's scaler (core/scale_filter + core/scale_rounding, the CUDA scaler's
// twin) gives libswscale's pixels bit for bit on every mode and every case of scale_cases() and
// of the fixture ladder.
#include "support/scale_model.h"

#include <fmt/format.h>

#include "core/error.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

void expect_model_matches(const Picture& in, uint32_t out_w, uint32_t out_h, ScaleMode mode) {
  PictureFormat fo = resized(in.format(), out_w, out_h);
  Picture model(fo), sws(fo);
  scale_with_model(in, model, mode);
  scale_with_libswscale(in, sws, mode);
  expect_same_samples(
      model, sws,
      fmt::format("model {} -> {}x{} {}", in.format().describe(), out_w, out_h, to_string(mode)));
}

class ScaleModelCases : public ::testing::TestWithParam<ScaleCase> {};

TEST_P(ScaleModelCases, EveryModeMatchesLibswscale) {
  const ScaleCase& c = GetParam();
  Picture in = scale_test_picture(c.in, 7);
  for (ScaleMode mode : kScaleModes) expect_model_matches(in, c.out_width, c.out_height, mode);
}

INSTANTIATE_TEST_SUITE_P(Geometries, ScaleModelCases, ::testing::ValuesIn(scale_cases()),
                         [](const ::testing::TestParamInfo<ScaleCase>& info) {
                           return scale_case_name(info.param);
                         });

TEST(ScaleModelFixtures, LadderGeometriesMatchLibswscale) {
  for (const FixtureScaleCase& c : kFixtureScaleCases) {
    VQX_REQUIRE_FIXTURE(c.pair, dir);
    Picture in = fixture_scale_input(c, dir);
    for (ScaleMode mode : kScaleModes) expect_model_matches(in, c.out_width, c.out_height, mode);
  }
}

TEST(ScaleFilter, RejectsWhatLibswscaleCannotScaleInOneStep) {
  EXPECT_THROW(build_scale_filter(4000, 20, ScaleMode::kLanczos, ScaleAxis::kHorizontal),
               InputError);
  EXPECT_NO_THROW(build_scale_filter(4000, 20, ScaleMode::kNeighbor, ScaleAxis::kHorizontal));
  PictureFormat eleven;
  eleven.width = eleven.height = 64;
  eleven.bit_depth = 11;
  EXPECT_THROW(build_plane_filters(eleven, resized(eleven, 128, 128), ScaleMode::kBicubic),
               InputError);
  PictureFormat rgb = eleven;
  rgb.bit_depth = 8;
  rgb.color = ColorModel::kRGB;
  rgb.subsampling = ChromaSubsampling::k444;
  EXPECT_THROW(build_plane_filters(rgb, resized(rgb, 128, 128), ScaleMode::kBicubic), InputError);
}

TEST(ScaleFilter, ModesParseByTheirNames) {
  for (ScaleMode mode : kScaleModes) EXPECT_EQ(parse_scale_mode(to_string(mode)), mode);
  EXPECT_FALSE(parse_scale_mode("area").has_value());
}

}  // namespace
}  // namespace vqx::test
