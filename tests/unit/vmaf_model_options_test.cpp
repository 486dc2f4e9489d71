// What a model asks of the extractors (--feature strings and output columns, vmaf.md 5),
// `--model` overrides, and the score flags disable_clip / enable_transform (vmaf.md 6.4).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "metrics/vmaf/builtin_models.h"
#include "metrics/vmaf/model.h"
#include "support/fixtures.h"

namespace vqx::vmaf {
namespace {

using Strings = std::vector<std::string>;

LoadedModel load(const std::string& spec) { return load_model(parse_model_request(spec)); }

TEST(VmafModelFeatures, V061ReadsTheDefaultIntegerFeatures) {
  auto m = load("version=vmaf_v0.6.1");
  EXPECT_EQ(m.feature_requests(), (Strings{"adm", "motion", "vif"}));
  EXPECT_EQ(m.feature_columns(),
            (Strings{"integer_adm2", "integer_motion2", "integer_vif_scale0", "integer_vif_scale1",
                     "integer_vif_scale2", "integer_vif_scale3"}));
}

TEST(VmafModelFeatures, NegModelUsesGainLimitsOfOne) {
  auto m = load("version=vmaf_v0.6.1neg");
  EXPECT_EQ(m.feature_requests(),
            (Strings{"adm=adm_enhn_gain_limit=1", "motion", "vif=vif_enhn_gain_limit=1"}));
  EXPECT_EQ(m.feature_columns()[0], "integer_adm2_egl_1");
  EXPECT_EQ(m.feature_columns()[1], "integer_motion2");
  EXPECT_EQ(m.feature_columns()[5], "integer_vif_scale3_egl_1");
}

TEST(VmafModelFeatures, V1ModelsNameOnlyNonDefaultOptions) {
  // adm_norm_view_dist=3, adm_ref_display_height=1080 and speed_kernelscale=1 are defaults: they
  // neither travel nor rename (golden column names, golden/README.md).
  auto m = load("version=vmaf_v1.0.16_3d0h");
  EXPECT_EQ(
      m.feature_requests(),
      (Strings{"cambi=cambi_high_res_speedup=1080:cambi_max_val=17:cambi_vis_lum_threshold=0.06",
               "speed_chroma=speed_max_val=45:speed_nn_floor=0.1:speed_sigma_nn=0.19:"
               "speed_weight_var_mode=5",
               "adm=adm_csf_mode=2:adm_dlm_weight=0.7:adm_enhn_gain_limit=1:adm_min_val=0.5:"
               "adm_noise_weight=0.02",
               "motion=motion_max_val=18"}));
  EXPECT_EQ(
      m.feature_columns(),
      (Strings{"cambi_hrs_1080_cmxv_17_vlt_0.06", "speed_chroma_uv_mxv_45_nnf_0.1_snn_0.19_wvm_5",
               "integer_adm3_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02", "integer_motion3_mmxv_18"}));

  auto hfr = load("version=vmaf_v1.0.16_hfr_3d0h_2160");
  EXPECT_EQ(hfr.feature_requests()[3],
            "motion=motion_five_frame_window=true:motion_max_val=18:motion_moving_average=true");
  EXPECT_EQ(hfr.feature_columns()[1],
            "speed_chroma_uv_mxv_45_nnf_0.1_ps_0.5_psm_bilinear_snn_0.19_wvm_5");
  EXPECT_EQ(hfr.feature_columns()[2], "integer_adm3_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02_rdh_2160");
  EXPECT_EQ(hfr.feature_columns()[3], "integer_motion3_mffw_mmxv_18_mma");
}

TEST(VmafModelFeatures, RequestsAreSharedAcrossModels) {
  auto models = load_models({"version=vmaf_v0.6.1", "version=vmaf_4k_v0.6.1:name=vmaf_4k",
                             "version=vmaf_v0.6.1neg:name=vmaf_neg"});
  EXPECT_EQ(
      model_feature_requests(models),
      (Strings{"adm", "motion", "vif", "adm=adm_enhn_gain_limit=1", "vif=vif_enhn_gain_limit=1"}));
}

TEST(VmafModelFeatures, UserFeaturesSharingAModelInstanceAreDropped) {
  auto models = load_models({"version=vmaf_v0.6.1"});
  // debug is not a feature parameter: adm=debug=true is the model's adm instance (vmaf.md 5).
  // vif_skip_scale0 is one, so that vif is a second instance; psnr is not a model extractor.
  EXPECT_EQ(merged_feature_requests(models, {"adm=debug=true", "vif=vif_skip_scale0=true", "psnr",
                                             "motion=motion_max_val=10000.0"}),
            (Strings{"adm", "motion", "vif", "vif=vif_skip_scale0=true", "psnr"}));
}

TEST(VmafModelFeatures, MetricRequestsParseWithTheRegistry) {
  if (!find_metric("adm") || !find_metric("vif") || !find_metric("motion"))
    GTEST_SKIP() << "the integer VMAF extractors are not registered in this build";
  auto requests = model_metric_requests(load_models({"version=vmaf_v0.6.1neg"}));
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0].metric->name, "adm");
  EXPECT_EQ(requests[0].options.get_double("adm_enhn_gain_limit"), 1.0);
  EXPECT_EQ(requests[2].metric->name, "vif");
  EXPECT_EQ(requests[2].options.get_double("vif_enhn_gain_limit"), 1.0);
}

TEST(VmafModelOverrides, MergeNormaliseAndRename) {
  // Values go through strtof and %g (vmaf.md 5): "1.0" -> "1", 1.23456789 -> "1.23457".
  auto m =
      load("version=vmaf_v0.6.1:adm.adm_enhn_gain_limit=1.0:vif.vif_enhn_gain_limit=1.23456789");
  EXPECT_EQ(m.feature_requests(),
            (Strings{"adm=adm_enhn_gain_limit=1", "motion", "vif=vif_enhn_gain_limit=1.23457"}));
  EXPECT_EQ(m.feature_columns()[0], "integer_adm2_egl_1");
  EXPECT_EQ(m.feature_columns()[2], "integer_vif_scale0_egl_1.23457");

  // An override back to the default removes the option and the suffix.
  auto neg_reset = load("version=vmaf_v0.6.1neg:adm.adm_enhn_gain_limit=100");
  EXPECT_EQ(neg_reset.feature_requests()[0], "adm");
  EXPECT_EQ(neg_reset.feature_columns()[0], "integer_adm2");

  // A non-feature-param option travels to the extractor but does not rename its outputs.
  auto portable = load("version=vmaf_v0.6.1:adm.adm_simd_compat=none");
  EXPECT_EQ(portable.feature_requests()[0], "adm=adm_simd_compat=none");
  EXPECT_EQ(portable.feature_columns()[0], "integer_adm2");

  // An override replaces the model's own value.
  auto v1 = load(
      "version=vmaf_v1.0.16_3d0h:motion.motion_max_val=20:motion.motion_five_frame_window=true");
  EXPECT_EQ(v1.feature_columns()[3], "integer_motion3_mffw_mmxv_20");
  EXPECT_EQ(v1.feature_requests()[3], "motion=motion_five_frame_window=true:motion_max_val=20");
}

TEST(VmafModelOverrides, ThreeDZeroHOverriddenToFiveDZeroHScoresLikeIt) {
  // 3d0h and 5d0h differ only in feature options; with the options overridden, the 3d0h model
  // reads the 5d0h columns and reproduces the 5d0h goldens (n576: also the chroma correction).
  auto m = load(
      "version=vmaf_v1.0.16_3d0h:adm.adm_norm_view_dist=5:speed_chroma.speed_prescale=0.6"
      ":speed_chroma.speed_prescale_method=bilinear");
  auto five = load("version=vmaf_v1.0.16_5d0h");
  EXPECT_EQ(m.feature_columns(), five.feature_columns());
  EXPECT_EQ(m.feature_requests(), five.feature_requests());
  for (const char* pair : {"n576", "band1080"}) {
    auto golden = test::load_golden(pair, "netflix-p17", "vmaf_v1.0.16_5d0h");
    const auto& want = golden.frames.at("vmaf");
    std::vector<double> got;
    for (size_t f = 0; f < want.size(); ++f) {
      std::vector<double> raw;
      for (const auto& c : m.feature_columns()) raw.push_back(golden.frames.at(c).at(f));
      got.push_back(m.predict(raw));
    }
    test::expect_bit_exact(got, want, pair);
  }
}

TEST(VmafModelOverrides, Errors) {
  auto fails = [](const char* spec, const std::string& needle) {
    try {
      load(spec);
      ADD_FAILURE() << spec << ": no error";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  fails("version=vmaf_v0.6.1:foo.bar=1", "unknown feature extractor 'foo'");
  fails("version=vmaf_v0.6.1:cambi.enc_width=960",
        "model version=vmaf_v0.6.1 does not use extractor 'cambi'");
  fails("version=vmaf_v0.6.1:adm.adm_egl=1",
        "extractor 'adm' has no option 'adm_egl' (options: adm_enhn_gain_limit,");
  fails("version=vmaf_v0.6.1:adm.adm_enhn_gain_limit=0.5",
        "adm.adm_enhn_gain_limit=0.5 is invalid: must be in [1, 100]");
  fails("version=vmaf_v0.6.1:motion.motion_five_frame_window=1",
        "is invalid: expected true or false");
  fails("version=vmaf_v0.6.1:adm.adm_csf_mode=1.5",
        "adm.adm_csf_mode=1.5 is invalid: expected an integer");
  fails("version=vmaf_v1.0.16_3d0h:speed_chroma.speed_prescale_method=area",
        "expected one of nearest, bilinear, bicubic, lanczos4");
}

// vmaf_v0.6.1 on golden frames (n576), with and without the flags.
struct Frames {
  std::vector<std::vector<double>> raw;
};
Frames golden_frames(const LoadedModel& m) {
  auto golden = test::load_golden("n576", "netflix-p17", "vmaf_v0.6.1");
  Frames out;
  for (size_t f = 0; f < golden.frames.at("vmaf").size(); ++f) {
    std::vector<double> raw;
    for (const auto& c : m.feature_columns()) raw.push_back(golden.frames.at(c).at(f));
    out.raw.push_back(raw);
  }
  return out;
}

TEST(VmafModelScore, ClipAndDisableClip) {
  auto clipped = load("version=vmaf_v0.6.1");
  auto unclipped = load("version=vmaf_v0.6.1:disable_clip");
  // Perfect fidelity with strong motion scores above 100; very low ADM with high VIF (an
  // unnatural mix, found by a search) below 0.
  std::vector<double> high = {1.0, 30.0, 1.0, 1.0, 1.0, 1.0};
  std::vector<double> low = {0.062, 0.259, 0.785, 0.966, 0.642, 0.439};
  EXPECT_GT(unclipped.predict(high), 100.0);
  EXPECT_EQ(clipped.predict(high), 100.0);
  EXPECT_LT(unclipped.predict(low), 0.0);
  EXPECT_EQ(clipped.predict(low), 0.0);
  // Inside [0, 100] the flag changes nothing.
  for (const auto& raw : golden_frames(clipped).raw) {
    double s = clipped.predict(raw);
    if (s > 0 && s < 100) {
      EXPECT_EQ(unclipped.predict(raw), s);
    }
  }
  // v1 3d0h_2160 clips at 110, not 100.
  auto v1 = load("version=vmaf_v1.0.16_3d0h_2160");
  auto v1_unclipped = load("version=vmaf_v1.0.16_3d0h_2160:disable_clip=true");
  std::vector<double> v1_high = {0.0, 0.0, 1.0, 18.0};
  EXPECT_GT(v1_unclipped.predict(v1_high), 110.0);
  EXPECT_EQ(v1.predict(v1_high), 110.0);
}

TEST(VmafModelScore, EnableTransformAppliesV061Polynomial) {
  // vmaf_v0.6.1's transform has no "enabled" key, so it is off unless asked for (vmaf.md 6.1);
  // then y = max(p0 + p1 x + p2 x x, x), clipped (6.4, 6.8).
  const double p0 = 1.70674692, p1 = 1.72643844, p2 = -0.00705305;
  auto plain = load("version=vmaf_v0.6.1:disable_clip");
  auto transformed = load("version=vmaf_v0.6.1:enable_transform");
  auto transformed_unclipped = load("version=vmaf_v0.6.1:enable_transform:disable_clip");
  int changed = 0;
  for (const auto& raw : golden_frames(plain).raw) {
    double x = plain.predict(raw);
    double y = ((0.0 + p0) + p1 * x) + (p2 * x) * x;
    if (y < x) y = x;
    EXPECT_EQ(transformed_unclipped.predict(raw), y);
    double clipped = y < 0 ? 0 : y > 100 ? 100 : y;
    EXPECT_EQ(transformed.predict(raw), clipped);
    changed += clipped != std::min(std::max(x, 0.0), 100.0);
  }
  EXPECT_GT(changed, 0);
  auto off = load("version=vmaf_v0.6.1:enable_transform=false:disable_clip");
  for (const auto& raw : golden_frames(plain).raw) EXPECT_EQ(off.predict(raw), plain.predict(raw));
}

TEST(VmafModelScore, PiecewiseLinearKnots) {
  auto base = nlohmann::json::parse(builtin_model_files().at(0).json);
  base["model_dict"].erase("score_clip");
  auto with_transform = [&](nlohmann::json t) {
    auto j = base;
    j["model_dict"]["score_transform"] = t;
    return load_model_json(j.dump(), ModelRequest{}, "knots");
  };
  auto plain = load_model_json(base.dump(), ModelRequest{}, "plain");
  // Through the origin: y = ((100 - 0) / 200) x + 0.
  auto half = with_transform({{"enabled", true}, {"knots", {{0, 0}, {200, 100}}}});
  // Flat at 20 up to x = 30, then y = 2x - 40 (alpha = 40/20, beta = 20 - 30*2), extrapolated.
  auto bent = with_transform({{"enabled", true}, {"knots", {{10, 20}, {30, 20}, {50, 60}}}});
  auto bent_lte = with_transform(
      {{"enabled", true}, {"knots", {{10, 20}, {30, 20}, {50, 60}}}, {"out_lte_in", "true"}});
  for (const auto& raw : golden_frames(plain).raw) {
    double x = plain.predict(raw);
    ASSERT_GT(x, 50.0);
    EXPECT_EQ(half.predict(raw), 0.5 * x + 0.0);
    EXPECT_EQ(bent.predict(raw), 2.0 * x + -40.0);
    EXPECT_EQ(bent_lte.predict(raw), x);  // 2x - 40 > x here
  }
  std::vector<double> low = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  ASSERT_LT(plain.predict(low), 10.0);
  EXPECT_EQ(bent.predict(low), 20.0);  // below the first knot: the flat segment's y
}

TEST(VmafModelApply, AddsTheScoreColumnForSelectedFrames) {
  auto m = load("version=vmaf_v0.6.1:name=score");
  auto golden = test::load_golden("n576", "netflix-p17", "vmaf_v0.6.1");
  ResultTable table;
  table.set_frame_count(6);
  table.set_subsample(2);
  for (const auto& c : m.feature_columns()) {
    size_t index = table.add_feature(c);
    for (uint64_t f = 0; f < 6; f += 2) table.put(f, index, golden.frames.at(c).at(f));
  }
  apply_model(m, table);
  auto column = table.find_feature("score");
  ASSERT_TRUE(column);
  for (uint64_t f = 0; f < 6; ++f) {
    auto v = table.get(f, *column);
    if (f % 2 == 0) {
      ASSERT_TRUE(v);
      EXPECT_EQ(*v, golden.frames.at("vmaf").at(f));
    } else {
      EXPECT_FALSE(v);
    }
  }
  // A second model of the same name collides with the column.
  EXPECT_THROW(apply_model(m, table), UsageError);
}

TEST(VmafModelApply, MissingFeaturesAreNamed) {
  auto m = load("version=vmaf_v0.6.1neg");
  ResultTable table;
  table.set_frame_count(1);
  for (const auto& c : load("version=vmaf_v0.6.1").feature_columns())
    table.put(0, table.add_feature(c), 0.5);
  try {
    apply_model(m, table);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("feature column 'integer_adm2_egl_1' was not computed"),
              std::string::npos)
        << e.what();
  }
  auto v061 = load("version=vmaf_v0.6.1");
  table.set_frame_count(2);
  try {
    apply_model(v061, table);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'integer_adm2' has no value at frame 1"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace vqx::vmaf
