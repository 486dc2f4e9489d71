// libvmaf's `float_psnr` on the CPU (docs/float_psnr.md): luma PSNR from f32 samples normalised
// to the 8-bit range (feature/float_psnr.c and compute_psnr in feature/psnr.c).
#include "metrics/float_psnr/float_psnr.h"

#include <cmath>
#include <vector>

#include "metrics/float_common/luma_float.h"

namespace vqx {
namespace {

class FloatPsnrCpu final : public CpuMetric {
 public:
  std::vector<std::string> feature_names() const override { return {"float_psnr"}; }

  // Frame-sized buffers: the f32 luma of both pictures (frame_memory_test measures them).
  size_t frame_memory_bytes() const override { return frame_memory_; }

  void init(const MetricContext& context) override {
    limits_ = float_common::psnr_limits(context.format.bit_depth, "float_psnr");
    const PictureFormat& f = context.format;
    frame_memory_ = size_t(f.width) * f.height * 8;
  }

  void extract(const Picture& ref, const Picture& dis, uint64_t frame,
               FeatureWriter& out) override {
    const std::vector<float> r = float_common::luma_to_float(ref, 0.0f);
    const std::vector<float> d = float_common::luma_to_float(dis, 0.0f);
    // f32 difference and square, f64 running sum in raster order.
    double noise = 0;
    for (size_t i = 0; i < r.size(); ++i) {
      const float diff = r[i] - d[i];
      noise += diff * diff;
    }
    const PictureFormat& f = ref.format();
    noise /= int(f.width * f.height);
    const double kEps = 1e-10;
    const double db = 10 * std::log10(limits_.peak * limits_.peak / (noise > kEps ? noise : kEps));
    out.put(frame, 0, db < limits_.psnr_max ? db : limits_.psnr_max);
  }

 private:
  float_common::PsnrLimits limits_{};
  size_t frame_memory_ = 0;
};

}  // namespace

const MetricDescriptor& float_psnr_descriptor() {
  static const MetricDescriptor descriptor{
      "float_psnr", "Luma PSNR in f32 on the 8-bit scale, libvmaf's float_psnr",
      {},           [](const OptionValues&) { return std::make_unique<FloatPsnrCpu>(); },
      nullptr,
  };
  return descriptor;
}

}  // namespace vqx
