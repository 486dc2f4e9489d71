// The CUDA backend when device memory runs short. The test first takes the device's memory for
// itself (plain allocations, given back at the end), leaving a chosen amount free:
//  - less than one metric needs: the run fails with RuntimeFailure naming the metric, the bytes it
//    asked for and the free memory, and the device stays usable;
//  - enough for one frame in flight but not for the frames asked for: the run falls back to
//    fewer, says so through RunSettings::warn, and gives the same bits as an unconstrained run.
#include <cuda_runtime.h>
#include <gmock/gmock.h>

#include <vector>

#include "core/error.h"
#include "engine/cuda/device_context.h"
#include "engine/cuda/frame_pipeline.h"
#include "gpu/gpu_support.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

using ::testing::HasSubstr;

// Holds all but `leave` bytes of the device's free memory until destroyed.
class DeviceFiller {
 public:
  explicit DeviceFiller(size_t leave) {
    for (size_t chunk = size_t{1} << 30; chunk >= (size_t{1} << 20);) {
      size_t free_bytes = 0, total = 0;
      cudaMemGetInfo(&free_bytes, &total);
      if (free_bytes <= leave) break;
      if (free_bytes - leave < chunk) {
        chunk /= 2;
        continue;
      }
      void* p = nullptr;
      if (cudaMalloc(&p, chunk) != cudaSuccess) {
        cudaGetLastError();
        chunk /= 2;
        continue;
      }
      held_.push_back(p);
    }
  }
  ~DeviceFiller() {
    for (void* p : held_) cudaFree(p);
  }
  static size_t free_bytes() {
    size_t free_bytes = 0, total = 0;
    cudaMemGetInfo(&free_bytes, &total);
    return free_bytes;
  }

 private:
  std::vector<void*> held_;
};

// Device memory one instance of `feature` takes in init() at `format`.
size_t init_bytes(const std::string& feature, const PictureFormat& format) {
  MetricRequest request = parse_metric_request(feature);
  cuda::DeviceContext device(0);
  auto metric = request.metric->make_cuda(request.options);
  metric->init(CudaMetricContext{format, &device});
  cudaDeviceSynchronize();
  return device.bytes_in_use();
}

constexpr size_t kMiB = size_t{1} << 20;

TEST(CudaMemoryFaults, AMetricThatDoesNotFitIsNamedWithTheBytesItNeeded) {
  VQX_REQUIRE_CUDA();
  const PictureFormat format = make_format(3840, 2160, ChromaSubsampling::k420, 8);
  auto ref = random_pictures(format, 2, 31), dis = random_pictures(format, 2, 32);
  // A run first, so that the kernels' modules are loaded before memory runs short.
  auto healthy = run_on_pictures(ref, dis, {"float_ms_ssim"}, cuda_settings());
  const size_t need = init_bytes("float_ms_ssim", format);
  ASSERT_GT(need, 8 * kMiB);
  std::string message;
  {
    DeviceFiller filler(need / 2);
    ASSERT_LT(DeviceFiller::free_bytes(), need) << "could not fill the device";
    try {
      run_on_pictures(ref, dis, {"float_ms_ssim"}, cuda_settings());
    } catch (const RuntimeFailure& e) {
      message = e.what();
    }
  }
  EXPECT_THAT(message, HasSubstr("feature 'float_ms_ssim'"));
  EXPECT_THAT(message, HasSubstr("cannot allocate"));
  EXPECT_THAT(message, HasSubstr("MiB free"));
  // The device is usable again once the memory is back, with the same bits.
  auto again = run_on_pictures(ref, dis, {"float_ms_ssim"}, cuda_settings());
  expect_bit_exact(column(*again, "float_ms_ssim"), column(*healthy, "float_ms_ssim"), "after");
}

TEST(CudaMemoryFaults, TooLittleMemoryForTheFramesAskedForRunsFewerAndSaysSo) {
  VQX_REQUIRE_CUDA();
  const PictureFormat format = make_format(3840, 2160, ChromaSubsampling::k420, 8);
  auto ref = random_pictures(format, 9, 33), dis = random_pictures(format, 9, 34);
  RunSettings four = cuda_settings();
  four.gpu_frames = 4;
  auto healthy = run_on_pictures(ref, dis, {"float_ms_ssim"}, four);
  // Room for the frame slots of four frames in flight and three replicas: four frames do not fit
  // (they need a fourth replica), fewer do (fewer slots leave room for streams, events, graphs).
  const size_t replica = init_bytes("float_ms_ssim", format);
  ASSERT_GT(replica, 8 * kMiB);
  const size_t slots = cuda::slot_count_for(4) * 2 * format.frame_bytes();
  std::vector<std::string> warnings;
  four.warn = [&](const std::string& w) { warnings.push_back(w); };
  std::unique_ptr<RunReport> constrained;
  {
    DeviceFiller filler(slots + replica * 3);
    constrained = run_on_pictures(ref, dis, {"float_ms_ssim"}, four);
  }
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("not enough free device memory for 4 frames in flight"));
  expect_bit_exact(column(*constrained, "float_ms_ssim"), column(*healthy, "float_ms_ssim"),
                   "fewer frames in flight");
}

}  // namespace
}  // namespace vqx::test
