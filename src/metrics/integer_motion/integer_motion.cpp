// libvmaf's integer `motion` on the CPU (shared/spec/vmaf.md section 4). Temporal: the engine
// hands every frame (also frames that --subsample does not report, as libvmaf runs temporal
// extractors on every frame). A frame's SAD score needs only its reference luma and that of the
// frame `lag` before it, which the engine holds for prepare() (history()), so frames are scored
// concurrently; extract() then takes the scores in order. A frame's motion2/motion3 are written as
// soon as they are known, lag frames later (final_lag()); flush() writes the last frames' ones.
#include "metrics/integer_motion/integer_motion.h"

#include <map>
#include <mutex>
#include <stdexcept>
#include <optional>

#include "core/thread_pool.h"
#include "metrics/integer_motion/motion_kernels.h"
#include "metrics/integer_motion/motion_math.h"
#include "metrics/vmaf_common/feature_name.h"
#include "metrics/vmaf_common/size_limits.h"
#ifdef VQX_HAVE_CUDA
#include "metrics/integer_motion/cuda/motion_cuda.h"
#endif

namespace vqx {
namespace {

using namespace integer_motion;

constexpr size_t kRowGrain = 32;

class IntegerMotionCpu final : public CpuMetric {
 public:
  IntegerMotionCpu(const OptionValues& o, const MotionKernels& kernels)
      : kernels_(kernels),
        force_zero_(o.get_bool("motion_force_zero")),
        fps_weight_(vmaf_common::normalise_double_option(o.get_double("motion_fps_weight"))),
        debug_(o.get_bool("debug")),
        suffix_(vmaf_common::name_suffix(integer_motion_descriptor().options, o)) {
    MotionPostOptions post;
    post.five_frame_window = o.get_bool("motion_five_frame_window");
    post.moving_average = o.get_bool("motion_moving_average");
    post.blend_factor = vmaf_common::normalise_double_option(o.get_double("motion_blend_factor"));
    post.blend_offset = vmaf_common::normalise_double_option(o.get_double("motion_blend_offset"));
    post.max_val = vmaf_common::normalise_double_option(o.get_double("motion_max_val"));
    max_val_ = post.max_val;
    post_stream_.emplace(post, force_zero_);
  }

  std::vector<std::string> feature_names() const override {
    std::vector<std::string> names = {"VMAF_integer_feature_motion_sad_score", "integer_motion2",
                                      "integer_motion3"};
    if (debug_) names.push_back("integer_motion");
    return vmaf_common::with_suffix(names, suffix_);
  }

  bool temporal() const override { return true; }
  uint64_t final_lag() const override { return post_stream_->lag(); }
  unsigned history() const override { return unsigned(post_stream_->lag()); }

  void init(const MetricContext& context) override {
    vmaf_common::require_min_size(context.format, "motion");
    format_ = context.format;
    pool_ = context.pool;
  }

  void prepare(const Picture& ref, const Picture& /*dis*/, std::span<const EarlierFrame> earlier,
               uint64_t frame) override {
    // Only the reference luma is used (4.2); earlier[lag - 1] is frame n - lag.
    const size_t lag = post_stream_->lag();
    double score = 0.0;
    if (!force_zero_ && frame >= lag && earlier.size() >= lag)
      score = frame_score(ref.bytes(), earlier[lag - 1].ref->bytes());
    std::lock_guard lock(scores_mutex_);
    scores_[frame] = score;
  }

  void extract(const Picture& /*ref*/, const Picture& /*dis*/, uint64_t frame,
               FeatureWriter& out) override {
    double score;
    {
      std::lock_guard lock(scores_mutex_);
      auto it = scores_.find(frame);
      if (it == scores_.end()) throw std::logic_error("motion: extract() before prepare()");
      score = it->second;
      scores_.erase(it);
    }
    out.put(frame, kSad, score);
    if (debug_) out.put(frame, kDebugMotion, score);
    post_stream_->add(score, motion_post_writer(out));
  }

  void flush(FeatureWriter& out) override { post_stream_->finish(motion_post_writer(out)); }

 private:
  double frame_score(const uint8_t* cur, const uint8_t* prev) {
    const uint32_t w = format_.width, h = format_.height;
    uint64_t sad = 0;
    std::mutex mutex;
    pool_->parallel_for(h, kRowGrain, [&](size_t begin, size_t end) {
      uint64_t part;
      if (format_.bit_depth == 8)
        part = kernels_.sad_rows_8(prev, cur, w, h, 8, uint32_t(begin), uint32_t(end));
      else
        part = kernels_.sad_rows_16(reinterpret_cast<const uint16_t*>(prev),
                                    reinterpret_cast<const uint16_t*>(cur), w, h,
                                    format_.bit_depth, uint32_t(begin), uint32_t(end));
      std::lock_guard lock(mutex);
      sad += part;
    });
    return motion_score(sad, w, h, fps_weight_, max_val_);
  }

  const MotionKernels& kernels_;
  bool force_zero_;
  double fps_weight_;
  bool debug_;
  std::string suffix_;
  double max_val_ = 0;
  std::optional<MotionPostStream> post_stream_;
  PictureFormat format_;
  ThreadPool* pool_ = nullptr;
  std::mutex scores_mutex_;
  std::map<uint64_t, double> scores_;  // prepared frames that extract() has not taken yet
};

}  // namespace

MotionPostStream::Emit integer_motion::motion_post_writer(FeatureWriter& out) {
  return [&out](uint64_t frame, const MotionPostValues& v) {
    out.put(frame, kMotion2, v.motion2);
    out.put(frame, kMotion3, v.motion3);
  };
}

std::unique_ptr<CpuMetric> make_integer_motion_cpu(const OptionValues& options,
                                                   const integer_motion::MotionKernels& kernels) {
  return std::make_unique<IntegerMotionCpu>(options, kernels);
}

const MetricDescriptor& integer_motion_descriptor() {
  static const MetricDescriptor descriptor{
      "motion",
      "libvmaf's integer motion (SAD score, integer_motion2, integer_motion3), bit-exact",
      {
          OptionSpec::Bool("motion_force_zero", false, "every motion score is 0").param("force_0"),
          OptionSpec::Double("motion_max_val", 10000.0, 0.0, 10000.0,
                             "clip of the SAD score and of motion3")
              .param("mmxv"),
          OptionSpec::Double("motion_fps_weight", 1.0, 0.0, 5.0, "multiplies the SAD score")
              .param("mfw"),
          OptionSpec::Double("motion_blend_factor", 1.0, 0.0, 1.0, "motion3 blend").param("mbf"),
          OptionSpec::Double("motion_blend_offset", 40.0, 0.0, 1000.0, "motion3 blend knee")
              .param("mbo"),
          OptionSpec::Bool("motion_five_frame_window", false,
                           "compare frame n with n-2, for high frame rates")
              .param("mffw"),
          OptionSpec::Bool("motion_moving_average", false,
                           "motion3 = mean of this and the previous value")
              .param("mma"),
          OptionSpec::Bool("debug", false, "also output integer_motion (= the SAD score)"),
      },
      [](const OptionValues& o) { return make_integer_motion_cpu(o, motion_kernels()); },
#ifdef VQX_HAVE_CUDA
      [](const OptionValues& o) { return make_integer_motion_cuda(o); },
#else
      nullptr,
#endif
      {
          {"VMAF_integer_feature_motion_sad_score", "VMAF_integer_feature_motion_sad_score"},
          {"VMAF_integer_feature_motion2_score", "integer_motion2"},
          {"VMAF_integer_feature_motion3_score", "integer_motion3"},
      },
  };
  return descriptor;
}

}  // namespace vqx
