// libvmaf's `psnr_hvs` on the CPU (docs/psnr_hvs.md): PSNR-HVS-M of each plane over 8x8 blocks
// that start every 7 samples, and their 0.8 / 0.1 / 0.1 combination.
#include "metrics/psnr_hvs/psnr_hvs.h"

#include "metrics/psnr_hvs/psnr_hvs_math.h"
#ifdef VQX_HAVE_CUDA
#include "metrics/psnr_hvs/cuda/psnr_hvs_cuda.h"
#endif

namespace vqx {
namespace {

class PsnrHvsCpu final : public CpuMetric {
 public:
  std::vector<std::string> feature_names() const override { return psnr_hvs::kFeatureNames; }

  // Frame-sized buffers: the converted planes of both pictures (frame_memory_test measures them).
  size_t frame_memory_bytes() const override { return frame_memory_; }

  void init(const MetricContext& context) override {
    psnr_hvs::require_supported(context.format);
    pool_ = context.pool;
    const PictureFormat& f = context.format;
    frame_memory_ = size_t(f.width) * f.height * 21 / 4;
  }

  void extract(const Picture& ref, const Picture& dis, uint64_t frame,
               FeatureWriter& out) override {
    double scores[3], values[4];
    for (unsigned p = 0; p < 3; ++p) scores[p] = psnr_hvs::score_plane(ref, dis, p, pool_);
    psnr_hvs::outputs_from_scores(scores, values);
    for (size_t i = 0; i < 4; ++i) out.put(frame, i, values[i]);
  }

 private:
  ThreadPool* pool_ = nullptr;
  size_t frame_memory_ = 0;
};

}  // namespace

const MetricDescriptor& psnr_hvs_descriptor() {
  static const MetricDescriptor descriptor{
      "psnr_hvs",
      "PSNR-HVS-M per plane and combined (Xiph/Daala), libvmaf's psnr_hvs",
      {},
      [](const OptionValues&) { return std::make_unique<PsnrHvsCpu>(); },
#ifdef VQX_HAVE_CUDA
      [](const OptionValues& o) { return make_psnr_hvs_cuda(o); },
#else
      nullptr,
#endif
  };
  return descriptor;
}

}  // namespace vqx
