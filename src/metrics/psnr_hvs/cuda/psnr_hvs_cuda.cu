// psnr_hvs on CUDA (docs/psnr_hvs.md): the metric class. Per frame it enqueues the block terms of
// the three planes from the one uploaded frame, their nonzero terms, then the three plane sums
// into the result slot; collect() turns the three f32 plane scores into the four outputs with the
// CPU's code.
#include "engine/cuda/cuda_check.h"
#include "metrics/psnr_hvs/cuda/psnr_hvs_cuda.h"
#include "metrics/psnr_hvs/cuda/psnr_hvs_kernels.h"
#include "metrics/psnr_hvs/psnr_hvs_math.h"

namespace vqx {
namespace {

struct PsnrHvsResult {
  float plane_score[3];
};

class PsnrHvsCuda final : public CudaMetric {
 public:
  std::vector<std::string> feature_names() const override { return psnr_hvs::kFeatureNames; }
  std::vector<std::string> stage_names() const override {
    return {"block_terms", "nonzero", "plane_sums"};
  }

  void init(const CudaMetricContext& context) override {
    psnr_hvs::require_supported(context.format);
    layout_ = psnr_hvs::cuda::make_frame_blocks(context.format);
    const size_t term_bytes = layout_.total_blocks() * 64 * sizeof(float);
    terms_ = cuda::DeviceBuffer(*context.device, term_bytes, "psnr_hvs block terms");
    kept_ = cuda::DeviceBuffer(*context.device, term_bytes, "psnr_hvs nonzero terms");
    counts_ = cuda::DeviceBuffer(*context.device, 3 * sizeof(long long), "psnr_hvs nonzero counts");
    const size_t temp_bytes = psnr_hvs::cuda::nonzero_temp_bytes(layout_);
    temp_ = cuda::DeviceBuffer(*context.device, temp_bytes, "psnr_hvs select scratch");
    scratch_ = {kept_.get<float>(), counts_.get<long long>(), temp_.get(), temp_bytes};
  }

  size_t result_bytes() const override { return sizeof(PsnrHvsResult); }

  void enqueue(const CudaFrame& frame, uint64_t, cudaStream_t stream, void* result,
               StageMarks& marks) override {
    marks.stage(stream, 0);
    psnr_hvs::cuda::launch_block_terms(layout_, frame.ref, frame.dis, terms_.get<float>(), stream);
    marks.stage(stream, 1);
    psnr_hvs::cuda::launch_nonzero(layout_, terms_.get<float>(), scratch_, stream);
    marks.stage(stream, 2);
    psnr_hvs::cuda::launch_plane_sums(layout_, scratch_,
                                      static_cast<PsnrHvsResult*>(result)->plane_score, stream);
  }

  void collect(const void* result, uint64_t frame, FeatureWriter& out) override {
    const auto& r = *static_cast<const PsnrHvsResult*>(result);
    const double scores[3] = {r.plane_score[0], r.plane_score[1], r.plane_score[2]};
    double values[4];
    psnr_hvs::outputs_from_scores(scores, values);
    for (size_t i = 0; i < 4; ++i) out.put(frame, i, values[i]);
  }

 private:
  psnr_hvs::cuda::FrameBlocks layout_{};
  cuda::DeviceBuffer terms_, kept_, counts_, temp_;
  psnr_hvs::cuda::NonzeroScratch scratch_;
};

}  // namespace

std::unique_ptr<CudaMetric> make_psnr_hvs_cuda(const OptionValues&) {
  return std::make_unique<PsnrHvsCuda>();
}

}  // namespace vqx
