// CAMBI options, output names and init (shared/spec/cambi.md sections 2-3), shared by the CPU
// metric and its CUDA twin so that both accept and reject exactly the same configurations.
#include "metrics/cambi/cambi_setup.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <tuple>

#include "core/error.h"

namespace vqx::cambi {

// ---- Options and output names (spec 2) ------------------------------------------------------

std::vector<OptionSpec> option_specs() {
  return {
      OptionSpec::Double("cambi_max_val", 1000.0, 0.0, 1000.0, "clip of the reported scores")
          .param("cmxv"),
      OptionSpec::Int("enc_width", 0, 180, 7680, "processing width (default: input width)")
          .param("encw"),
      OptionSpec::Int("enc_height", 0, 150, 7680, "processing height (default: input height)")
          .param("ench"),
      OptionSpec::Int("enc_bitdepth", 0, 6, 16,
                      "encode bit depth; below 10 turns anti-dithering on (default: input's)")
          .param("encbd"),
      OptionSpec::Int("src_width", 0, 320, 7680, "processing width of the source (full_ref)")
          .param("srcw"),
      OptionSpec::Int("src_height", 0, 200, 4320, "processing height of the source (full_ref)")
          .param("srch"),
      OptionSpec::Int("window_size", 65, 15, 127, "window at 4K before size adjustment")
          .param("ws"),
      OptionSpec::Double("topk", 0.6, 0.0001, 1.0, "fraction of pixels pooled per scale").param(""),
      OptionSpec::Double("cambi_topk", 0.6, 0.0001, 1.0, "pooling fraction when topk is default")
          .param("ctpk"),
      OptionSpec::Double("tvi_threshold", 0.019, 0.0001, 1.0, "visibility threshold dL/L")
          .param("tvit"),
      OptionSpec::Double("cambi_vis_lum_threshold", 0.0, 0.0, 300.0,
                         "luminance (cd/m2) below which banding is ignored")
          .param("vlt"),
      OptionSpec::Int("max_log_contrast", 2, 0, 5, "log2 of the number of contrasts").param("mlc"),
      OptionSpec::String("heatmaps_path", "", {}, "folder for per-scale c-value heatmaps"),
      OptionSpec::Bool("full_ref", false, "also score the reference (cambi_source)"),
      OptionSpec::String("eotf", "bt1886", {"bt1886", "pq"}, "EOTF of the TVI tables").param(""),
      OptionSpec::String("cambi_eotf", "bt1886", {"bt1886", "pq"},
                         "EOTF, takes precedence over eotf when not bt1886")
          .param("ceot"),
      OptionSpec::Int("cambi_high_res_speedup", 0, 0, 2160,
                      "1080, 1440 or 2160: halve the work at and above that size")
          .param("hrs"),
  };
}

std::vector<std::string> feature_names(const OptionValues& o) {
  static const std::vector<OptionSpec> specs = option_specs();
  std::string name = "cambi";
  // Feature params: a non-default value is appended as _<alias>_<value>, in alphabetical order
  // of the option name (spec 2.2).
  for (const OptionSpec* param : feature_params_by_name(specs)) {
    const OptionSpec& spec = *param;
    const std::string& key = spec.name;
    char value[64];
    switch (spec.type) {
      case OptionType::kInt: {
        int64_t v = o.get_int(key);
        if (v == std::get<int64_t>(spec.default_value)) continue;
        std::snprintf(value, sizeof value, "%d", int(v));
        break;
      }
      case OptionType::kDouble: {
        double v = o.get_double(key);
        if (v == std::get<double>(spec.default_value)) continue;
        std::snprintf(value, sizeof value, "%g", v);
        break;
      }
      case OptionType::kString: {
        const std::string& v = o.get_string(key);
        if (v == std::get<std::string>(spec.default_value)) continue;
        std::snprintf(value, sizeof value, "%s", v.c_str());
        break;
      }
      case OptionType::kBool:
        continue;  // no boolean feature params
    }
    name += fmt::format("_{}_{}", spec.suffix_name(), value);
  }
  if (o.get_bool("full_ref")) return {name, "cambi_source", "cambi_full_reference"};
  return {name};
}

Options::Options(const OptionValues& o)
      : max_val(o.get_double("cambi_max_val")),
        // Precedence (spec 2.1): topk when not default, else cambi_topk; cambi_eotf when not
        // "bt1886", else eotf.
        topk(o.get_double("topk") != 0.6 ? o.get_double("topk") : o.get_double("cambi_topk")),
        tvi_threshold(o.get_double("tvi_threshold")),
        vis_lum_threshold(o.get_double("cambi_vis_lum_threshold")),
        enc_width(int(o.get_int("enc_width"))),
        enc_height(int(o.get_int("enc_height"))),
        enc_bitdepth(int(o.get_int("enc_bitdepth"))),
        src_width(int(o.get_int("src_width"))),
        src_height(int(o.get_int("src_height"))),
        window_size(int(o.get_int("window_size"))),
        max_log_contrast(int(o.get_int("max_log_contrast"))),
        high_res_speedup(int(o.get_int("cambi_high_res_speedup"))),
        heatmaps_path(o.get_string("heatmaps_path")),
        full_ref(o.get_bool("full_ref")),
        eotf((o.get_string("cambi_eotf") != "bt1886" ? o.get_string("cambi_eotf")
                                                      : o.get_string("eotf")) == "pq"
                 ? Eotf::kPq
                 : Eotf::kBt1886) {}

Setup make_setup(const Options& options, const PictureFormat& f) {
  if (f.color != ColorModel::kYCbCr)
    throw InputError("cambi scores the luma of Y'CbCr input; RGB (PNG) input has none");
  Setup s;
  const unsigned w = f.width, h = f.height;
  s.bpc = f.bit_depth;

  // Spec 3 steps 1-3.
  int enc_bitdepth = options.enc_bitdepth ? options.enc_bitdepth : s.bpc;
  unsigned enc_w = unsigned(options.enc_width), enc_h = unsigned(options.enc_height);
  if (enc_w == 0 || enc_h == 0) enc_w = w, enc_h = h;
  unsigned src_w = unsigned(options.src_width), src_h = unsigned(options.src_height);
  if (src_w == 0 || src_h == 0) src_w = w, src_h = h;
  if (enc_h > h || enc_w > w) enc_w = w, enc_h = h;  // never upscale the encode
  if (enc_w < 216 && enc_h < 216)
    throw InputError(fmt::format(
        "cambi: encode resolution {}x{} is too small: width or height must be at least 216",
        enc_w, enc_h));
  if (src_w < 216 && src_h < 216)
    throw InputError(fmt::format(
        "cambi: source resolution {}x{} is too small: width or height must be at least 216",
        src_w, src_h));
  if ((src_w > enc_w && src_h < enc_h) || (src_w < enc_w && src_h > enc_h))
    throw InputError(fmt::format(
        "cambi: source resolution {}x{} and encode resolution {}x{} must not be scaled in "
        "opposite directions",
        src_w, src_h, enc_w, enc_h));

  // Step 4: the speed-up stays on only at or above its own size.
  const uint64_t enc_pix = uint64_t{enc_w} * enc_h;
  switch (options.high_res_speedup) {
    case 1080: s.speedup = enc_pix >= 1920u * 1080u; break;
    case 1440: s.speedup = enc_pix >= 2560u * 1440u; break;
    case 2160: s.speedup = enc_pix >= 3840u * 2160u; break;
    default: s.speedup = false;
  }

  // Steps 5-8, 11.
  s.params = make_level_params(options.eotf, options.tvi_threshold, options.max_log_contrast,
                               options.vis_lum_threshold);
  // A visibility threshold above every contrast's threshold leaves no luma level to score; say
  // so rather than size the histograms from a negative band (vqx deviation, docs/cambi.md).
  if (s.params.band <= 0)
    throw InputError(fmt::format(
        "cambi: cambi_vis_lum_threshold={} is above the visibility threshold of every contrast, so "
        "no luma level can be scored; lower it",
        options.vis_lum_threshold));
  s.anti_dither = enc_bitdepth < 10;

  // Steps 9-10: both windows are guarded, the source one even without full_ref (quirk 7).
  const unsigned ws_enc = adjust_window(unsigned(options.window_size), enc_w, enc_h, s.speedup);
  const unsigned ws_src = adjust_window(unsigned(options.window_size), src_w, src_h, s.speedup);
  for (auto [ws, what, ww, hh] : {std::tuple{ws_enc, "encode", enc_w, enc_h},
                                  std::tuple{ws_src, "source", src_w, src_h}}) {
    if (ws * ws >= unsigned(kReciprocalLutSize))
      throw InputError(fmt::format(
          "cambi: window_size {} too large for reciprocal LUT (window_size={} becomes {} at the "
          "{} resolution {}x{}; the largest window is 65: lower window_size or use "
          "cambi_high_res_speedup)",
          ws, options.window_size, ws, what, ww, hh));
  }

  s.dis.width = enc_w, s.dis.height = enc_h, s.dis.window = ws_enc;
  s.dis.map = make_resize_map(w, h, enc_w, enc_h);
  if (options.full_ref) {
    s.src.width = src_w, s.src.height = src_h, s.src.window = ws_src;
    s.src.map = make_resize_map(w, h, src_w, src_h);
  }
  return s;
}

std::string invalid_input_message(uint64_t frame, int bpc) {
  return fmt::format(
      "cambi: invalid input: frame {} contains luma values greater than {}, the maximum of a "
      "{}-bit format",
      frame, (1u << bpc) - 1, bpc);
}

}  // namespace vqx::cambi
