// libvmaf's integer `vif` on the CPU (shared/spec/vmaf.md section 2).
#include "metrics/integer_vif/integer_vif.h"

#include <array>
#include <mutex>

#include "core/thread_pool.h"
#include "metrics/integer_vif/vif_kernels.h"
#include "metrics/integer_vif/vif_math.h"
#include "metrics/vmaf_common/feature_name.h"
#include "metrics/vmaf_common/size_limits.h"
#include "metrics/vmaf_common/workspace_pool.h"
#ifdef VQX_HAVE_CUDA
#include "metrics/integer_vif/cuda/vif_cuda.h"
#endif

namespace vqx {
namespace {

using namespace integer_vif;

// Rows per parallel task: fixed, so the split never depends on the thread count (the sums are
// exact integers anyway).
constexpr size_t kRowGrain = 32;

class IntegerVifCpu final : public CpuMetric {
 public:
  IntegerVifCpu(const OptionValues& o, const VifKernels& kernels)
      : kernels_(kernels),
        gain_limit_(vmaf_common::normalise_double_option(o.get_double("vif_enhn_gain_limit"))),
        skip_scale0_(o.get_bool("vif_skip_scale0")),
        debug_(o.get_bool("debug")),
        suffix_(vmaf_common::name_suffix(integer_vif_descriptor().options, o)) {}

  std::vector<std::string> feature_names() const override {
    std::vector<std::string> names;
    for (int s = 0; s < kScales; ++s) names.push_back("integer_vif_scale" + std::to_string(s));
    if (debug_) {
      for (const char* n : {"integer_vif", "integer_vif_num", "integer_vif_den"}) names.push_back(n);
      for (int s = 0; s < kScales; ++s) {
        names.push_back("integer_vif_num_scale" + std::to_string(s));
        names.push_back("integer_vif_den_scale" + std::to_string(s));
      }
    }
    return vmaf_common::with_suffix(names, suffix_);
  }

  // Frame-sized buffers: the pyramid's two half-size and two quarter-size Q8 planes
  // (frame_memory_test measures them).
  size_t frame_memory_bytes() const override { return frame_memory_; }

  void init(const MetricContext& context) override {
    vmaf_common::require_min_size(context.format, "vif");
    format_ = context.format;
    pool_ = context.pool;
    const PictureFormat& f = context.format;
    frame_memory_ = size_t(f.width) * f.height * 5 / 4;
  }

  void extract(const Picture& ref, const Picture& dis, uint64_t frame, FeatureWriter& out) override {
    std::array<VifScaleResult, kScales> scales{};
    if (format_.bit_depth == 8)
      compute(ref.plane<uint8_t>(0), dis.plane<uint8_t>(0), scales);
    else
      compute(ref.plane<uint16_t>(0), dis.plane<uint16_t>(0), scales);

    for (int s = 0; s < kScales; ++s) {
      double score = (s == 0 && skip_scale0_) ? 0.0 : double(scales[s].num / scales[s].den);
      out.put(frame, s, score);  // f32 division, widened (2.6)
    }
    if (!debug_) return;
    double num = 0, den = 0;
    for (int s = skip_scale0_ ? 1 : 0; s < kScales; ++s) {
      num += double(scales[s].num);
      den += double(scales[s].den);
    }
    out.put(frame, 4, den == 0 ? 1.0 : num / den);
    out.put(frame, 5, num);
    out.put(frame, 6, den);
    for (int s = 0; s < kScales; ++s) {
      bool skipped = s == 0 && skip_scale0_;
      out.put(frame, 7 + 2 * s, skipped ? 0.0 : double(scales[s].num));
      out.put(frame, 8 + 2 * s, skipped ? -1.0 : double(scales[s].den));
    }
  }

 private:
  template <typename Sample>
  VifScaleResult statistic(const Sample* ref, const Sample* dis, uint32_t w, uint32_t h, int s) {
    VifAccumulators total;
    std::mutex mutex;
    pool_->parallel_for(h, kRowGrain, [&](size_t begin, size_t end) {
      VifAccumulators part = kernels_.of<Sample>().statistic_rows(
          ref, dis, w, h, s, format_.bit_depth, gain_limit_, uint32_t(begin), uint32_t(end));
      std::lock_guard lock(mutex);
      total.add(part);
    });
    return vif_scale_result(total);
  }

  template <typename Sample>
  void downsample(const Sample* in, uint32_t w, uint32_t h, int from, std::vector<uint16_t>& out) {
    out.resize(size_t(w / 2) * (h / 2));
    pool_->parallel_for(h / 2, kRowGrain, [&](size_t begin, size_t end) {
      kernels_.of<Sample>().downsample_rows(in, w, h, from, format_.bit_depth, out.data(),
                                            uint32_t(begin), uint32_t(end));
    });
  }

  template <typename Sample>
  void compute(const Sample* ref, const Sample* dis, std::array<VifScaleResult, kScales>& scales) {
    uint32_t w = format_.width, h = format_.height;
    if (!skip_scale0_) scales[0] = statistic(ref, dis, w, h, 0);
    // Per-call buffers (extract() runs concurrently for different frames), reused from earlier
    // calls; the downsampling overwrites them whole.
    auto lease = pyramids_.acquire();
    std::vector<uint16_t>* r = lease->r;
    std::vector<uint16_t>* d = lease->d;
    downsample(ref, w, h, 0, r[0]);
    downsample(dis, w, h, 0, d[0]);
    w /= 2, h /= 2;
    for (int s = 1; s < kScales; ++s) {
      const std::vector<uint16_t>& rs = r[(s - 1) & 1];
      const std::vector<uint16_t>& ds = d[(s - 1) & 1];
      scales[s] = statistic(rs.data(), ds.data(), w, h, s);
      if (s + 1 < kScales) {
        downsample(rs.data(), w, h, s, r[s & 1]);
        downsample(ds.data(), w, h, s, d[s & 1]);
        w /= 2, h /= 2;
      }
    }
  }

  const VifKernels& kernels_;
  double gain_limit_;
  bool skip_scale0_, debug_;
  std::string suffix_;
  struct Pyramid {
    std::vector<uint16_t> r[2], d[2];
  };
  vmaf_common::WorkspacePool<Pyramid> pyramids_;
  PictureFormat format_;
  ThreadPool* pool_ = nullptr;
  size_t frame_memory_ = 0;
};

}  // namespace

std::unique_ptr<CpuMetric> make_integer_vif_cpu(const OptionValues& options,
                                                const integer_vif::VifKernels& kernels) {
  return std::make_unique<IntegerVifCpu>(options, kernels);
}

const MetricDescriptor& integer_vif_descriptor() {
  static const MetricDescriptor descriptor{
      "vif",
      "libvmaf's integer VIF (integer_vif_scale0..3), bit-exact",
      {
          OptionSpec::Double("vif_enhn_gain_limit", 100.0, 1.0, 100.0,
                             "upper bound of the enhancement gain")
              .param("egl"),
          OptionSpec::Bool("vif_skip_scale0", false, "do not compute scale 0; it is written as 0")
              .param("ssclz"),
          OptionSpec::Bool("debug", false,
                           "also output integer_vif, its num/den and per-scale num/den"),
      },
      [](const OptionValues& o) { return make_integer_vif_cpu(o, vif_kernels()); },
#ifdef VQX_HAVE_CUDA
      [](const OptionValues& o) { return make_integer_vif_cuda(o); },
#else
      nullptr,
#endif
      {
          {"VMAF_integer_feature_vif_scale0_score", "integer_vif_scale0"},
          {"VMAF_integer_feature_vif_scale1_score", "integer_vif_scale1"},
          {"VMAF_integer_feature_vif_scale2_score", "integer_vif_scale2"},
          {"VMAF_integer_feature_vif_scale3_score", "integer_vif_scale3"},
      },
  };
  return descriptor;
}

}  // namespace vqx
