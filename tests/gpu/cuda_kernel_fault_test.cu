// A CUDA error in the middle of a run: a test metric whose kernel traps on frame 5 of 40. The run
// must end with RuntimeFailure naming CUDA and the error, never hang and never return a report.
// The trap leaves this process's CUDA context unusable, so the binary holds this one test.
#include <gmock/gmock.h>

#include "core/error.h"
#include "engine/cuda/cuda_check.h"
#include "engine/cuda/cuda_metric.h"
#include "gpu/gpu_support.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

constexpr uint64_t kFaultFrame = 5;

__global__ void first_sample_or_trap(const uint8_t* ref, uint64_t index, uint32_t* result) {
  if (index == kFaultFrame) __trap();
  *result = ref[0];
}

class FaultingCuda final : public CudaMetric {
 public:
  std::vector<std::string> feature_names() const override { return {"fault_probe"}; }
  void init(const CudaMetricContext&) override {}
  size_t result_bytes() const override { return sizeof(uint32_t); }
  bool graph_safe() const override { return false; }  // the launch reads the frame index
  void enqueue(const CudaFrame& frame, uint64_t index, cudaStream_t stream, void* result,
               StageMarks&) override {
    first_sample_or_trap<<<1, 1, 0, stream>>>(frame.ref, index, static_cast<uint32_t*>(result));
    cuda::check_launch("first_sample_or_trap");
  }
  void collect(const void* result, uint64_t frame, FeatureWriter& out) override {
    out.put(frame, 0, *static_cast<const uint32_t*>(result));
  }
};

class UnusedCpu final : public CpuMetric {
 public:
  std::vector<std::string> feature_names() const override { return {"fault_probe"}; }
  void init(const MetricContext&) override {}
  void extract(const Picture&, const Picture&, uint64_t, FeatureWriter&) override {}
};

const MetricDescriptor& faulting_descriptor() {
  static const MetricDescriptor d{
      "fault_probe", "traps on one frame", {},
      [](const OptionValues&) { return std::make_unique<UnusedCpu>(); },
      [](const OptionValues&) { return std::make_unique<FaultingCuda>(); }};
  return d;
}

TEST(CudaKernelFault, ATrapMidRunIsARuntimeFailure) {
  VQX_REQUIRE_CUDA();
  const PictureFormat format = make_format(320, 240, ChromaSubsampling::k420, 8);
  auto pictures = random_pictures(format, 40, 41);
  std::vector<MetricRequest> requests = {MetricRequest{&faulting_descriptor(), {}, "fault_probe"},
                                         parse_metric_request("psnr")};
  class Reader final : public FrameSource {
   public:
    explicit Reader(const std::vector<Picture>& p) : FrameSource("memory"), p_(p) {}
    const PictureFormat& format() const override { return p_[0].format(); }
    bool read(Picture& out) override {
      if (frames_read_ >= p_.size()) return false;
      std::memcpy(out.bytes(), p_[frames_read_++].bytes(), out.size_bytes());
      return true;
    }

   private:
    const std::vector<Picture>& p_;
  };
  Reader ref(pictures), dis(pictures);
  std::string message;
  try {
    run_metrics(ref, dis, requests, cuda_settings());
    FAIL() << "the run returned a report although frame " << kFaultFrame << " trapped";
  } catch (const RuntimeFailure& e) {
    message = e.what();
  }
  EXPECT_THAT(message, ::testing::HasSubstr("CUDA error"));
  EXPECT_THAT(message, ::testing::HasSubstr("(cudaError"));  // the error's name
}

}  // namespace
}  // namespace vqx::test
