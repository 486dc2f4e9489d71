// libvmaf float_ssim on the CPU. Upstream (feature/ssim.c) converts luma as float_ms_ssim does
// (shared/spec/ms_ssim.md section 1), decimates by a box filter, then runs one scale of the IQA
// SSIM (spec section 4) and reports f32(ssim_sum / N) and the f32 l, c, s means.
#include "metrics/float_ssim/float_ssim.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "core/error.h"
#include "metrics/float_ssim/float_ssim_outputs.h"
#ifdef VQX_HAVE_CUDA
#include "metrics/float_ssim/cuda/float_ssim_cuda.h"
#endif
#include "core/thread_pool.h"
#include "metrics/ssim_core/scratch_pool.h"
#include "metrics/ssim_core/ssim_kernels.h"

namespace vqx {
namespace ssim {

int box_factor(int scale_option, Size size) {
  if (scale_option > 0) return scale_option;
  // IQA _round: f32 quotient; a - (int)a >= 0.5 rounds up (the quotient is never negative here).
  const float a = float(std::min(size.width, size.height)) / 256.0f;
  const int truncated = int(a);
  const int rounded = (a - float(truncated) >= 0.5) ? truncated + 1 : truncated;
  return std::max(1, rounded);
}

Size box_decimated_size(Size size, int factor) {
  if (factor <= 1) return size;
  return {size.width / factor + (size.width & 1), size.height / factor + (size.height & 1)};
}

void box_decimate(const float* in, Size size, int factor, float* out, ThreadPool* pool) {
  const Size small = box_decimated_size(size, factor);
  const float weight = 1.0f / float(factor * factor);  // f32, as upstream's kernel entries
  const int lo = -(factor / 2), hi = factor - 1 - factor / 2;
  auto rows = [&](size_t begin, size_t end) {
    for (int y = int(begin); y < int(end); ++y)
      for (int x = 0; x < small.width; ++x) {
        double sum = 0.0;
        for (int v = lo; v <= hi; ++v) {
          const float* row = in + size_t(reflect(y * factor + v, size.height)) * size.width;
          for (int u = lo; u <= hi; ++u)
            sum += double(row[reflect(x * factor + u, size.width)] * weight);
        }
        out[size_t(y) * small.width + x] = float(sum);
      }
  };
  // Upstream decimates in place; every output is written after all of its inputs are read and
  // never over an input a later output reads, so a separate output buffer gives the same values.
  if (pool)
    pool->parallel_for(size_t(small.height), 16, rows);
  else
    rows(0, size_t(small.height));
}

}  // namespace ssim

namespace {

struct SsimScratch {
  std::vector<float> ref, dis, ref_small, dis_small;
};

class FloatSsimCpu final : public CpuMetric {
 public:
  explicit FloatSsimCpu(const OptionValues& o)
      : enable_lcs_(o.get_bool("enable_lcs")),
        enable_db_(o.get_bool("enable_db")),
        clip_db_(o.get_bool("clip_db")),
        scale_(int(o.get_int("scale"))) {}

  std::vector<std::string> feature_names() const override {
    return ssim::float_ssim_feature_names(enable_lcs_);
  }

  // Frame-sized buffers: the f32 planes of both pictures (decimated or not) and the filtered
  // moments (frame_memory_test measures them).
  size_t frame_memory_bytes() const override { return frame_memory_; }

  void init(const MetricContext& context) override {
    const PictureFormat& f = context.format;
    size_ = {int(f.width), int(f.height)};
    factor_ = ssim::box_factor(scale_, size_);
    const ssim::Size small = ssim::box_decimated_size(size_, factor_);
    // Upstream runs on regardless and reports garbage; an 11x11 window must fit.
    if (small.width < ssim::kWindowTaps || small.height < ssim::kWindowTaps)
      throw InputError(fmt::format(
          "float_ssim needs at least 11x11 pixels after its 1/{} decimation, got {}x{} -> {}x{}",
          factor_, f.width, f.height, small.width, small.height));
    pool_ = context.pool;
    max_db_ = ssim::max_db(clip_db_, f.bit_depth, f.width, f.height);
    frame_memory_ = size_t(f.width) * f.height * 12 + (size_t{7} << 19);
  }

  void extract(const Picture& ref, const Picture& dis, uint64_t frame,
               FeatureWriter& out) override {
    auto s = scratch_.acquire();
    s->ref.resize(size_.pixels());
    s->dis.resize(size_.pixels());
    ssim::convert_luma(ref, s->ref.data());
    ssim::convert_luma(dis, s->dis.data());
    const float* r = s->ref.data();
    const float* d = s->dis.data();
    ssim::Size size = size_;
    if (factor_ > 1) {
      size = ssim::box_decimated_size(size_, factor_);
      s->ref_small.resize(size.pixels());
      s->dis_small.resize(size.pixels());
      ssim::box_decimate(r, size_, factor_, s->ref_small.data(), pool_);
      ssim::box_decimate(d, size_, factor_, s->dis_small.data(), pool_);
      r = s->ref_small.data();
      d = s->dis_small.data();
    }
    const ssim::ScaleMeans m = ssim::ssim_scale(r, d, size, pool_, kernels_);
    ssim::write_float_ssim_outputs(out, frame, m, enable_db_, max_db_, enable_lcs_);
  }

 private:
  bool enable_lcs_, enable_db_, clip_db_;
  int scale_;
  ssim::Size size_;
  int factor_ = 1;
  ThreadPool* pool_ = nullptr;
  double max_db_ = 0;
  const ssim::SsimKernels& kernels_ = ssim::ssim_kernels();
  ssim::ScratchPool<SsimScratch> scratch_;
  size_t frame_memory_ = 0;
};

}  // namespace

const MetricDescriptor& float_ssim_descriptor() {
  static const MetricDescriptor descriptor{
      "float_ssim",
      "SSIM of luma, libvmaf's float_ssim (bit-exact)",
      {
          OptionSpec::Bool("enable_lcs", false,
                           "also output float_ssim_l, float_ssim_c, float_ssim_s"),
          OptionSpec::Bool("enable_db", false, "write the score as -10*log10(1 - score)"),
          OptionSpec::Bool("clip_db", false,
                           "cap the dB score at ceil(10*log10(peak^2 / (0.5/pixels)))"),
          OptionSpec::Int("scale", 0, 0, 10,
                          "decimation factor: 0 = auto (min(w,h)/256), 1 = none"),
      },
      [](const OptionValues& o) { return std::make_unique<FloatSsimCpu>(o); },
#ifdef VQX_HAVE_CUDA
      [](const OptionValues& o) { return make_float_ssim_cuda(o); },
#else
      nullptr,
#endif
  };
  return descriptor;
}

}  // namespace vqx

namespace vqx::ssim {

std::vector<std::string> float_ssim_feature_names(bool enable_lcs) {
  if (enable_lcs) return {"float_ssim", "float_ssim_l", "float_ssim_c", "float_ssim_s"};
  return {"float_ssim"};
}

void write_float_ssim_outputs(FeatureWriter& out, uint64_t frame, const ScaleMeans& means,
                              bool enable_db, double max_db, bool enable_lcs) {
  const double score = double(means.ssim);
  out.put(frame, 0, enable_db ? to_db(score, max_db) : score);
  if (!enable_lcs) return;
  out.put(frame, 1, double(means.l));
  out.put(frame, 2, double(means.c));
  out.put(frame, 3, double(means.s));
}

}  // namespace vqx::ssim
