// libvmaf's `float_ansnr` on the CPU (docs/float_ansnr.md): luma with the offset -128, both
// pictures filtered, then ANSNR and ANPSNR from the filtered planes.
#include "metrics/float_ansnr/float_ansnr.h"

#include <fmt/format.h>

#include <vector>

#include "core/error.h"
#include "metrics/float_ansnr/ansnr_math.h"
#include "metrics/float_common/luma_float.h"

namespace vqx {
namespace {

class FloatAnsnrCpu final : public CpuMetric {
 public:
  std::vector<std::string> feature_names() const override {
    return {"float_ansnr", "float_anpsnr"};
  }

  // Frame-sized buffers: the f32 luma of both pictures and their filtered planes (frame_memory_test
  // measures them).
  size_t frame_memory_bytes() const override { return frame_memory_; }

  void init(const MetricContext& context) override {
    limits_ = float_common::psnr_limits(context.format.bit_depth, "float_ansnr");
    // The 5x5 kernel's mirrored taps stay inside the picture from 3x3 up; upstream reads outside.
    if (context.format.width < 3 || context.format.height < 3)
      throw InputError(
          fmt::format("float_ansnr needs at least 3x3 pixels, got {}", context.format.describe()));
    pool_ = context.pool;
    const PictureFormat& f = context.format;
    frame_memory_ = size_t(f.width) * f.height * 16;
  }

  void extract(const Picture& ref, const Picture& dis, uint64_t frame,
               FeatureWriter& out) override {
    const int w = int(ref.format().width), h = int(ref.format().height);
    const std::vector<float> r = float_common::luma_to_float(ref, -128.0f);
    const std::vector<float> d = float_common::luma_to_float(dis, -128.0f);
    std::vector<float> r_filtered(r.size()), d_filtered(d.size());
    float_ansnr::filter(float_ansnr::Kernel::kReference3x3, r.data(), w, h, r_filtered.data(),
                        pool_);
    float_ansnr::filter(float_ansnr::Kernel::kDistorted5x5, d.data(), w, h, d_filtered.data(),
                        pool_);
    const float_ansnr::Energies e =
        float_ansnr::energies(r_filtered.data(), d_filtered.data(), w, h);
    const float_ansnr::Scores s = float_ansnr::scores(e, w, h, limits_.peak, limits_.psnr_max);
    out.put(frame, 0, s.ansnr);
    out.put(frame, 1, s.anpsnr);
  }

 private:
  float_common::PsnrLimits limits_{};
  ThreadPool* pool_ = nullptr;
  size_t frame_memory_ = 0;
};

}  // namespace

const MetricDescriptor& float_ansnr_descriptor() {
  static const MetricDescriptor descriptor{
      "float_ansnr",
      "Anti-noise SNR and PSNR of filtered luma, libvmaf's float_ansnr",
      {},
      [](const OptionValues&) { return std::make_unique<FloatAnsnrCpu>(); },
      nullptr,
  };
  return descriptor;
}

}  // namespace vqx
