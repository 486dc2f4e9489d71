// libvmaf's `float_vif` on the CPU (docs/float_vif.md): VIF over four scales of f32 luma with
// the offset -128, after an optional prescale.
#include "metrics/float_vif/float_vif.h"

#include <fmt/format.h>

#include <array>

#include "core/error.h"
#include "metrics/float_common/luma_float.h"
#include "metrics/float_vif/vif_stages.h"
#include "metrics/speed_core/speed_params.h"
#include "metrics/speed_core/speed_preprocess.h"
#include "metrics/vmaf_common/feature_name.h"

namespace vqx {
namespace {

using float_vif::FilterInput;

constexpr int kScales = 4;
// Upstream's bilinear resampler keeps its column tables on the stack and refuses wider outputs.
constexpr uint32_t kBilinearMaxWidth = 7680;

double option(const OptionValues& o, const char* name) {
  return vmaf_common::normalise_double_option(o.get_double(name));
}

struct ScaleResult {
  double num = 0, den = 0;
};

class FloatVifCpu final : public CpuMetric {
 public:
  explicit FloatVifCpu(const OptionValues& o)
      : debug_(o.get_bool("debug")),
        skip_scale0_(o.get_bool("vif_skip_scale0")),
        gain_limit_(option(o, "vif_enhn_gain_limit")),
        kernel_scale_(float(option(o, "vif_kernelscale"))),
        prescale_(option(o, "vif_prescale")),
        sigma_nsq_(option(o, "vif_sigma_nsq")),
        min_val_{0.0, option(o, "vif_scale1_min_val"), option(o, "vif_scale2_min_val"),
                 option(o, "vif_scale3_min_val")},
        method_(speed::parse_prescale_method(o.get_string("vif_prescale_method"))),
        suffix_(vmaf_common::name_suffix(float_vif_descriptor().options, o)) {
    if (!speed::is_valid_kernel_scale(kernel_scale_))
      throw UsageError(
          fmt::format("feature 'float_vif': vif_kernelscale={:g} is not one of libvmaf's 21 "
                      "kernel scales (as speed_chroma's speed_kernelscale)",
                      o.get_double("vif_kernelscale")));
    for (int s = 0; s < kScales; ++s) taps_[s] = float_vif::scale_taps(s, kernel_scale_);
  }

  std::vector<std::string> feature_names() const override {
    std::vector<std::string> names;
    for (int s = 0; s < kScales; ++s) names.push_back("vif_scale" + std::to_string(s));
    if (debug_) {
      for (const char* n : {"vif", "vif_num", "vif_den"}) names.push_back(n);
      for (int s = 0; s < kScales; ++s) {
        names.push_back("vif_num_scale" + std::to_string(s));
        names.push_back("vif_den_scale" + std::to_string(s));
      }
    }
    return vmaf_common::with_suffix(names, suffix_);
  }

  // Frame-sized buffers: the f32 planes of both prescaled pictures and their filtered moments
  // (frame_memory_test measures them).
  size_t frame_memory_bytes() const override { return frame_memory_; }

  void init(const MetricContext& context) override {
    const PictureFormat& f = context.format;
    width_ = uint32_t(int(f.width * prescale_ + 0.5));
    height_ = uint32_t(int(f.height * prescale_ + 0.5));
    if (method_ == speed::PrescaleMethod::kBilinear && width_ > kBilinearMaxWidth)
      throw InputError(
          fmt::format("float_vif: a bilinear prescale to {} columns exceeds libvmaf's {}", width_,
                      kBilinearMaxWidth));
    // Every scale's plane must hold its filter's mirrored taps (upstream reads outside it).
    uint32_t w = width_, h = height_;
    for (int s = 0; s < kScales; ++s) {
      if (s > 0) w /= 2, h /= 2;
      const uint32_t need = uint32_t(taps_[s].size() / 2) + 1;
      if ((s > 0 || !skip_scale0_) && (w < need || h < need))
        throw InputError(
            fmt::format("float_vif: {} ({}x{} after the prescale) is too small for scale {}",
                        f.describe(), width_, height_, s));
    }
    pool_ = context.pool;
    frame_memory_ = size_t(width_) * height_ * 28;
  }

  void extract(const Picture& ref, const Picture& dis, uint64_t frame,
               FeatureWriter& out) override {
    std::vector<float> r = prescaled(ref), d = prescaled(dis);
    std::array<ScaleResult, kScales> scales{};
    compute(std::move(r), std::move(d), scales);
    for (int s = 0; s < kScales; ++s) {
      const double ratio = scales[s].num / scales[s].den;
      if (s == 0)
        out.put(frame, 0, skip_scale0_ ? 0.0 : ratio);
      else
        out.put(frame, s, ratio > min_val_[s] ? ratio : min_val_[s]);
    }
    if (!debug_) return;
    double num = 0, den = 0;
    for (int s = skip_scale0_ ? 1 : 0; s < kScales; ++s) {
      num += scales[s].num;
      den += scales[s].den;
    }
    out.put(frame, 4, den == 0.0 ? 1.0 : num / den);
    out.put(frame, 5, num);
    out.put(frame, 6, den);
    for (int s = 0; s < kScales; ++s) {
      const bool skipped = s == 0 && skip_scale0_;
      out.put(frame, 7 + 2 * s, skipped ? 0.0 : scales[s].num);
      out.put(frame, 8 + 2 * s, skipped ? -1.0 : scales[s].den);
    }
  }

 private:
  std::vector<float> prescaled(const Picture& p) const {
    speed::Image image;
    image.w = p.format().width;
    image.h = p.format().height;
    image.px = float_common::luma_to_float(p, -128.0f);
    if (width_ == image.w && height_ == image.h) return std::move(image.px);
    speed::Image scaled;
    speed::prescale(image, width_, height_, method_, scaled);
    return std::move(scaled.px);
  }

  // compute_vif: scale s > 0 first filters the previous scale with its own taps and keeps every
  // second sample of every second row; then the five filtered planes give the statistic.
  void compute(std::vector<float> ref, std::vector<float> dis,
               std::array<ScaleResult, kScales>& scales) const {
    int w = int(width_), h = int(height_);
    std::vector<float> mu1(ref.size()), mu2(ref.size()), xx(ref.size()), yy(ref.size()),
        xy(ref.size());
    for (int s = skip_scale0_ ? 1 : 0; s < kScales; ++s) {
      const std::vector<float>& taps = taps_[s];
      if (s > 0) {
        float_vif::filter_and_decimate(taps, ref.data(), w, h, mu1.data(), pool_);
        float_vif::filter_and_decimate(taps, dis.data(), w, h, mu2.data(), pool_);
        ref.swap(mu1);
        dis.swap(mu2);
        w /= 2;
        h /= 2;
      }
      const float* a = ref.data();
      const float* b = dis.data();
      float_vif::filter(FilterInput::kPlain, taps, a, nullptr, w, h, mu1.data(), pool_);
      float_vif::filter(FilterInput::kPlain, taps, b, nullptr, w, h, mu2.data(), pool_);
      float_vif::filter(FilterInput::kSquare, taps, a, nullptr, w, h, xx.data(), pool_);
      float_vif::filter(FilterInput::kSquare, taps, b, nullptr, w, h, yy.data(), pool_);
      float_vif::filter(FilterInput::kProduct, taps, a, b, w, h, xy.data(), pool_);
      const float_vif::ScaleSums sums = float_vif::statistic(
          mu1.data(), mu2.data(), xx.data(), yy.data(), xy.data(), w, h, gain_limit_, sigma_nsq_);
      scales[s] = {sums.num, sums.den};
    }
  }

  bool debug_, skip_scale0_;
  double gain_limit_;
  float kernel_scale_;
  double prescale_, sigma_nsq_;
  std::array<double, kScales> min_val_;
  speed::PrescaleMethod method_;
  std::string suffix_;
  std::array<std::vector<float>, kScales> taps_;
  uint32_t width_ = 0, height_ = 0;
  ThreadPool* pool_ = nullptr;
  size_t frame_memory_ = 0;
};

}  // namespace

const MetricDescriptor& float_vif_descriptor() {
  static const MetricDescriptor descriptor{
      "float_vif",
      "Visual information fidelity over four scales in f32, libvmaf's float_vif",
      {
          OptionSpec::Bool("debug", false,
                           "also output vif, vif_num, vif_den and each scale's num and den"),
          OptionSpec::Double("vif_enhn_gain_limit", 100.0, 1.0, 100.0,
                             "enhancement gain cap, 1 disables the gain")
              .param("egl"),
          OptionSpec::Double("vif_kernelscale", 1.0, 0.1, 4.0,
                             "Gaussian width factor, one of libvmaf's 21 kernel scales")
              .param("ks"),
          OptionSpec::Double("vif_prescale", 1.0, 0.1, 4.0, "resize factor before VIF").param("ps"),
          OptionSpec::Double("vif_scale1_min_val", 0.0, 0.0, 1.0, "lower clip of vif_scale1")
              .param("s1miv"),
          OptionSpec::Double("vif_scale2_min_val", 0.0, 0.0, 1.0, "lower clip of vif_scale2")
              .param("s2miv"),
          OptionSpec::Double("vif_scale3_min_val", 0.0, 0.0, 1.0, "lower clip of vif_scale3")
              .param("s3miv"),
          OptionSpec::String("vif_prescale_method", "nearest",
                             {"nearest", "bilinear", "bicubic", "lanczos4"}, "prescale resampler")
              .param("pm"),
          OptionSpec::Double("vif_sigma_nsq", 2.0, 0.0, 5.0, "neural noise variance").param("snsq"),
          OptionSpec::Bool("vif_skip_scale0", false, "scale 0 is not computed, vif_scale0 is 0")
              .param("ssclz"),
      },
      [](const OptionValues& o) { return std::make_unique<FloatVifCpu>(o); },
      nullptr,
      {
          {"VMAF_feature_vif_scale0_score", "vif_scale0"},
          {"VMAF_feature_vif_scale1_score", "vif_scale1"},
          {"VMAF_feature_vif_scale2_score", "vif_scale2"},
          {"VMAF_feature_vif_scale3_score", "vif_scale3"},
      },
  };
  return descriptor;
}

}  // namespace vqx
