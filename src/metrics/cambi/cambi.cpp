// Netflix CAMBI on the CPU (shared/spec/cambi.md): options and output names, init (section 3),
// the per-picture pipeline over five scales, full-reference mode and heatmap dumps.
#include "metrics/cambi/cambi.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <tuple>
#include <mutex>

#include "engine/error.h"
#include "metrics/cambi/cambi_stages.h"

namespace vqx {
namespace {

using cambi::Eotf;
using cambi::kNumScales;

// ---- Options and output names (spec 2) ------------------------------------------------------

// Feature params: a non-default value is appended to the output name as _<alias>_<value>, in
// alphabetical order of the option name (spec 2.2).
struct FeatureParam {
  const char* name;
  const char* alias;
};
constexpr FeatureParam kFeatureParams[] = {
    {"cambi_eotf", "ceot"},
    {"cambi_high_res_speedup", "hrs"},
    {"cambi_max_val", "cmxv"},
    {"cambi_topk", "ctpk"},
    {"cambi_vis_lum_threshold", "vlt"},
    {"enc_bitdepth", "encbd"},
    {"enc_height", "ench"},
    {"enc_width", "encw"},
    {"eotf", "eotf"},
    {"max_log_contrast", "mlc"},
    {"src_height", "srch"},
    {"src_width", "srcw"},
    {"topk", "topk"},
    {"tvi_threshold", "tvit"},
    {"window_size", "ws"},
};

std::vector<OptionSpec> cambi_option_specs() {
  return {
      OptionSpec::Double("cambi_max_val", 1000.0, 0.0, 1000.0, "clip of the reported scores"),
      OptionSpec::Int("enc_width", 0, 180, 7680, "processing width (default: input width)"),
      OptionSpec::Int("enc_height", 0, 150, 7680, "processing height (default: input height)"),
      OptionSpec::Int("enc_bitdepth", 0, 6, 16,
                      "encode bit depth; below 10 turns anti-dithering on (default: input's)"),
      OptionSpec::Int("src_width", 0, 320, 7680, "processing width of the source (full_ref)"),
      OptionSpec::Int("src_height", 0, 200, 4320, "processing height of the source (full_ref)"),
      OptionSpec::Int("window_size", 65, 15, 127, "window at 4K before size adjustment"),
      OptionSpec::Double("topk", 0.6, 0.0001, 1.0, "fraction of pixels pooled per scale"),
      OptionSpec::Double("cambi_topk", 0.6, 0.0001, 1.0, "pooling fraction when topk is default"),
      OptionSpec::Double("tvi_threshold", 0.019, 0.0001, 1.0, "visibility threshold dL/L"),
      OptionSpec::Double("cambi_vis_lum_threshold", 0.0, 0.0, 300.0,
                         "luminance (cd/m2) below which banding is ignored"),
      OptionSpec::Int("max_log_contrast", 2, 0, 5, "log2 of the number of contrasts"),
      OptionSpec::String("heatmaps_path", "", {}, "folder for per-scale c-value heatmaps"),
      OptionSpec::Bool("full_ref", false, "also score the reference (cambi_source)"),
      OptionSpec::String("eotf", "bt1886", {"bt1886", "pq"}, "EOTF of the TVI tables"),
      OptionSpec::String("cambi_eotf", "bt1886", {"bt1886", "pq"},
                         "EOTF, takes precedence over eotf when not bt1886"),
      OptionSpec::Int("cambi_high_res_speedup", 0, 0, 2160,
                      "1080, 1440 or 2160: halve the work at and above that size"),
  };
}

std::string output_name(const OptionValues& o) {
  static const std::vector<OptionSpec> specs = cambi_option_specs();
  std::string name = "cambi";
  for (const FeatureParam& fp : kFeatureParams) {
    const OptionSpec& spec = *std::find_if(specs.begin(), specs.end(),
                                           [&](const OptionSpec& s) { return s.name == fp.name; });
    char value[64];
    switch (spec.type) {
      case OptionType::kInt: {
        int64_t v = o.get_int(fp.name);
        if (v == std::get<int64_t>(spec.default_value)) continue;
        std::snprintf(value, sizeof value, "%d", int(v));
        break;
      }
      case OptionType::kDouble: {
        double v = o.get_double(fp.name);
        if (v == std::get<double>(spec.default_value)) continue;
        std::snprintf(value, sizeof value, "%g", v);
        break;
      }
      case OptionType::kString: {
        const std::string& v = o.get_string(fp.name);
        if (v == std::get<std::string>(spec.default_value)) continue;
        std::snprintf(value, sizeof value, "%s", v.c_str());
        break;
      }
      case OptionType::kBool:
        continue;  // no boolean feature params
    }
    name += fmt::format("_{}_{}", fp.alias, value);
  }
  return name;
}

struct CambiOptions {
  double max_val, topk, tvi_threshold, vis_lum_threshold;
  int enc_width, enc_height, enc_bitdepth, src_width, src_height, window_size;
  int max_log_contrast, high_res_speedup;
  std::string heatmaps_path;
  bool full_ref;
  Eotf eotf;
  explicit CambiOptions(const OptionValues& o)
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
};

// ---- Per-picture pipeline -------------------------------------------------------------------

// How one picture (distorted at the encode size, or the source at the source size) is scored.
struct PictureSetup {
  unsigned width = 0, height = 0;  // processing size
  unsigned window = 0;             // adjusted window
  cambi::ResizeMap map;
};

// Buffers for one picture in flight, reused across frames (fresh pages cost more than the work
// of the cheaper stages).
struct Scratch {
  std::vector<uint16_t> image, image2;
  std::vector<uint8_t> mask, mask2;
  std::vector<float> c_values;
  std::vector<uint16_t> heatmap;
  void reserve(size_t n) {
    image.resize(n);
    image2.resize(n);
    mask.resize(n);
    mask2.resize(n);
    c_values.resize(n);
  }
};

class ScratchPool {
 public:
  std::unique_ptr<Scratch> take() {
    std::lock_guard lock(mutex_);
    if (free_.empty()) return std::make_unique<Scratch>();
    auto s = std::move(free_.back());
    free_.pop_back();
    return s;
  }
  void give(std::unique_ptr<Scratch> s) {
    std::lock_guard lock(mutex_);
    free_.push_back(std::move(s));
  }

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<Scratch>> free_;
};

// One file per scale; frames write their own slots with pwrite, so concurrent frames are safe.
class HeatmapFiles {
 public:
  HeatmapFiles() = default;
  HeatmapFiles(const HeatmapFiles&) = delete;
  HeatmapFiles& operator=(const HeatmapFiles&) = delete;
  void open(const std::string& folder, unsigned enc_width, unsigned enc_height) {
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    if (ec)
      throw InputError(fmt::format("cambi: cannot create heatmaps_path '{}': {}", folder,
                                   ec.message()));
    // File names halve the encode size per scale even when the speed-up makes the real maps
    // half as large (upstream quirk 6, reproduced).
    unsigned w = enc_width, h = enc_height;
    for (int s = 0; s < kNumScales; ++s) {
      std::string path = fmt::format("{}/cambi_heatmap_scale_{}_{}x{}_16b.gray", folder, s, w, h);
      int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (fd < 0) throw InputError(fmt::format("cambi: could not open heatmaps_path: {}", path));
      fds_[s] = fd;
      w = (w + 1) >> 1;
      h = (h + 1) >> 1;
    }
  }
  ~HeatmapFiles() {
    for (int fd : fds_)
      if (fd >= 0) ::close(fd);
  }
  bool enabled() const { return fds_[0] >= 0; }

  // Spec 6.5: uint16 = trunc(65535 / max_c * c), little-endian, at the frame's slot. Values above
  // 65535 (undefined in upstream's C) are clamped, a documented deviation.
  void write(int scale, uint64_t frame, const float* c_values, unsigned w, unsigned h,
             double factor, std::vector<uint16_t>& buffer) const {
    buffer.resize(size_t{w} * h);
    for (size_t i = 0; i < buffer.size(); ++i) {
      double v = factor * double(c_values[i]);
      uint16_t u = v >= 65535.0 ? uint16_t{65535} : uint16_t(v);
      buffer[i] = u;  // stored as is: the host is little-endian (asserted below)
    }
    static_assert(std::endian::native == std::endian::little, "heatmaps are little-endian");
    const size_t bytes = buffer.size() * 2;
    const off_t offset = off_t(frame * h * w * 2);
    const char* p = reinterpret_cast<const char*>(buffer.data());
    for (size_t done = 0; done < bytes;) {
      ssize_t n = ::pwrite(fds_[scale], p + done, bytes - done, offset + off_t(done));
      if (n <= 0) throw InputError(fmt::format("cambi: cannot write heatmap of scale {}", scale));
      done += size_t(n);
    }
  }

 private:
  int fds_[kNumScales] = {-1, -1, -1, -1, -1};
};

class CambiCpu final : public CpuMetric {
 public:
  explicit CambiCpu(const OptionValues& o) : options_(o), name_(output_name(o)) {}

  std::vector<std::string> feature_names() const override {
    if (options_.full_ref) return {name_, "cambi_source", "cambi_full_reference"};
    return {name_};
  }

  void init(const MetricContext& context) override {
    pool_ = context.pool;
    const PictureFormat& f = context.format;
    if (f.color != ColorModel::kYCbCr)
      throw InputError("cambi scores the luma of Y'CbCr input; RGB (PNG) input has none");
    const unsigned w = f.width, h = f.height;
    bpc_ = f.bit_depth;

    // Spec 3 steps 1-3.
    int enc_bitdepth = options_.enc_bitdepth ? options_.enc_bitdepth : bpc_;
    unsigned enc_w = unsigned(options_.enc_width), enc_h = unsigned(options_.enc_height);
    if (enc_w == 0 || enc_h == 0) enc_w = w, enc_h = h;
    unsigned src_w = unsigned(options_.src_width), src_h = unsigned(options_.src_height);
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
    switch (options_.high_res_speedup) {
      case 1080: speedup_ = enc_pix >= 1920u * 1080u; break;
      case 1440: speedup_ = enc_pix >= 2560u * 1440u; break;
      case 2160: speedup_ = enc_pix >= 3840u * 2160u; break;
      default: speedup_ = false;
    }

    // Steps 5-8, 11.
    params_ = cambi::make_level_params(options_.eotf, options_.tvi_threshold,
                                       options_.max_log_contrast, options_.vis_lum_threshold);
    anti_dither_ = enc_bitdepth < 10;

    // Steps 9-10: both windows are guarded, the source one even without full_ref (quirk 7).
    const unsigned ws_enc = cambi::adjust_window(unsigned(options_.window_size), enc_w, enc_h, speedup_);
    const unsigned ws_src = cambi::adjust_window(unsigned(options_.window_size), src_w, src_h, speedup_);
    for (auto [ws, what, ww, hh] : {std::tuple{ws_enc, "encode", enc_w, enc_h},
                                    std::tuple{ws_src, "source", src_w, src_h}}) {
      if (ws * ws >= unsigned(cambi::kReciprocalLutSize))
        throw InputError(fmt::format(
            "cambi: window_size {} too large for reciprocal LUT (window_size={} becomes {} at the "
            "{} resolution {}x{}; the largest window is 65: lower window_size or use "
            "cambi_high_res_speedup)",
            ws, options_.window_size, ws, what, ww, hh));
    }

    dis_.width = enc_w, dis_.height = enc_h, dis_.window = ws_enc;
    dis_.map = cambi::make_resize_map(w, h, enc_w, enc_h);
    if (options_.full_ref) {
      src_.width = src_w, src_.height = src_h, src_.window = ws_src;
      src_.map = cambi::make_resize_map(w, h, src_w, src_h);
    }

    if (!options_.heatmaps_path.empty()) {
      heatmaps_.open(options_.heatmaps_path, enc_w, enc_h);
      int max_weight = *std::max_element(params_.diff_weights.begin(),
                                         params_.diff_weights.begin() + params_.num_diffs);
      const int max_c = max_weight * int(ws_enc) * int(ws_enc) / 4;
      heatmap_factor_ = 65535.0 / double(max_c);
    }
  }

  void extract(const Picture& ref, const Picture& dis, uint64_t frame, FeatureWriter& out) override {
    const double dist_score = score(dis, dis_, frame, heatmaps_.enabled());
    out.put(frame, 0, std::min(dist_score, options_.max_val));
    if (options_.full_ref) {
      const double src_score = score(ref, src_, frame, false);
      out.put(frame, 1, std::min(src_score, options_.max_val));
      out.put(frame, 2, std::min(std::max(0.0, dist_score - src_score), options_.max_val));
    }
  }

 private:
  double score(const Picture& picture, const PictureSetup& setup, uint64_t frame,
               bool dump_heatmaps) {
    const PictureFormat& f = picture.format();
    const void* luma = picture.bytes();
    // Spec 4.1: every input luma sample must fit the bit depth (8 and 16 bits always do).
    if (bpc_ != 8 && bpc_ != 16) {
      const unsigned limit = (1u << bpc_) - 1;
      if (cambi::max_sample(luma, size_t{f.width} * f.height, bpc_) > limit)
        throw InputError(fmt::format(
            "cambi: invalid input: frame {} contains luma values greater than {}, the maximum of "
            "a {}-bit format",
            frame, limit, bpc_));
    }
    unsigned w = setup.width, h = setup.height;
    const size_t n = size_t{w} * h;
    std::unique_ptr<Scratch> s = scratch_.take();
    s->reserve(n);
    cambi::convert_to_10bit(luma, f.width, bpc_, setup.map, s->image.data());
    if (anti_dither_) {
      cambi::anti_dither(s->image.data(), w, h, s->image2.data());
      std::swap(s->image, s->image2);
    }
    cambi::spatial_mask(s->image.data(), w, h, cambi::mask_index(w, h), s->mask.data());

    std::array<double, kNumScales> means{};
    for (int scale = 0; scale < kNumScales; ++scale) {
      if (scale > 0 || speedup_) {
        cambi::decimate(s->image.data(), s->mask.data(), w, h, s->image2.data(), s->mask2.data());
        std::swap(s->image, s->image2);
        std::swap(s->mask, s->mask2);
        w = (w + 1) >> 1;
        h = (h + 1) >> 1;
      }
      cambi::mode_filter(s->image.data(), w, h, s->image2.data());
      std::swap(s->image, s->image2);
      cambi::c_values(s->image.data(), s->mask.data(), w, h, setup.window, params_,
                      s->c_values.data(), pool_);
      const size_t count = size_t{w} * h;
      if (dump_heatmaps)  // before pooling, which reorders the values
        heatmaps_.write(scale, frame, s->c_values.data(), w, h, heatmap_factor_, s->heatmap);
      means[size_t(scale)] = cambi::top_k_mean(std::span<float>(s->c_values.data(), count),
                                               cambi::top_k_count(options_.topk, count));
    }
    scratch_.give(std::move(s));
    return cambi::weight_scores(means, setup.window);
  }

  CambiOptions options_;
  std::string name_;
  ThreadPool* pool_ = nullptr;
  int bpc_ = 8;
  bool speedup_ = false;
  bool anti_dither_ = true;
  cambi::LevelParams params_;
  PictureSetup dis_, src_;
  HeatmapFiles heatmaps_;
  double heatmap_factor_ = 0;
  ScratchPool scratch_;
};

}  // namespace

const MetricDescriptor& cambi_descriptor() {
  static const MetricDescriptor descriptor{
      "cambi",
      "Contrast-aware multiscale banding index (Netflix CAMBI), no-reference on the distorted "
      "luma; full_ref=true also scores the reference",
      cambi_option_specs(),
      [](const OptionValues& o) { return std::make_unique<CambiCpu>(o); },
      nullptr,
  };
  return descriptor;
}

}  // namespace vqx
