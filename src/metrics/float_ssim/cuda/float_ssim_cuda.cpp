// float_ssim on CUDA: the box decimation (when the factor is above 1), then one scale of the SSIM
// device stages (metrics/ssim_core/cuda/ssim_cuda.h), one readback of the four f64 sums; means and
// the dB options with the CPU's host code. Contract as float_ms_ssim's
// (shared/spec/README.md): every per-pixel value bit-identical, the sums from a fixed tree.
#include "metrics/float_ssim/cuda/float_ssim_cuda.h"

#include <fmt/format.h>

#include "core/error.h"
#include "metrics/float_ssim/cuda/box_decimate_cuda.h"
#include "metrics/float_ssim/float_ssim.h"
#include "metrics/float_ssim/float_ssim_outputs.h"

namespace vqx {
namespace {

namespace sc = ssim::cuda;

struct SsimResult {
  double sums[sc::kSumQuantities];  // l, c, s, ssim
};

class FloatSsimCuda final : public CudaMetric {
 public:
  explicit FloatSsimCuda(const OptionValues& o)
      : enable_lcs_(o.get_bool("enable_lcs")),
        enable_db_(o.get_bool("enable_db")),
        clip_db_(o.get_bool("clip_db")),
        scale_(int(o.get_int("scale"))) {}

  std::vector<std::string> feature_names() const override {
    return ssim::float_ssim_feature_names(enable_lcs_);
  }

  std::vector<std::string> stage_names() const override {
    return {"box decimation", "windows+terms+tile sums", "sum tree"};
  }

  void init(const CudaMetricContext& context) override {
    const PictureFormat& f = context.format;
    format_ = f;
    const ssim::Size size{int(f.width), int(f.height)};
    factor_ = ssim::box_factor(scale_, size);
    small_ = ssim::box_decimated_size(size, factor_);
    // The CPU twin's check and message.
    if (small_.width < ssim::kWindowTaps || small_.height < ssim::kWindowTaps)
      throw InputError(fmt::format(
          "float_ssim needs at least 11x11 pixels after its 1/{} decimation, got {}x{} -> {}x{}",
          factor_, f.width, f.height, small_.width, small_.height));
    max_db_ = ssim::max_db(clip_db_, f.bit_depth, f.width, f.height);
    sc::prepare_device();
    if (factor_ > 1) {
      small_ref_ = cuda::DeviceBuffer(*context.device, small_.pixels() * sizeof(float),
                                      "float_ssim decimated");
      small_dis_ = cuda::DeviceBuffer(*context.device, small_.pixels() * sizeof(float),
                                      "float_ssim decimated");
    }
    partials_ = cuda::DeviceBuffer(
        *context.device, sc::partial_count(small_) * sc::kSumQuantities * sizeof(sc::PartialSum),
        "float_ssim partial sums");
  }

  size_t result_bytes() const override { return sizeof(SsimResult); }

  void enqueue(const CudaFrame& frame, uint64_t, cudaStream_t stream, void* result,
               StageMarks& marks) override {
    sc::ScaleJob job{};
    job.ref = sc::luma_plane(frame.ref, format_);
    job.dis = sc::luma_plane(frame.dis, format_);
    marks.stage(stream, 0);
    if (factor_ > 1) {
      sc::enqueue_box_decimate(job.ref, factor_, small_ref_.get<float>(), stream);
      sc::enqueue_box_decimate(job.dis, factor_, small_dis_.get<float>(), stream);
      job.ref = {small_ref_.get(), sc::SampleType::kF32, 8, small_};
      job.dis = {small_dis_.get(), sc::SampleType::kF32, 8, small_};
    }
    marks.stage(stream, 1);
    sc::PartialSum* partials = partials_.get<sc::PartialSum>();
    sc::enqueue_windows(&job, 1, &partials, stream);
    marks.stage(stream, 2);
    sc::enqueue_reduce(&small_, 1, &partials, static_cast<SsimResult*>(result)->sums, stream);
  }

  // The CPU twin's per-frame code (float_ssim.cpp) on the device sums.
  void collect(const void* result, uint64_t frame, FeatureWriter& out) override {
    const auto& r = *static_cast<const SsimResult*>(result);
    ssim::ScaleSums sums;
    sums.l = r.sums[0];
    sums.c = r.sums[1];
    sums.s = r.sums[2];
    sums.ssim = r.sums[3];
    const ssim::ScaleMeans m = sums.means(ssim::map_size(small_));
    ssim::write_float_ssim_outputs(out, frame, m, enable_db_, max_db_, enable_lcs_);
  }

 private:
  bool enable_lcs_, enable_db_, clip_db_;
  int scale_;
  PictureFormat format_;
  int factor_ = 1;
  ssim::Size small_;
  double max_db_ = 0;
  cuda::DeviceBuffer small_ref_, small_dis_, partials_;
};

}  // namespace

std::unique_ptr<CudaMetric> make_float_ssim_cuda(const OptionValues& options) {
  return std::make_unique<FloatSsimCuda>(options);
}

}  // namespace vqx
