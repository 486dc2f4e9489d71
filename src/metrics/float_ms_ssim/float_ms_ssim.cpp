// libvmaf float_ms_ssim on the CPU (shared/spec/ms_ssim.md).
#include "metrics/float_ms_ssim/float_ms_ssim.h"

#include <fmt/format.h>

#include <cstdio>

#include "core/error.h"
#include "metrics/float_ms_ssim/float_ms_ssim_outputs.h"
#ifdef VQX_HAVE_CUDA
#include "metrics/float_ms_ssim/cuda/float_ms_ssim_cuda.h"
#endif
#include "metrics/ssim_core/scratch_pool.h"

namespace vqx {
namespace ssim {

MsSsimScores compute_ms_ssim(const Picture& ref, const Picture& dis, MsSsimScratch& scratch,
                             ThreadPool* pool, const SsimKernels& kernels) {
  MsSsimScores scores;
  Size size{int(ref.format().width), int(ref.format().height)};
  for (int k = 0; k < kScales; ++k) {
    std::vector<float>& r = scratch.ref[size_t(k)];
    std::vector<float>& d = scratch.dis[size_t(k)];
    if (k == 0) {
      r.resize(size.pixels());
      d.resize(size.pixels());
      convert_luma(ref, r.data());
      convert_luma(dis, d.data());
    } else {
      // Level k from level k-1, reference and distorted independently (spec 3.3).
      const Size prev = size;
      size = half_size(prev);
      r.resize(size.pixels());
      d.resize(size.pixels());
      decimate(scratch.ref[size_t(k - 1)].data(), prev, r.data(), pool, kernels);
      decimate(scratch.dis[size_t(k - 1)].data(), prev, d.data(), pool, kernels);
    }
    scores.means[size_t(k)] = ssim_scale(r.data(), d.data(), size, pool, kernels);
  }
  scores.score = combine_scales(scores.means, &scores.infinite);
  return scores;
}

}  // namespace ssim

namespace {

class FloatMsSsimCpu final : public CpuMetric {
 public:
  explicit FloatMsSsimCpu(const OptionValues& o)
      : enable_lcs_(o.get_bool("enable_lcs")),
        enable_db_(o.get_bool("enable_db")),
        clip_db_(o.get_bool("clip_db")),
        enable_chroma_set_(o.is_set("enable_chroma")) {}

  std::vector<std::string> feature_names() const override {
    return ssim::float_ms_ssim_feature_names(enable_lcs_);
  }

  // Frame-sized buffers: the f32 pyramid of both pictures and the filtered moment planes
  // (frame_memory_test measures them).
  size_t frame_memory_bytes() const override { return frame_memory_; }

  void init(const MetricContext& context) override {
    const PictureFormat& f = context.format;
    // Upstream checks this on every frame and then stops the run; we refuse up front (spec 3.1).
    if (f.width < uint32_t(ssim::kMsSsimMinSize) || f.height < uint32_t(ssim::kMsSsimMinSize))
      throw InputError(
          fmt::format("float_ms_ssim needs at least {0}x{0} pixels (an 11x11 window at its 5th "
                      "scale), got {1}x{2}",
                      ssim::kMsSsimMinSize, f.width, f.height));
    if (enable_chroma_set_)
      std::fputs("warning: float_ms_ssim: enable_chroma has no effect (MS-SSIM scores luma only)\n",
                 stderr);
    pool_ = context.pool;
    max_db_ = ssim::max_db(clip_db_, f.bit_depth, f.width, f.height);
    frame_memory_ = size_t(f.width) * f.height * 37 / 2 + (size_t{5} << 19);
  }

  void extract(const Picture& ref, const Picture& dis, uint64_t frame,
               FeatureWriter& out) override {
    auto scratch = scratch_.acquire();
    const ssim::MsSsimScores scores = ssim::compute_ms_ssim(ref, dis, *scratch, pool_, kernels_);
    if (scores.infinite)
      throw InputError(fmt::format("float_ms_ssim is infinite at frame {}", frame));
    out.put(frame, 0, enable_db_ ? ssim::to_db(scores.score, max_db_) : scores.score);
    if (!enable_lcs_) return;
    for (int k = 0; k < ssim::kScales; ++k) {
      const ssim::ScaleMeans& m = scores.means[size_t(k)];
      out.put(frame, size_t(1 + k), double(m.l));
      out.put(frame, size_t(1 + ssim::kScales + k), double(m.c));
      out.put(frame, size_t(1 + 2 * ssim::kScales + k), double(m.s));
    }
  }

 private:
  bool enable_lcs_, enable_db_, clip_db_, enable_chroma_set_;
  ThreadPool* pool_ = nullptr;
  double max_db_ = 0;
  const ssim::SsimKernels& kernels_ = ssim::ssim_kernels();
  ssim::ScratchPool<ssim::MsSsimScratch> scratch_;
  size_t frame_memory_ = 0;
};

}  // namespace

const MetricDescriptor& float_ms_ssim_descriptor() {
  static const MetricDescriptor descriptor{
      "float_ms_ssim",
      "Multi-scale SSIM of luma, libvmaf's float_ms_ssim (bit-exact)",
      {
          OptionSpec::Bool("enable_lcs", false,
                           "also output the per-scale means float_ms_ssim_{l,c,s}_scale0..4"),
          OptionSpec::Bool("enable_db", false, "write the score as -10*log10(1 - score)"),
          OptionSpec::Bool("clip_db", false,
                           "cap the dB score at ceil(10*log10(peak^2 / (0.5/pixels)))"),
          OptionSpec::Bool("enable_chroma", false,
                           "accepted for lusoris/vmaf compatibility; no effect (luma only)"),
      },
      [](const OptionValues& o) { return std::make_unique<FloatMsSsimCpu>(o); },
#ifdef VQX_HAVE_CUDA
      [](const OptionValues& o) { return make_float_ms_ssim_cuda(o); },
#else
      nullptr,
#endif
  };
  return descriptor;
}

}  // namespace vqx

namespace vqx::ssim {

std::vector<std::string> float_ms_ssim_feature_names(bool enable_lcs) {
  std::vector<std::string> names = {"float_ms_ssim"};
  if (enable_lcs)
    for (const char* term : {"l", "c", "s"})
      for (int k = 0; k < kScales; ++k)
        names.push_back(fmt::format("float_ms_ssim_{}_scale{}", term, k));
  return names;
}

}  // namespace vqx::ssim
