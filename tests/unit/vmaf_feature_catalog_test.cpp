// The VMAF model code sees the extractors through the metrics' own declarations: every option a
// model may set carries libvmaf's alias and feature-parameter flag (shared/spec/vmaf.md 2.1, 3.1,
// 4.1, cambi.md 2.1, speed.md 1.2), every internal name a model reads maps to the printed name
// of vmaf.md 1, and the column a built-in model reads is one the metric writes with the model's
// options.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "engine/metric.h"
#include "metrics/vmaf/feature_catalog.h"
#include "metrics/vmaf/model.h"

namespace vqx::vmaf {
namespace {

struct GoldenOption {
  const char* extractor;
  const char* option;
  const char* alias;  // "" where libvmaf has none (the name is used)
  bool feature_param;
};

// From the option tables of the spec; the float extractors' from libvmaf's float_vif.c,
// float_adm.c and float_motion.c option lists.
const GoldenOption kGoldenOptions[] = {
    {"vif", "vif_enhn_gain_limit", "egl", true},
    {"vif", "vif_skip_scale0", "ssclz", true},
    {"vif", "debug", "", false},
    {"adm", "adm_enhn_gain_limit", "egl", true},
    {"adm", "adm_norm_view_dist", "nvd", true},
    {"adm", "adm_ref_display_height", "rdh", true},
    {"adm", "adm_csf_mode", "csf", true},
    {"adm", "adm_csf_scale", "scf", true},
    {"adm", "adm_csf_diag_scale", "scfd", true},
    {"adm", "adm_noise_weight", "nw", true},
    {"adm", "adm_dlm_weight", "dlmw", true},
    {"adm", "adm_min_val", "min", true},
    {"adm", "adm_skip_scale0", "ssz", true},
    {"adm", "adm_skip_aim", "", false},
    {"adm", "debug", "", false},
    {"motion", "motion_force_zero", "force_0", true},
    {"motion", "motion_max_val", "mmxv", true},
    {"motion", "motion_fps_weight", "mfw", true},
    {"motion", "motion_blend_factor", "mbf", true},
    {"motion", "motion_blend_offset", "mbo", true},
    {"motion", "motion_five_frame_window", "mffw", true},
    {"motion", "motion_moving_average", "mma", true},
    {"motion", "debug", "", false},
    {"cambi", "cambi_max_val", "cmxv", true},
    {"cambi", "enc_width", "encw", true},
    {"cambi", "enc_height", "ench", true},
    {"cambi", "enc_bitdepth", "encbd", true},
    {"cambi", "src_width", "srcw", true},
    {"cambi", "src_height", "srch", true},
    {"cambi", "window_size", "ws", true},
    {"cambi", "topk", "", true},
    {"cambi", "cambi_topk", "ctpk", true},
    {"cambi", "tvi_threshold", "tvit", true},
    {"cambi", "cambi_vis_lum_threshold", "vlt", true},
    {"cambi", "max_log_contrast", "mlc", true},
    {"cambi", "heatmaps_path", "", false},
    {"cambi", "full_ref", "", false},
    {"cambi", "eotf", "", true},
    {"cambi", "cambi_eotf", "ceot", true},
    {"cambi", "cambi_high_res_speedup", "hrs", true},
    {"speed_chroma", "speed_kernelscale", "ks", true},
    {"speed_chroma", "speed_prescale", "ps", true},
    {"speed_chroma", "speed_prescale_method", "psm", true},
    {"speed_chroma", "speed_sigma_nn", "snn", true},
    {"speed_chroma", "speed_nn_floor", "nnf", true},
    {"speed_chroma", "speed_max_val", "mxv", true},
    {"speed_chroma", "speed_weight_var_mode", "wvm", true},
    {"float_vif", "vif_enhn_gain_limit", "egl", true},
    {"float_vif", "vif_kernelscale", "ks", true},
    {"float_vif", "vif_prescale", "ps", true},
    {"float_vif", "vif_prescale_method", "pm", true},
    {"float_vif", "vif_sigma_nsq", "snsq", true},
    {"float_vif", "vif_scale1_min_val", "s1miv", true},
    {"float_vif", "vif_skip_scale0", "ssclz", true},
    {"float_vif", "debug", "", false},
    {"float_adm", "adm_ref_display_height", "rdf", true},
    {"float_adm", "adm_bypass_cm", "bcm", true},
    {"float_adm", "adm_p_norm", "apn", true},
    {"float_adm", "adm_f2s3", "f2s3", true},
    {"float_adm", "adm_skip_aim_scale", "sasc", true},
    {"float_adm", "debug", "", false},
    {"float_motion", "motion_add_scale1", "mdc", true},
    {"float_motion", "motion_filter_size", "mfs", true},
    {"float_motion", "motion_add_uv", "mau", true},
    {"float_motion", "debug", "", false},
};

TEST(VmafFeatureCatalog, OptionsCarryLibvmafAliasesAndFeatureParamFlags) {
  for (const GoldenOption& g : kGoldenOptions) {
    SCOPED_TRACE(std::string(g.extractor) + "." + g.option);
    const CatalogExtractor* extractor = find_extractor(g.extractor);
    ASSERT_NE(extractor, nullptr);
    EXPECT_EQ(extractor, find_metric(g.extractor));  // the registry's declaration, not a copy
    const OptionSpec* option = find_option(extractor->options, g.option);
    ASSERT_NE(option, nullptr);
    EXPECT_EQ(option->feature_param, g.feature_param);
    if (g.feature_param) {
      EXPECT_EQ(option->suffix_name(), *g.alias ? g.alias : g.option);
    }
  }
}

TEST(VmafFeatureCatalog, InternalNamesMapToTheSpecsPrintedNames) {
  const std::vector<std::pair<std::string, std::pair<std::string, std::string>>> golden = {
      {"VMAF_integer_feature_vif_scale0_score", {"vif", "integer_vif_scale0"}},
      {"VMAF_integer_feature_vif_scale3_score", {"vif", "integer_vif_scale3"}},
      {"VMAF_integer_feature_adm2_score", {"adm", "integer_adm2"}},
      {"VMAF_integer_feature_aim_score", {"adm", "integer_aim"}},
      {"VMAF_integer_feature_adm3_score", {"adm", "integer_adm3"}},
      {"integer_adm_scale2", {"adm", "integer_adm_scale2"}},
      {"VMAF_integer_feature_motion_sad_score", {"motion", "VMAF_integer_feature_motion_sad_score"}},
      {"VMAF_integer_feature_motion2_score", {"motion", "integer_motion2"}},
      {"VMAF_integer_feature_motion3_score", {"motion", "integer_motion3"}},
      {"Cambi_feature_cambi_score", {"cambi", "cambi"}},
      {"Speed_chroma_feature_speed_chroma_uv_score", {"speed_chroma", "speed_chroma_uv"}},
      {"VMAF_feature_vif_scale1_score", {"float_vif", "vif_scale1"}},
      {"VMAF_feature_adm2_score", {"float_adm", "adm2"}},
      {"VMAF_feature_motion2_score", {"float_motion", "motion2"}},
      // A printed name finds its extractor too.
      {"integer_motion2", {"motion", "integer_motion2"}},
  };
  for (const auto& [internal, expected] : golden) {
    SCOPED_TRACE(internal);
    auto source = find_feature_source(internal);
    ASSERT_TRUE(source.has_value());
    EXPECT_EQ(source->extractor->name, expected.first);
    EXPECT_EQ(source->printed, expected.second);
  }
  EXPECT_FALSE(find_feature_source("psnr_y").has_value());
  EXPECT_EQ(find_extractor("psnr"), nullptr);  // no model reads it
}

TEST(VmafFeatureCatalog, ModelOutputsAreWhatTheMetricsWrite) {
  // Each metric's printed model outputs are among the names its CPU metric writes by default.
  size_t checked = 0;
  for (const CatalogExtractor* e : feature_catalog()) {
    SCOPED_TRACE(e->name);
    std::vector<std::string> names = e->make_cpu(OptionValues(e->options))->feature_names();
    for (const auto& out : e->model_outputs) {
      EXPECT_NE(std::find(names.begin(), names.end(), out.printed), names.end()) << out.printed;
      ++checked;
    }
  }
  EXPECT_EQ(feature_catalog().size(), 8u);
  EXPECT_GE(checked, 30u);
}

TEST(VmafFeatureCatalog, EveryBuiltinModelColumnIsWrittenByItsMetric) {
  // The model code names a column from the catalog (output_name); the metric names its outputs
  // from its OptionValues (name_suffix). Both read the same declaration, so they must agree on
  // every feature of every model vqx ships, options included.
  size_t columns = 0;
  for (const std::string& version : builtin_model_versions()) {
    SCOPED_TRACE(version);
    LoadedModel model = load_model(parse_model_request("version=" + version));
    std::set<std::string> written;
    std::vector<const LoadedModel*> all = {&model};
    for (const auto& member : model.collection()) all.push_back(&member);
    for (const LoadedModel* m : all)
      for (const std::string& text : m->feature_requests()) {
        MetricRequest request = parse_metric_request(text);
        ASSERT_EQ(request.metric, find_extractor(request.metric->name)) << text;
        for (auto& name : request.metric->make_cpu(request.options)->feature_names())
          written.insert(name);
      }
    for (const LoadedModel* m : all)
      for (const ModelFeature& f : m->features()) {
        EXPECT_TRUE(written.count(f.column)) << f.name << " -> " << f.column;
        ++columns;
      }
  }
  EXPECT_GE(columns, 100u);
}

}  // namespace
}  // namespace vqx::vmaf
