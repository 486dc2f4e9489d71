// libvmaf `speed_chroma` on the CPU (shared/spec/speed.md).
#include "metrics/speed_chroma/speed_chroma.h"

#include <fmt/format.h>

#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/error.h"
#include "core/thread_pool.h"
#include "metrics/speed_core/speed_pipeline.h"

#ifdef VQX_HAVE_CUDA
#include "metrics/speed_chroma/cuda/speed_chroma_cuda.h"
#endif

namespace vqx {
namespace speed {
namespace {

// vmaf.md 5: a value that sscanf("%f %c") reads as exactly one float is replaced by "%g" of its
// strtof value, so at most 6 significant digits (of an f32) survive.
std::string normalised_text(const std::string& text) {
  float f = 0;
  char c = 0;
  if (std::sscanf(text.c_str(), "%f %c", &f, &c) != 1) return text;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", double(std::strtof(text.c_str(), nullptr)));
  return buf;
}

double option_double(const OptionValues& o, const char* name) {
  if (!o.is_set(name)) return o.get_double(name);
  return std::atof(normalised_text(o.text(name)).c_str());
}

int64_t option_int(const OptionValues& o, const char* name) {
  if (!o.is_set(name)) return o.get_int(name);
  return std::atoi(normalised_text(o.text(name)).c_str());
}

const char* kPlaneNames[] = {"", "U", "V"};

}  // namespace

SpeedParams resolve_params(const OptionValues& o) {
  SpeedParams p;
  const double ks = option_double(o, "speed_kernelscale");
  p.kernel_scale = float(ks);
  p.prescale = option_double(o, "speed_prescale");
  p.method = parse_prescale_method(o.get_string("speed_prescale_method"));
  p.sigma_nn = float(option_double(o, "speed_sigma_nn"));
  p.nn_floor = float(option_double(o, "speed_nn_floor"));
  p.max_val = option_double(o, "speed_max_val");
  p.weight_var_mode = int(option_int(o, "speed_weight_var_mode"));
  if (!is_valid_kernel_scale(p.kernel_scale))
    throw UsageError(fmt::format(
        "feature 'speed_chroma': speed_kernelscale={:g} is not one of libvmaf's 21 kernel scales "
        "(1, 0.5, 1.5, 2, 2/3, 2.4, 360/97, 4/3, 3.5/3, 3.75/3, 4.25/3, 5/3, 3, 1/2.25, 1.4746, "
        "1.54, 1.6, 1.06667, 0.711111, 0.74074, 1.111111)",
        ks));
  const bool prescale_runs = std::fabs(p.prescale - 1.0) >= 1e-3;
  if (prescale_runs &&
      (p.method == PrescaleMethod::kBicubic || p.method == PrescaleMethod::kLanczos4))
    throw UsageError(fmt::format(
        "feature 'speed_chroma': speed_prescale_method={} is not supported (its libvmaf results "
        "have not been verified); use bilinear, as the VMAF v1 models do, or nearest",
        o.get_string("speed_prescale_method")));
  return p;
}

std::vector<std::string> output_names(const OptionValues& o) {
  // The suffix of every feature parameter the user gave with a non-default value, in option
  // name order (vmaf.md 5); defaults as speed.md 1.2.
  std::string suffix;
  for (const OptionSpec* param : feature_params_by_name(speed_chroma_descriptor().options)) {
    const std::string& name = param->name;
    if (!o.is_set(name)) continue;
    std::string shown;
    switch (param->type) {
      case OptionType::kString:
        shown = o.get_string(name);
        if (shown == std::get<std::string>(param->default_value)) continue;
        break;
      case OptionType::kInt: {
        const int64_t v = option_int(o, name.c_str());
        if (v == std::get<int64_t>(param->default_value)) continue;
        shown = fmt::format("{}", v);
        break;
      }
      case OptionType::kDouble: {
        const double v = option_double(o, name.c_str());
        if (v == std::get<double>(param->default_value)) continue;
        char buf[64];
        std::snprintf(buf, sizeof buf, "%g", v);
        shown = buf;
        break;
      }
      case OptionType::kBool:
        continue;  // speed_chroma has no boolean option
    }
    suffix += fmt::format("_{}_{}", param->suffix_name(), shown);
  }
  return {"speed_chroma_u" + suffix, "speed_chroma_v" + suffix, "speed_chroma_uv" + suffix};
}

Geometry checked_geometry(const PictureFormat& f, const SpeedParams& params) {
  const std::string what = "speed_chroma on " + f.describe();
  if (f.color != ColorModel::kYCbCr)
    throw InputError(what + ": needs Y'CbCr input (SpEED-chroma scores the Cb and Cr planes)");
  if (f.subsampling == ChromaSubsampling::k400)
    throw InputError(what + ": 4:0:0 input has no chroma planes to score");
  if (f.bit_depth != 8 && f.bit_depth != 10 && f.bit_depth != 12 && f.bit_depth != 16)
    throw InputError(what + ": supports 8-, 10-, 12- and 16-bit samples only, as libvmaf");
  // speed.md 3: floor-sized chroma for subsampled layouts.
  uint32_t w = f.width, h = f.height;
  if (f.subsampling == ChromaSubsampling::k420) w /= 2, h /= 2;
  if (f.subsampling == ChromaSubsampling::k422) w /= 2;
  Geometry g = make_geometry(w, h, params.prescale);
  validate_geometry(g, params.prescale, what);
  return g;
}

namespace {

// Per-thread scratch: extract() runs concurrently for different frames.
struct ImageScratch {
  PreprocessScratch pre;
  StatsScratch stats;
  Image e;
};
ImageScratch& thread_scratch() {
  thread_local ImageScratch scratch;
  return scratch;
}

class SpeedChromaCpu final : public CpuMetric {
 public:
  SpeedChromaCpu(const OptionValues& options, const SpeedKernels& kernels)
      : kernels_(kernels), params_(resolve_params(options)), names_(output_names(options)) {}

  std::vector<std::string> feature_names() const override { return names_; }

  // Frame-sized buffers: the scaled chroma planes and the filter scratch (frame_memory_test
  // measures them).
  size_t frame_memory_bytes() const override { return frame_memory_; }

  void init(const MetricContext& context) override {
    pool_ = context.pool;
    geometry_ = checked_geometry(context.format, params_);
    filters_ = make_filters(params_.kernel_scale);
    threshold_ = entropy_threshold(params_.sigma_nn, params_.nn_floor);
    frame_memory_ = geometry_.prescale_active ? size_t(geometry_.sw) * geometry_.sh * 2
                                              : size_t(geometry_.w) * geometry_.h * 4 / 5;
  }

  void extract(const Picture& ref, const Picture& dis, uint64_t frame,
               FeatureWriter& out) override {
    // The four images (U ref, U dis, V ref, V dis) are independent: computing them on several
    // threads cannot change any bit.
    std::array<ImageEstimate, 4> est;
    pool_->parallel_for(4, 1, [&](size_t begin, size_t end) {
      ImageScratch& s = thread_scratch();
      for (size_t i = begin; i < end; ++i) {
        const Picture& pic = (i % 2 == 0) ? ref : dis;
        const unsigned plane = unsigned(1 + i / 2);
        preprocess_plane(pic, plane, geometry_, params_.method, filters_, s.pre, s.e);
        est[i] = estimate_params(s.e, geometry_, params_.sigma_nn, s.stats, kernels_);
      }
    });
    for (size_t i = 0; i < 4; ++i) report(est[i], frame, unsigned(1 + i / 2), i % 2 == 0);
    const PlaneResult u =
        plane_result(est[0].stats, est[1].stats, threshold_, params_.weight_var_mode);
    const PlaneResult v =
        plane_result(est[2].stats, est[3].stats, threshold_, params_.weight_var_mode);
    const ChromaScores scores = combine_planes(u, v, params_.max_val);
    out.put(frame, 0, scores.u);
    out.put(frame, 1, scores.v);
    out.put(frame, 2, scores.uv);
  }

  void flush(FeatureWriter&) override {
    const uint64_t failed = failures_.load();
    if (failed > 1)
      std::fprintf(stderr,
                   "warning: speed_chroma: %llu images failed in all (each gives a plane score of "
                   "0, as in libvmaf)\n",
                   static_cast<unsigned long long>(failed));
  }

 private:
  // libvmaf logs each failed image ("est_params: covariance matrix is singular"); vqx writes the
  // first one as a one-line warning and the total at the end.
  void report(const ImageEstimate& e, uint64_t frame, unsigned plane, bool is_ref) {
    if (e.step_limit_hit && !step_warned_.exchange(true))
      std::fprintf(stderr,
                   "warning: speed_chroma: frame %llu plane %s (%s): eigenvalue QR stopped at its "
                   "500-step limit, as libvmaf does\n",
                   static_cast<unsigned long long>(frame), kPlaneNames[plane],
                   is_ref ? "reference" : "distorted");
    if (e.failure == Failure::kNone) return;
    if (failures_.fetch_add(1) == 0)
      std::fprintf(stderr,
                   "warning: speed_chroma: frame %llu plane %s (%s): %s; the plane score is 0, as "
                   "in libvmaf\n",
                   static_cast<unsigned long long>(frame), kPlaneNames[plane],
                   is_ref ? "reference" : "distorted", describe(e.failure));
  }

  const SpeedKernels& kernels_;
  SpeedParams params_;
  std::vector<std::string> names_;
  ThreadPool* pool_ = nullptr;
  Geometry geometry_;
  SpeedFilters filters_;
  float threshold_ = 0;
  std::atomic<uint64_t> failures_{0};
  std::atomic<bool> step_warned_{false};
  size_t frame_memory_ = 0;
};

}  // namespace
}  // namespace speed

const MetricDescriptor& speed_chroma_descriptor() {
  static const MetricDescriptor descriptor{
      "speed_chroma",
      "SpEED-QA entropy difference on the chroma planes, libvmaf's speed_chroma (VMAF v1 models)",
      {
          OptionSpec::Double("speed_kernelscale", 1.0, 0.1, 4.0,
                             "Gaussian kernel scale; one of libvmaf's 21 scales")
              .param("ks"),
          OptionSpec::Double("speed_prescale", 1.0, 0.1, 4.0,
                             "resample the chroma planes by this factor first")
              .param("ps"),
          OptionSpec::String("speed_prescale_method", "nearest",
                             {"nearest", "bilinear", "bicubic", "lanczos4"},
                             "prescale resampler; bicubic and lanczos4 are refused")
              .param("psm"),
          OptionSpec::Double("speed_sigma_nn", 0.29, 0.1, 2.0, "neural noise standard deviation")
              .param("snn"),
          OptionSpec::Double("speed_nn_floor", 0.0, 0.0, 1.0,
                             "entropy floor above the noise, relative")
              .param("nnf"),
          OptionSpec::Double("speed_max_val", 1000.0, 0.0, 1000.0, "clip the outputs at this value")
              .param("mxv"),
          OptionSpec::Int("speed_weight_var_mode", 0, 0, 6,
                          "how block variances weight the entropies, 0-6")
              .param("wvm"),
      },
      [](const OptionValues& o) {
        return std::make_unique<speed::SpeedChromaCpu>(o, speed::speed_kernels());
      },
#ifdef VQX_HAVE_CUDA
      [](const OptionValues& o) { return make_speed_chroma_cuda(o); },
#else
      nullptr,
#endif
      {
          {"Speed_chroma_feature_speed_chroma_u_score", "speed_chroma_u"},
          {"Speed_chroma_feature_speed_chroma_v_score", "speed_chroma_v"},
          {"Speed_chroma_feature_speed_chroma_uv_score", "speed_chroma_uv"},
      },
  };
  return descriptor;
}

}  // namespace vqx
