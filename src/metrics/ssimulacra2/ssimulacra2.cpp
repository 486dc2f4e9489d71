// The ssimulacra2 metric on the CPU: input checks, options, and one workspace per frame in flight.
#include "metrics/ssimulacra2/ssimulacra2.h"

#include <fmt/format.h>

#include <mutex>

#include "core/error.h"
#include "metrics/ssimulacra2/ssimulacra2_pipeline.h"
#ifdef VQX_HAVE_CUDA
#include "metrics/ssimulacra2/cuda/ssimulacra2_cuda.h"
#endif

namespace vqx {
namespace {

class Ssimulacra2Cpu final : public CpuMetric {
 public:
  explicit Ssimulacra2Cpu(const OptionValues& options)
      : matrix_(ssimulacra2::make_yuv_matrix(int(options.get_int("yuv_matrix")))) {}

  std::vector<std::string> feature_names() const override { return {"ssimulacra2"}; }

  // Frame-sized buffers: the XYB planes of the scales and their blur scratch (frame_memory_test
  // measures them).
  size_t frame_memory_bytes() const override { return frame_memory_; }

  void init(const MetricContext& context) override {
    ssimulacra2::check_input(context.format);
    pool_ = context.pool;
    kernels_ = &ssimulacra2::ssimulacra2_kernels();
    rgb_ = context.format.color == ColorModel::kRGB;
    const PictureFormat& f = context.format;
    frame_memory_ = size_t(f.width) * f.height * 10 + (size_t{2} << 20);
  }

  void extract(const Picture& ref, const Picture& dis, uint64_t frame, FeatureWriter& out) override {
    std::unique_ptr<ssimulacra2::StreamWorkspace> workspace = take_workspace();
    const double score =
        ssimulacra2::score_pair_streamed(*workspace, ref, dis, rgb_ ? nullptr : &matrix_, pool_);
    give_back(std::move(workspace));
    out.put(frame, 0, score);
  }

 private:
  // Frames may arrive concurrently; each takes a workspace from this stack, so scratch memory
  // is reused across frames and there are at most as many workspaces as frames in flight.
  std::unique_ptr<ssimulacra2::StreamWorkspace> take_workspace() {
    std::lock_guard lock(mutex_);
    if (spare_.empty()) return std::make_unique<ssimulacra2::StreamWorkspace>(*kernels_);
    auto w = std::move(spare_.back());
    spare_.pop_back();
    return w;
  }
  void give_back(std::unique_ptr<ssimulacra2::StreamWorkspace> w) {
    std::lock_guard lock(mutex_);
    spare_.push_back(std::move(w));
  }

  ssimulacra2::YuvMatrix matrix_;
  const ssimulacra2::Ssimulacra2Kernels* kernels_ = nullptr;
  ThreadPool* pool_ = nullptr;
  bool rgb_ = false;
  std::mutex mutex_;
  std::vector<std::unique_ptr<ssimulacra2::StreamWorkspace>> spare_;
  size_t frame_memory_ = 0;
};

}  // namespace

void ssimulacra2::check_input(const PictureFormat& f) {
  const bool rgb = f.color == ColorModel::kRGB;
  if (f.subsampling == ChromaSubsampling::k400)
    throw InputError(fmt::format(
        "ssimulacra2: {} input has no chroma; the metric needs colour (4:2:0, 4:2:2 or 4:4:4)",
        f.describe()));
  if (rgb && f.subsampling != ChromaSubsampling::k444)
    throw InputError("ssimulacra2: RGB input must have three full-resolution planes");
  // libjxl refuses images below 8x8 (section 13); the fork's Y'CbCr path scores them (as 100).
  if (rgb && (f.width < 8 || f.height < 8))
    throw InputError(fmt::format("ssimulacra2: RGB image {}x{} is smaller than the 8x8 minimum",
                                 f.width, f.height));
}

const MetricDescriptor& ssimulacra2_descriptor() {
  static const MetricDescriptor descriptor{
      "ssimulacra2",
      "SSIMULACRA 2.1 perceptual score (100 = identical), lusoris fork on Y'CbCr, libjxl on RGB",
      {
          OptionSpec::Int("yuv_matrix", 0, 0, 3,
                          "Y'CbCr to R'G'B': 0 BT.709 limited, 1 BT.601 limited, 2 BT.709 full, "
                          "3 BT.601 full (ignored for RGB input)"),
      },
      [](const OptionValues& o) { return std::make_unique<Ssimulacra2Cpu>(o); },
#ifdef VQX_HAVE_CUDA
      [](const OptionValues& o) { return make_ssimulacra2_cuda(o); },
#else
      nullptr,
#endif
  };
  return descriptor;
}

}  // namespace vqx
