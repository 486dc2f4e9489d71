// libvmaf integer psnr on the CPU (shared/spec/psnr.md).
#include "metrics/psnr/psnr.h"

#include <array>
#include <mutex>

#include "metrics/psnr/psnr_math.h"
#ifdef VQX_HAVE_CUDA
#include "metrics/psnr/cuda/psnr_cuda.h"
#endif

namespace vqx {
namespace {

using psnr::kPlaneNames;
using psnr::PsnrOptions;

class PsnrCpu final : public CpuMetric {
 public:
  explicit PsnrCpu(const OptionValues& options) : options_(options) {}

  std::vector<std::string> feature_names() const override { return psnr::feature_names(options_); }

  void init(const MetricContext& context) override {
    format_ = context.format;
    planes_ = options_.enable_chroma ? format_.plane_count() : 1;
    params_ = psnr::make_params(format_, options_.reduced_hbd_peak, options_.min_sse);
  }

  void extract(const Picture& ref, const Picture& dis, uint64_t frame, FeatureWriter& out) override {
    unsigned declared = options_.enable_chroma ? 3 : 1;
    for (unsigned p = 0; p < planes_; ++p) {
      uint64_t sse = psnr::plane_sse(ref, dis, p);
      uint64_t pixels = uint64_t{format_.plane_width(p)} * format_.plane_height(p);
      out.put(frame, p, psnr::psnr_from_sse(sse, pixels, params_.peak, params_.psnr_max[p]));
      if (options_.enable_mse) out.put(frame, declared + p, psnr::mse_from_sse(sse, pixels));
      if (options_.enable_apsnr) {
        std::lock_guard lock(mutex_);
        clip_sse_[p] += sse;
        clip_pixels_[p] += pixels;
      }
    }
  }

  void flush(FeatureWriter& out) override {
    if (!options_.enable_apsnr) return;
    for (unsigned p = 0; p < planes_; ++p)
      out.put_aggregate(std::string("apsnr_") + kPlaneNames[p],
                        psnr::aggregate_psnr(clip_sse_[p], clip_pixels_[p], params_.peak));
  }

 private:
  PsnrOptions options_;
  PictureFormat format_;
  unsigned planes_ = 3;
  psnr::PsnrParams params_;
  std::mutex mutex_;
  std::array<uint64_t, 3> clip_sse_{};
  std::array<uint64_t, 3> clip_pixels_{};
};

}  // namespace

const MetricDescriptor& psnr_descriptor() {
  static const MetricDescriptor descriptor{
      "psnr",
      "Peak signal-to-noise ratio per plane, libvmaf's integer psnr",
      {
          OptionSpec::Bool("enable_chroma", true, "also score Cb and Cr"),
          OptionSpec::Bool("enable_mse", false, "also output mse_y, mse_cb, mse_cr"),
          OptionSpec::Bool("enable_apsnr", false, "whole-clip PSNR as aggregate metrics"),
          OptionSpec::Bool("reduced_hbd_peak", false, "peak 255<<(bpc-8) instead of 2^bpc-1"),
          OptionSpec::Double("min_sse", 0.0, 0.0, 1e300, "caps PSNR through a minimum SSE"),
      },
      [](const OptionValues& o) { return std::make_unique<PsnrCpu>(o); },
#ifdef VQX_HAVE_CUDA
      [](const OptionValues& o) { return make_psnr_cuda(o); },
#else
      nullptr,
#endif
  };
  return descriptor;
}

}  // namespace vqx
