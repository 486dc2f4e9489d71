// Option and output tables of the extractors VMAF models read (shared/spec/vmaf.md 1-5,
// cambi.md 2.1, speed.md 1.2), and libvmaf's rules for option text and output names.
#include "metrics/vmaf/feature_catalog.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace vqx::vmaf {
namespace {

CatalogOption boolean(std::string name, std::string alias, bool feature_param = true) {
  return {std::move(name), std::move(alias), OptionType::kBool, false, feature_param, 0, 1, {}};
}
CatalogOption integer(std::string name, std::string alias, int64_t def, int64_t min, int64_t max) {
  return {
      std::move(name), std::move(alias), OptionType::kInt, def, true, double(min), double(max), {}};
}
CatalogOption real(std::string name, std::string alias, double def, double min, double max) {
  return {std::move(name), std::move(alias), OptionType::kDouble, def, true, min, max, {}};
}
CatalogOption text(std::string name, std::string alias, std::string def,
                   std::vector<std::string> choices, bool feature_param = true) {
  return {
      std::move(name),   std::move(alias), OptionType::kString, std::move(def), feature_param, 0, 0,
      std::move(choices)};
}

// The float extractors the vmaf_float_* models read: libvmaf's float_vif, float_adm and
// float_motion (docs/float_vif.md, float_adm.md, float_motion.md).
void add_float_extractors(std::vector<CatalogExtractor>& c) {
  c.push_back({"float_vif",
               {real("vif_enhn_gain_limit", "egl", 100.0, 1.0, 100.0),
                real("vif_kernelscale", "ks", 1.0, 0.1, 4.0),
                real("vif_prescale", "ps", 1.0, 0.1, 4.0),
                real("vif_scale1_min_val", "s1miv", 0.0, 0.0, 1.0),
                real("vif_scale2_min_val", "s2miv", 0.0, 0.0, 1.0),
                real("vif_scale3_min_val", "s3miv", 0.0, 0.0, 1.0),
                text("vif_prescale_method", "pm", "nearest",
                     {"nearest", "bilinear", "bicubic", "lanczos4"}),
                real("vif_sigma_nsq", "snsq", 2.0, 0.0, 5.0), boolean("vif_skip_scale0", "ssclz"),
                boolean("debug", "", false)},
               {}});
  for (int s = 0; s < 4; ++s)
    c.back().outputs.emplace_back(fmt::format("VMAF_feature_vif_scale{}_score", s),
                                  fmt::format("vif_scale{}", s));
  CatalogExtractor adm{"float_adm",
                       {real("adm_enhn_gain_limit", "egl", 100.0, 1.0, 100.0),
                        real("adm_norm_view_dist", "nvd", 3.0, 0.75, 24.0),
                        real("adm_noise_weight", "nw", 0.03125, 0.0, 1500.0),
                        real("adm_csf_scale", "scf", 1.0, 0.0, 50.0),
                        real("adm_csf_diag_scale", "scfd", 1.0, 0.0, 50.0),
                        integer("adm_ref_display_height", "rdf", 1080, 1, 4320),
                        integer("adm_csf_mode", "csf", 0, 0, 9),
                        integer("adm_bypass_cm", "bcm", 0, 0, 1), boolean("adm_adm3_apply_hm", "aah"),
                        real("adm_p_norm", "apn", 3.0, 1.0, 20.0),
                        real("adm_dlm_weight", "dlmw", 0.5, 0.0, 1.0),
                        real("adm_min_val", "min", 0.0, 0.0, 1.0)},
                       {{"VMAF_feature_adm2_score", "adm2"},
                        {"VMAF_feature_aim_score", "aim"},
                        {"VMAF_feature_adm3_score", "adm3"}}};
  for (const char* f : {"f1", "f2"})
    for (int s = 0; s < 4; ++s) {
      std::string name = fmt::format("{}s{}", f, s);
      adm.options.push_back(real("adm_" + name, name, -1.0, -1.0, 10.0));
    }
  adm.options.push_back(integer("adm_skip_aim_scale", "sasc", -1, 0, 3));
  adm.options.push_back(boolean("adm_skip_scale0", "ssz"));
  adm.options.push_back(boolean("debug", "", false));
  for (int s = 0; s < 4; ++s)
    adm.outputs.emplace_back(fmt::format("VMAF_feature_adm_scale{}_score", s),
                             fmt::format("adm_scale{}", s));
  c.push_back(std::move(adm));
  c.push_back({"float_motion",
               {boolean("motion_force_zero", "force_0"),
                real("motion_fps_weight", "mfw", 1.0, 0.0, 5.0),
                real("motion_blend_factor", "mbf", 1.0, 0.0, 1.0),
                real("motion_blend_offset", "mbo", 40.0, 0.0, 1000.0),
                boolean("motion_add_scale1", "mdc"), integer("motion_filter_size", "mfs", 5, 0, 9),
                boolean("motion_add_uv", "mau"),
                real("motion_max_val", "mmxv", 10000.0, 0.0, 10000.0),
                CatalogOption{"debug", "", OptionType::kBool, true, false, 0, 1, {}}},
               {{"VMAF_feature_motion2_score", "motion2"},
                {"VMAF_feature_motion_score", "motion"},
                {"VMAF_feature_motion3_score", "motion3"}}});
}

std::vector<CatalogExtractor> make_catalog() {
  std::vector<CatalogExtractor> c;
  // vmaf.md 2.1 and 1.
  c.push_back({"vif",
               {real("vif_enhn_gain_limit", "egl", 100.0, 1.0, 100.0),
                boolean("vif_skip_scale0", "ssclz"), boolean("debug", "", false)},
               {}});
  for (int s = 0; s < 4; ++s)
    c.back().outputs.emplace_back(fmt::format("VMAF_integer_feature_vif_scale{}_score", s),
                                  fmt::format("integer_vif_scale{}", s));
  // vmaf.md 3.1 and 1.
  c.push_back(
      {"adm",
       {real("adm_enhn_gain_limit", "egl", 100.0, 1.0, 100.0),
        real("adm_norm_view_dist", "nvd", 3.0, 0.75, 24.0),
        integer("adm_ref_display_height", "rdh", 1080, 1, 4320),
        integer("adm_csf_mode", "csf", 0, 0, 3), real("adm_csf_scale", "scf", 1.0, 0.0, 50.0),
        real("adm_csf_diag_scale", "scfd", 1.0, 0.0, 50.0),
        real("adm_noise_weight", "nw", 0.03125, 0.0, 1500.0),
        real("adm_dlm_weight", "dlmw", 0.5, 0.0, 1.0), real("adm_min_val", "min", 0.0, 0.0, 1.0),
        boolean("adm_skip_scale0", "ssz"), boolean("adm_skip_aim", "", false),
        boolean("debug", "", false),
        // vqx's choice of libvmaf build to match (vmaf.md 9, D1); not in output names.
        text("adm_simd_compat", "", "avx2", {"avx2", "avx512", "none"}, false)},
       {{"VMAF_integer_feature_adm2_score", "integer_adm2"},
        {"VMAF_integer_feature_aim_score", "integer_aim"},
        {"VMAF_integer_feature_adm3_score", "integer_adm3"}}});
  for (int s = 0; s < 4; ++s)
    c.back().outputs.emplace_back(fmt::format("integer_adm_scale{}", s),
                                  fmt::format("integer_adm_scale{}", s));
  // vmaf.md 4.1 and 1.
  c.push_back({"motion",
               {boolean("motion_force_zero", "force_0"),
                real("motion_max_val", "mmxv", 10000.0, 0.0, 10000.0),
                real("motion_fps_weight", "mfw", 1.0, 0.0, 5.0),
                real("motion_blend_factor", "mbf", 1.0, 0.0, 1.0),
                real("motion_blend_offset", "mbo", 40.0, 0.0, 1000.0),
                boolean("motion_five_frame_window", "mffw"),
                boolean("motion_moving_average", "mma"), boolean("debug", "", false)},
               {{"VMAF_integer_feature_motion_sad_score", "VMAF_integer_feature_motion_sad_score"},
                {"VMAF_integer_feature_motion2_score", "integer_motion2"},
                {"VMAF_integer_feature_motion3_score", "integer_motion3"}}});
  // cambi.md 2.1.
  c.push_back(
      {"cambi",
       {real("cambi_max_val", "cmxv", 1000.0, 0.0, 1000.0),
        integer("enc_width", "encw", 0, 180, 7680), integer("enc_height", "ench", 0, 150, 7680),
        integer("enc_bitdepth", "encbd", 0, 6, 16), integer("src_width", "srcw", 0, 320, 7680),
        integer("src_height", "srch", 0, 200, 4320), integer("window_size", "ws", 65, 15, 127),
        real("topk", "", 0.6, 0.0001, 1.0), real("cambi_topk", "ctpk", 0.6, 0.0001, 1.0),
        real("tvi_threshold", "tvit", 0.019, 0.0001, 1.0),
        real("cambi_vis_lum_threshold", "vlt", 0.0, 0.0, 300.0),
        integer("max_log_contrast", "mlc", 2, 0, 5), text("heatmaps_path", "", "", {}, false),
        boolean("full_ref", "", false), text("eotf", "", "bt1886", {"bt1886", "pq"}),
        text("cambi_eotf", "ceot", "bt1886", {"bt1886", "pq"}),
        integer("cambi_high_res_speedup", "hrs", 0, 0, 2160)},
       {{"Cambi_feature_cambi_score", "cambi"}}});
  // speed.md 1.1 and 1.2.
  c.push_back(
      {"speed_chroma",
       {real("speed_kernelscale", "ks", 1.0, 0.1, 4.0), real("speed_prescale", "ps", 1.0, 0.1, 4.0),
        text("speed_prescale_method", "psm", "nearest",
             {"nearest", "bilinear", "bicubic", "lanczos4"}),
        real("speed_sigma_nn", "snn", 0.29, 0.1, 2.0), real("speed_nn_floor", "nnf", 0.0, 0.0, 1.0),
        real("speed_max_val", "mxv", 1000.0, 0.0, 1000.0),
        integer("speed_weight_var_mode", "wvm", 0, 0, 6)},
       {{"Speed_chroma_feature_speed_chroma_u_score", "speed_chroma_u"},
        {"Speed_chroma_feature_speed_chroma_v_score", "speed_chroma_v"},
        {"Speed_chroma_feature_speed_chroma_uv_score", "speed_chroma_uv"}}});
  add_float_extractors(c);
  return c;
}

std::string format_g(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);  // glibc's %g, as libvmaf prints option values
  return buf;
}

}  // namespace

const CatalogOption* CatalogExtractor::find_option(std::string_view option) const {
  for (const auto& o : options)
    if (o.name == option) return &o;
  return nullptr;
}

const std::vector<CatalogExtractor>& feature_catalog() {
  static const std::vector<CatalogExtractor> catalog = make_catalog();
  return catalog;
}

const CatalogExtractor* find_extractor(std::string_view name) {
  for (const auto& e : feature_catalog())
    if (e.name == name) return &e;
  return nullptr;
}

std::optional<FeatureSource> find_feature_source(std::string_view feature) {
  for (const auto& e : feature_catalog())
    for (const auto& [internal, printed] : e.outputs)
      if (internal == feature || printed == feature) return FeatureSource{&e, printed};
  return std::nullopt;
}

std::string normalize_option_text(std::string_view text) {
  // sscanf("%f %c", &f, &c) == 1: leading white space, one float (strtof syntax), then only
  // white space. Such text becomes "%g" of the f32 value (6 significant digits survive).
  std::string s(text);
  const char* begin = s.c_str();
  char* end = nullptr;
  float f = std::strtof(begin, &end);
  if (end == begin) return s;
  for (const char* p = end; *p; ++p)
    if (!std::isspace(static_cast<unsigned char>(*p))) return s;
  return format_g(double(f));
}

std::string normalize_json_number(double value) {
  // libvmaf applies strtof to the number's text. vqx's JSON parser gives the correctly rounded
  // f64 instead; RN32 of it equals strtof of the text except when the f64 is exactly halfway
  // between two f32 values (a decimal of about 9+ significant digits; none in any model file).
  return format_g(double(float(value)));
}

OptionValue parse_catalog_value(const CatalogOption& option, const std::string& text) {
  auto out_of_range = [&]() {
    if (option.type == OptionType::kInt)
      return std::invalid_argument(
          fmt::format("must be an integer in [{}, {}]", int64_t(option.min), int64_t(option.max)));
    return std::invalid_argument(fmt::format("must be in [{}, {}]", option.min, option.max));
  };
  switch (option.type) {
    case OptionType::kBool:
      if (text == "true") return true;
      if (text == "false") return false;
      throw std::invalid_argument("expected true or false");
    case OptionType::kInt: {
      // libvmaf uses atoi ("1.5" -> 1); vqx, like its --feature parser, wants a whole integer.
      int64_t v = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (text.empty() || ec != std::errc() || end != text.data() + text.size())
        throw std::invalid_argument("expected an integer");
      if (double(v) < option.min || double(v) > option.max) throw out_of_range();
      return v;
    }
    case OptionType::kDouble: {
      char* end = nullptr;
      double v = std::strtod(text.c_str(), &end);
      if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v))
        throw std::invalid_argument("expected a number");
      if (v < option.min || v > option.max) throw out_of_range();
      return v;
    }
    case OptionType::kString:
      if (!option.choices.empty() &&
          std::find(option.choices.begin(), option.choices.end(), text) == option.choices.end())
        throw std::invalid_argument(
            fmt::format("expected one of {}", fmt::join(option.choices, ", ")));
      return text;
  }
  throw std::logic_error("unknown option type");
}

bool is_default_value(const CatalogOption& option, const OptionValue& value) {
  // Compared in the parsed type, doubles with == (vmaf.md 5).
  return value == option.default_value;
}

std::string suffix_value_text(const OptionValue& value) {
  if (const auto* i = std::get_if<int64_t>(&value)) return fmt::format("{}", *i);
  if (const auto* d = std::get_if<double>(&value)) return format_g(*d);
  if (const auto* s = std::get_if<std::string>(&value)) return *s;
  return std::get<bool>(value) ? "true" : "false";
}

std::string output_name(const CatalogExtractor& extractor, const std::string& printed,
                        const std::vector<OptionSetting>& settings) {
  std::vector<OptionSetting> sorted = settings;
  std::sort(sorted.begin(), sorted.end());
  std::string name = printed;
  for (const auto& [key, value_text] : sorted) {
    const CatalogOption* option = extractor.find_option(key);
    if (!option || !option->feature_param) continue;
    OptionValue value = parse_catalog_value(*option, value_text);
    if (is_default_value(*option, value)) continue;
    const std::string& alias = option->alias.empty() ? option->name : option->alias;
    if (option->type == OptionType::kBool)
      name += "_" + alias;
    else
      name += "_" + alias + "_" + suffix_value_text(value);
  }
  return name;
}

}  // namespace vqx::vmaf
