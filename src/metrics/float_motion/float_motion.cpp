// libvmaf's `float_motion` on the CPU (docs/float_motion.md): the mean absolute difference of
// consecutive blurred reference lumas (f32, offset -128), and motion2 / motion3 from it. Temporal:
// every frame arrives in order; flush() writes motion2 and motion3 of every frame.
#include "metrics/float_motion/float_motion.h"

#include <fmt/format.h>

#include <cmath>

#include "core/error.h"
#include "metrics/float_common/luma_float.h"
#include "metrics/speed_core/speed_preprocess.h"
#include "metrics/vmaf_common/feature_name.h"

namespace vqx {
namespace {

// Upstream's bilinear resampler keeps its column tables on the stack and refuses wider outputs.
constexpr uint32_t kBilinearMaxWidth = 7680;

// Upstream's blur taps (motion_tools.h), double literals rounded to f32.
std::vector<float> blur_taps(int64_t filter_size) {
  if (filter_size == 1) return {0.0f, 0.0f, 1.0f, 0.0f, 0.0f};
  if (filter_size == 3) return {float(0.166378498), float(0.667243004), float(0.166378498)};
  return {float(0.054488685), float(0.244201342), float(0.402619947), float(0.244201342),
          float(0.054488685)};
}

// vmaf_image_sad_c: per row the f32 sum of |a - b| (the difference in f32, its magnitude and the
// sum through f64, as C's fabs), the rows' f32 sum, over the f32 pixel count.
float mean_abs_difference(const speed::Image& a, const speed::Image& b) {
  float accum = 0.0f;
  for (uint32_t i = 0; i < a.h; ++i) {
    const float* x = a.row(i);
    const float* y = b.row(i);
    float line = 0.0f;
    for (uint32_t j = 0; j < a.w; ++j) line = float(double(line) + std::fabs(double(x[j] - y[j])));
    accum += line;
  }
  return accum / float(int(a.w * a.h));
}

// One plane's motion between two blurred frames: scale 0, plus the same at half size (bilinear,
// round(n / 2)) with motion_add_scale1.
float plane_motion(const speed::Image& previous, const speed::Image& current, bool add_scale1) {
  const float scale0 = mean_abs_difference(previous, current);
  if (!add_scale1) return scale0;
  const uint32_t w = uint32_t(int(previous.w * 0.5 + 0.5)),
                 h = uint32_t(int(previous.h * 0.5 + 0.5));
  speed::Image p, c;
  speed::prescale(previous, w, h, speed::PrescaleMethod::kBilinear, p);
  speed::prescale(current, w, h, speed::PrescaleMethod::kBilinear, c);
  return scale0 + mean_abs_difference(p, c);
}

class FloatMotionCpu final : public CpuMetric {
 public:
  explicit FloatMotionCpu(const OptionValues& o)
      : debug_(o.get_bool("debug")),
        force_zero_(o.get_bool("motion_force_zero")),
        add_scale1_(o.get_bool("motion_add_scale1")),
        add_uv_(o.get_bool("motion_add_uv")),
        fps_weight_(vmaf_common::normalise_double_option(o.get_double("motion_fps_weight"))),
        blend_factor_(vmaf_common::normalise_double_option(o.get_double("motion_blend_factor"))),
        blend_offset_(vmaf_common::normalise_double_option(o.get_double("motion_blend_offset"))),
        max_val_(vmaf_common::normalise_double_option(o.get_double("motion_max_val"))),
        taps_(blur_taps(o.get_int("motion_filter_size"))),
        suffix_(vmaf_common::name_suffix(float_motion_descriptor().options, o)) {}

  std::vector<std::string> feature_names() const override {
    std::vector<std::string> names = {"motion2", "motion3"};
    if (debug_) names.push_back("motion");
    return vmaf_common::with_suffix(names, suffix_);
  }

  bool temporal() const override { return true; }

  // Frame-sized buffers: the f32 planes of the current and blurred pictures, chroma included with
  // motion_add_uv (frame_memory_test measures them).
  size_t frame_memory_bytes() const override { return frame_memory_; }

  void init(const MetricContext& context) override {
    const PictureFormat& f = context.format;
    planes_ = add_uv_ ? 3 : 1;
    if (add_uv_ && f.subsampling == ChromaSubsampling::k400)
      throw InputError("float_motion: motion_add_uv needs chroma planes, the input is 4:0:0");
    if (add_scale1_ && uint32_t(int(f.width * 0.5 + 0.5)) > kBilinearMaxWidth)
      throw InputError(
          fmt::format("float_motion: motion_add_scale1 on {} exceeds libvmaf's {} columns",
                      f.describe(), kBilinearMaxWidth));
    // The blur's mirrored taps, and the half-size planes of motion_add_scale1, stay inside.
    const uint32_t need = add_scale1_ ? 6 : 3;
    for (unsigned p = 0; p < planes_; ++p)
      if (f.plane_width(p) < need || f.plane_height(p) < need)
        throw InputError(fmt::format("float_motion needs planes of at least {}x{}, got {}", need,
                                     need, f.describe()));
    frame_memory_ = size_t(f.width) * f.height * 16 +
                    (add_uv_ ? size_t(f.plane_width(1)) * f.plane_height(1) * 16 : 0);
  }

  // Each value is written in the call where libvmaf's float_motion appends it, which sets the
  // output order: frame 0 writes motion2[0] = 0, frame 1 motion3[0] (the blend of score[1]), frame
  // n >= 2 motion2 and motion3 of frame n - 1 (from min(score[n - 1], score[n])), the flush those
  // of the last frame (its own score; a lone frame 0: motion3 = 0).
  void extract(const Picture& ref, const Picture&, uint64_t frame, FeatureWriter& out) override {
    if (force_zero_) {
      out.put(frame, kMotion2, 0.0);
      out.put(frame, kMotion3, 0.0);
      if (debug_) out.put(frame, kMotion, 0.0);
      return;
    }
    if (scores_.size() <= frame) scores_.resize(frame + 1, 0.0);
    std::vector<speed::Image> blurred(planes_);
    for (unsigned p = 0; p < planes_; ++p) {
      speed::Image plane;
      plane.w = ref.format().plane_width(p);
      plane.h = ref.format().plane_height(p);
      plane.px = float_common::plane_to_float(ref, p, -128.0f);
      speed::convolve(plane, taps_, blurred[p]);
    }
    previous_.swap(blurred);
    if (frame == 0) {
      out.put(0, kMotion2, 0.0);
      if (debug_) out.put(0, kMotion, 0.0);
      return;
    }
    double score = 0.0;
    for (unsigned p = 0; p < planes_; ++p)
      score += plane_motion(blurred[p], previous_[p], add_scale1_);
    scores_[frame] = score;
    if (debug_) out.put(frame, kMotion, capped(score * fps_weight_));
    if (frame == 1) {
      out.put(0, kMotion3, capped(blend(score * fps_weight_)));
      return;
    }
    const double before = scores_[frame - 1];
    const double s = before < score ? before : score;
    out.put(frame - 1, kMotion2, capped(s * fps_weight_));
    out.put(frame - 1, kMotion3, capped(blend(s * fps_weight_)));
  }

  void flush(FeatureWriter& out) override {
    if (force_zero_ || scores_.empty()) return;
    const size_t last = scores_.size() - 1;
    if (last == 0) {
      out.put(0, kMotion3, 0.0);
      return;
    }
    out.put(last, kMotion2, capped(scores_[last] * fps_weight_));
    out.put(last, kMotion3, capped(blend(scores_[last] * fps_weight_)));
  }

 private:
  enum Output : size_t { kMotion2, kMotion3, kMotion };

  double capped(double v) const { return v < max_val_ ? v : max_val_; }
  double blend(double v) const {
    return v * blend_factor_ + (1 - blend_factor_) * (blend_offset_ < v ? blend_offset_ : v);
  }

  bool debug_, force_zero_, add_scale1_, add_uv_;
  double fps_weight_, blend_factor_, blend_offset_, max_val_;
  std::vector<float> taps_;
  std::string suffix_;
  unsigned planes_ = 1;
  std::vector<speed::Image> previous_;
  std::vector<double> scores_;
  size_t frame_memory_ = 0;
};

}  // namespace

const MetricDescriptor& float_motion_descriptor() {
  static const MetricDescriptor descriptor{
      "float_motion",
      "Temporal activity of the blurred reference luma (motion, motion2, motion3), libvmaf's "
      "float_motion",
      {
          OptionSpec::Bool("debug", true, "also output motion, the unfiltered per-frame score"),
          OptionSpec::Bool("motion_force_zero", false, "every motion score is 0").param("force_0"),
          OptionSpec::Double("motion_fps_weight", 1.0, 0.0, 5.0, "multiplies every score")
              .param("mfw"),
          OptionSpec::Double("motion_blend_factor", 1.0, 0.0, 1.0, "motion3 blend").param("mbf"),
          OptionSpec::Double("motion_blend_offset", 40.0, 0.0, 1000.0, "motion3 blend knee")
              .param("mbo"),
          OptionSpec::Bool("motion_add_scale1", false, "add the motion of half-size planes")
              .param("mdc"),
          OptionSpec::Int("motion_filter_size", 5, 0, 9, "blur: 1 none, 3 three taps, else five")
              .param("mfs"),
          OptionSpec::Bool("motion_add_uv", false, "add the Cb and Cr planes' motion").param("mau"),
          OptionSpec::Double("motion_max_val", 10000.0, 0.0, 10000.0, "clip of every score")
              .param("mmxv"),
      },
      [](const OptionValues& o) { return std::make_unique<FloatMotionCpu>(o); },
      nullptr,
      {
          {"VMAF_feature_motion2_score", "motion2"},
          {"VMAF_feature_motion_score", "motion"},
          {"VMAF_feature_motion3_score", "motion3"},
      },
  };
  return descriptor;
}

}  // namespace vqx
