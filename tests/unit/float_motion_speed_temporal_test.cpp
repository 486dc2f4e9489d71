// float_motion and speed_temporal as temporal metrics: names and suffixes, motion2 / motion3
// from the per-frame scores, the options that change them, frame 0, refused inputs.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "engine/metric.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

std::vector<std::string> names_for(const std::string& spec) {
  MetricRequest r = parse_metric_request(spec);
  return r.metric->make_cpu(r.options)->feature_names();
}

// A moving ramp: frame k is the ramp picture of seed k with some noise.
std::vector<Picture> moving(const PictureFormat& f, uint32_t frames) {
  std::vector<Picture> out;
  for (uint32_t k = 0; k < frames; ++k) out.push_back(make_picture(f, 10 + k * k, 6 + int(k) * 3));
  return out;
}

TEST(FloatMotion, NamesAndSuffixesAreLibvmafs) {
  EXPECT_EQ(names_for("float_motion"), (std::vector<std::string>{"motion2", "motion3", "motion"}));
  EXPECT_EQ(names_for("float_motion=debug=false"),
            (std::vector<std::string>{"motion2", "motion3"}));
  EXPECT_EQ(names_for("float_motion=motion_add_uv=true:motion_filter_size=3")[0],
            "motion2_mau_mfs_3");
  EXPECT_EQ(names_for("float_motion=motion_max_val=20")[1], "motion3_mmxv_20");
}

TEST(FloatMotion, Motion2IsTheSmallerOfTwoNeighbours) {
  const auto frames = moving(make_format(48, 32), 6);
  auto report = run_on_pictures(frames, frames, {"float_motion"});
  const auto motion = column(*report, "motion"), motion2 = column(*report, "motion2"),
             motion3 = column(*report, "motion3");
  ASSERT_EQ(motion.size(), 6u);
  EXPECT_EQ(motion[0], 0.0);
  EXPECT_EQ(motion2[0], 0.0);
  EXPECT_EQ(motion3[0], motion[1]);  // blend factor 1: motion3 is motion2, frame 0 takes frame 1's
  for (size_t k = 1; k < 6; ++k) {
    EXPECT_GT(motion[k], 0.0);
    EXPECT_EQ(motion2[k], k + 1 < 6 ? std::min(motion[k], motion[k + 1]) : motion[k]) << k;
    EXPECT_EQ(motion3[k], motion2[k]) << k;
  }
}

TEST(FloatMotion, OptionsChangeTheScores) {
  const auto frames = moving(make_format(48, 32, ChromaSubsampling::k444), 4);
  const double base = column(*run_on_pictures(frames, frames, {"float_motion"}), "motion")[2];
  auto motion_of = [&](const std::string& opts, const std::string& name) {
    return column(*run_on_pictures(frames, frames, {"float_motion=" + opts}), name)[2];
  };
  EXPECT_GT(motion_of("motion_add_uv=true", "motion_mau"), base);
  EXPECT_GT(motion_of("motion_add_scale1=true", "motion_mdc"), base);
  EXPECT_NE(motion_of("motion_filter_size=1", "motion_mfs_1"), base);
  EXPECT_EQ(motion_of("motion_fps_weight=2", "motion_mfw_2"), 2 * base);
  EXPECT_EQ(motion_of("motion_max_val=0.5", "motion_mmxv_0.5"), std::min(base, 0.5));
  EXPECT_EQ(motion_of("motion_force_zero=true", "motion_force_0"), 0.0);
}

TEST(FloatMotion, RefusesChromaOfMonochromeInput) {
  auto frames = moving(make_format(48, 32, ChromaSubsampling::k400), 2);
  EXPECT_THROW(run_on_pictures(frames, frames, {"float_motion=motion_add_uv=true"}), InputError);
  EXPECT_NO_THROW(run_on_pictures(frames, frames, {"float_motion"}));
}

TEST(SpeedTemporal, NamesAndSuffixesAreLibvmafs) {
  EXPECT_EQ(names_for("speed_temporal"), std::vector<std::string>{"speed_temporal"});
  EXPECT_EQ(names_for("speed_temporal=speed_use_ref_diff=true:speed_sigma_nn=0.19")[0],
            "speed_temporal_snn_0.19_urd");
  EXPECT_THROW(names_for("speed_temporal=speed_kernelscale=0.8"), UsageError);
}

TEST(SpeedTemporal, FrameZeroIsZeroAndNothingIsClipped) {
  const PictureFormat f = make_format(400, 240);  // 25x15 after decimation: a regular covariance
  auto ref = moving(f, 3);
  std::vector<Picture> dis;
  for (uint32_t k = 0; k < 3; ++k) dis.push_back(make_picture(f, 50 + k, 20));
  const auto plain = column(*run_on_pictures(ref, dis, {"speed_temporal"}), "speed_temporal");
  EXPECT_EQ(plain[0], 0.0);
  EXPECT_TRUE(std::isfinite(plain[1]) && plain[1] != 0.0) << plain[1];
  // speed_max_val is named but never applied to speed_temporal, as upstream.
  const auto capped = column(*run_on_pictures(ref, dis, {"speed_temporal=speed_max_val=0.001"}),
                             "speed_temporal_mxv_0.001");
  EXPECT_EQ(capped, plain);
  const auto urd = column(*run_on_pictures(ref, dis, {"speed_temporal=speed_use_ref_diff=true"}),
                          "speed_temporal_urd");
  EXPECT_NE(urd[1], plain[1]);
}

TEST(SpeedTemporal, RefusesPicturesBelowOneBlock) {
  auto frames = moving(make_format(79, 96), 2);
  EXPECT_THROW(run_on_pictures(frames, frames, {"speed_temporal"}), InputError);
}

}  // namespace
}  // namespace vqx::test
