// libvmaf's `speed_temporal` on the CPU (docs/speed_temporal.md; shared/spec/speed.md 12): SpEED
// on the luma frame differences, previous minus current, of the reference and the distorted
// video. Temporal: frames arrive in order. Every stage after the difference is the one
// speed_chroma runs (src/metrics/speed_core: preprocessing, est_params, entropies, plane score).
#include "metrics/speed_temporal/speed_temporal.h"

#include <fmt/format.h>

#include <cstdio>

#include "core/error.h"
#include "core/thread_pool.h"
#include "metrics/float_common/luma_float.h"
#include "metrics/speed_core/speed_kernels.h"
#include "metrics/speed_core/speed_pipeline.h"
#include "metrics/vmaf_common/feature_name.h"

namespace vqx {
namespace {

double option(const OptionValues& o, const char* name) {
  return vmaf_common::normalise_double_option(o.get_double(name));
}

// a - b, samplewise, in f32 (upstream's subtract_image).
speed::Image difference(const std::vector<float>& a, const std::vector<float>& b, uint32_t w,
                        uint32_t h) {
  speed::Image d;
  d.w = w;
  d.h = h;
  d.px.resize(a.size());
  for (size_t i = 0; i < a.size(); ++i) d.px[i] = a[i] - b[i];
  return d;
}

class SpeedTemporalCpu final : public CpuMetric {
 public:
  explicit SpeedTemporalCpu(const OptionValues& o)
      : use_ref_diff_(o.get_bool("speed_use_ref_diff")),
        suffix_(vmaf_common::name_suffix(speed_temporal_descriptor().options, o)) {
    params_.kernel_scale = float(option(o, "speed_kernelscale"));
    params_.prescale = option(o, "speed_prescale");
    params_.method = speed::parse_prescale_method(o.get_string("speed_prescale_method"));
    params_.sigma_nn = float(option(o, "speed_sigma_nn"));
    params_.nn_floor = float(option(o, "speed_nn_floor"));
    params_.weight_var_mode = 0;  // speed_temporal has no weighting option
    if (!speed::is_valid_kernel_scale(params_.kernel_scale))
      throw UsageError(
          fmt::format("feature 'speed_temporal': speed_kernelscale={:g} is not one of "
                      "libvmaf's 21 kernel scales (as speed_chroma's)",
                      o.get_double("speed_kernelscale")));
  }

  std::vector<std::string> feature_names() const override { return {"speed_temporal" + suffix_}; }

  bool temporal() const override { return true; }

  // Frame-sized buffers: the f32 luma of both pictures, prescaled, and the filtered planes
  // (frame_memory_test measures them).
  size_t frame_memory_bytes() const override { return frame_memory_; }

  void init(const MetricContext& context) override {
    const PictureFormat& f = context.format;
    geometry_ = speed::make_geometry(f.width, f.height, params_.prescale);
    speed::validate_geometry(geometry_, params_.prescale, "speed_temporal on " + f.describe());
    filters_ = speed::make_filters(params_.kernel_scale);
    threshold_ = speed::entropy_threshold(params_.sigma_nn, params_.nn_floor);
    pool_ = context.pool;
    frame_memory_ = geometry_.prescale_active
                        ? size_t(f.width) * f.height * 8 + size_t(geometry_.sw) * geometry_.sh * 16
                        : size_t(f.width) * f.height * 32;
  }

  void extract(const Picture& ref, const Picture& dis, uint64_t frame,
               FeatureWriter& out) override {
    std::vector<float> ref_now = float_common::luma_to_float(ref, -128.0f);
    std::vector<float> dis_now = float_common::luma_to_float(dis, -128.0f);
    double score = 0.0;
    if (frame > 0) {
      const uint32_t w = geometry_.w, h = geometry_.h;
      const speed::Image diffs[2] = {
          difference(ref_before_, ref_now, w, h),
          difference(dis_before_, use_ref_diff_ ? ref_now : dis_now, w, h)};
      speed::ImageEstimate est[2];
      pool_->parallel_for(2, 1, [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) {
          speed::Image e;
          speed::StatsScratch scratch;
          speed::preprocess_image(diffs[i], geometry_, params_.method, filters_, e);
          est[i] = speed::estimate_params(e, geometry_, params_.sigma_nn, scratch, kernels_);
        }
      });
      for (const auto& e : est) report(e, frame);
      score = speed::plane_result(est[0].stats, est[1].stats, threshold_, 0).score;
    }
    out.put(frame, 0, score);
    ref_before_ = std::move(ref_now);
    dis_before_ = std::move(dis_now);
  }

  void flush(FeatureWriter&) override {
    if (failures_ > 1)
      std::fprintf(stderr,
                   "warning: speed_temporal: %llu images failed in all, as libvmaf's would\n",
                   static_cast<unsigned long long>(failures_));
  }

 private:
  // libvmaf logs every failed image; vqx the first one and the total.
  void report(const speed::ImageEstimate& e, uint64_t frame) {
    if (e.failure == speed::Failure::kNone) return;
    if (failures_++ == 0)
      std::fprintf(stderr, "warning: speed_temporal: frame %llu: %s, as in libvmaf\n",
                   static_cast<unsigned long long>(frame), speed::describe(e.failure));
  }

  bool use_ref_diff_;
  std::string suffix_;
  speed::SpeedParams params_;
  speed::Geometry geometry_;
  speed::SpeedFilters filters_;
  float threshold_ = 0;
  const speed::SpeedKernels& kernels_ = speed::speed_kernels();
  ThreadPool* pool_ = nullptr;
  std::vector<float> ref_before_, dis_before_;
  uint64_t failures_ = 0;
  size_t frame_memory_ = 0;
};

}  // namespace

const MetricDescriptor& speed_temporal_descriptor() {
  static const MetricDescriptor descriptor{
      "speed_temporal",
      "SpEED-QA entropy difference of luma frame differences, libvmaf's speed_temporal",
      {
          OptionSpec::Double("speed_kernelscale", 1.0, 0.1, 4.0,
                             "Gaussian kernel scale; one of libvmaf's 21 scales")
              .param("ks"),
          OptionSpec::Double("speed_prescale", 1.0, 0.1, 4.0,
                             "resample the differences by this factor first")
              .param("ps"),
          OptionSpec::String("speed_prescale_method", "nearest",
                             {"nearest", "bilinear", "bicubic", "lanczos4"}, "prescale resampler")
              .param("psm"),
          OptionSpec::Double("speed_sigma_nn", 0.29, 0.1, 2.0, "neural noise standard deviation")
              .param("snn"),
          OptionSpec::Double("speed_nn_floor", 0.0, 0.0, 1.0,
                             "entropy floor above the noise, relative")
              .param("nnf"),
          OptionSpec::Double("speed_max_val", 1000.0, 0.0, 1000.0,
                             "accepted and named as libvmaf's, which never clips speed_temporal")
              .param("mxv"),
          OptionSpec::Bool("speed_use_ref_diff", false,
                           "distorted difference against the current reference frame")
              .param("urd"),
      },
      [](const OptionValues& o) { return std::make_unique<SpeedTemporalCpu>(o); },
      nullptr,
  };
  return descriptor;
}

}  // namespace vqx
