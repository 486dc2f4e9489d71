// The ssimulacra2 metric on CUDA: the CPU twin's input checks, the device pipeline for the
// geometry (init), one frame pair enqueued per call (enqueue), pooling on the host (collect).
#include "metrics/ssimulacra2/cuda/ssimulacra2_cuda.h"

#include "metrics/ssimulacra2/cuda/frame_pipeline.h"
#include "metrics/ssimulacra2/ssimulacra2.h"

namespace vqx {
namespace {

using ssimulacra2::cuda::FramePipeline;

class Ssimulacra2Cuda final : public CudaMetric {
 public:
  explicit Ssimulacra2Cuda(const OptionValues& options)
      : matrix_(ssimulacra2::make_yuv_matrix(int(options.get_int("yuv_matrix")))) {}

  std::vector<std::string> feature_names() const override { return {"ssimulacra2"}; }

  std::vector<std::string> stage_names() const override { return pipeline_.stage_names(); }

  // The CPU twin's checks, and its edge mode: the fork's AVX2 arithmetic, which made the goldens.
  void init(const CudaMetricContext& context) override {
    ssimulacra2::check_input(context.format);
    pipeline_.init(context.format, context.format.color == ColorModel::kRGB ? nullptr : &matrix_,
                   ssimulacra2::EdgeDifference::kFloatGroupsOf8, *context.device);
  }

  size_t result_bytes() const override {
    return sizeof(double) * ssimulacra2::cuda::kResultDoubles;
  }

  void enqueue(const CudaFrame& frame, uint64_t, cudaStream_t stream, void* result,
               StageMarks& marks) override {
    pipeline_.enqueue_frame(frame.ref, frame.dis, stream, static_cast<double*>(result), &marks);
  }

  // Sections 9-10 on the host with the CPU's code.
  void collect(const void* result, uint64_t frame, FeatureWriter& out) override {
    out.put(frame, 0,
            ssimulacra2::pool_score(pipeline_.frame_sums(static_cast<const double*>(result))));
  }

 private:
  ssimulacra2::YuvMatrix matrix_;
  FramePipeline pipeline_;
};

}  // namespace

std::unique_ptr<CudaMetric> make_ssimulacra2_cuda(const OptionValues& options) {
  return std::make_unique<Ssimulacra2Cuda>(options);
}

}  // namespace vqx
