// libvmaf's `float_moment` on the CPU (docs/float_moment.md): the mean and the mean square of the
// reference and distorted luma, from f32 samples normalised to the 8-bit range
// (feature/float_moment.c and feature/moment.c).
#include "metrics/float_moment/float_moment.h"

#include <vector>

#include "metrics/float_common/luma_float.h"

namespace vqx {
namespace {

// f64 running sums in raster order of the f32 samples and of their f32 squares, over w * h.
struct Moments {
  double first, second;
};

Moments moments(const std::vector<float>& samples, int pixels) {
  double first = 0, second = 0;
  for (float v : samples) first += v;
  for (float v : samples) second += v * v;
  return {first / pixels, second / pixels};
}

class FloatMomentCpu final : public CpuMetric {
 public:
  std::vector<std::string> feature_names() const override {
    return {"float_moment_ref1st", "float_moment_dis1st", "float_moment_ref2nd",
            "float_moment_dis2nd"};
  }

  // Frame-sized buffers: the f32 luma of one picture (frame_memory_test measures them).
  size_t frame_memory_bytes() const override { return frame_memory_; }

  void init(const MetricContext& context) override {
    const PictureFormat& f = context.format;
    frame_memory_ = size_t(f.width) * f.height * 4;
  }

  void extract(const Picture& ref, const Picture& dis, uint64_t frame,
               FeatureWriter& out) override {
    const PictureFormat& f = ref.format();
    const int pixels = int(f.width * f.height);  // upstream's int w * h
    const Moments r = moments(float_common::luma_to_float(ref, 0.0f), pixels);
    const Moments d = moments(float_common::luma_to_float(dis, 0.0f), pixels);
    out.put(frame, 0, r.first);
    out.put(frame, 1, d.first);
    out.put(frame, 2, r.second);
    out.put(frame, 3, d.second);
  }

 private:
  size_t frame_memory_ = 0;
};

}  // namespace

const MetricDescriptor& float_moment_descriptor() {
  static const MetricDescriptor descriptor{
      "float_moment",
      "Mean and mean square of reference and distorted luma, libvmaf's float_moment",
      {},
      [](const OptionValues&) { return std::make_unique<FloatMomentCpu>(); },
      nullptr,
  };
  return descriptor;
}

}  // namespace vqx
