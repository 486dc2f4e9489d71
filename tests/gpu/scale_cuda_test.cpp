// The CUDA scaler (engine/cuda/device_scaler) gives libswscale's pixels bit for bit on the device
// machine: every mode on every case of scale_cases() and on the fixture ladder.
#include <fmt/format.h>

#include "engine/cuda/cuda_check.h"
#include "engine/cuda/device_context.h"
#include "engine/cuda/device_scaler.h"
#include "gpu/gpu_support.h"
#include "support/fixtures.h"
#include "support/scale_model.h"

namespace vqx::test {
namespace {

void expect_device_matches(const Picture& in, uint32_t out_w, uint32_t out_h, ScaleMode mode) {
  const PictureFormat fo = resized(in.format(), out_w, out_h);
  cuda::DeviceContext context(0);
  cuda::DeviceScaler scaler(context, in.format(), fo, mode);
  cuda::DeviceBuffer src(context, in.size_bytes(), "test input");
  cuda::DeviceBuffer dst(context, fo.frame_bytes(), "test output");
  cuda::Stream stream;
  cuda::check(
      cudaMemcpyAsync(src.get(), in.bytes(), in.size_bytes(), cudaMemcpyHostToDevice, stream.get()),
      "upload");
  scaler.enqueue(src.get<uint8_t>(), dst.get<uint8_t>(), stream.get());
  Picture device(fo), sws(fo);
  cuda::check(cudaMemcpyAsync(device.bytes(), dst.get(), fo.frame_bytes(), cudaMemcpyDeviceToHost,
                              stream.get()),
              "download");
  cuda::check(cudaStreamSynchronize(stream.get()), "scale");
  scale_with_libswscale(in, sws, mode);
  expect_same_samples(
      device, sws,
      fmt::format("cuda {} -> {}x{} {}", in.format().describe(), out_w, out_h, to_string(mode)));
}

class ScaleCudaCases : public ::testing::TestWithParam<ScaleCase> {};

TEST_P(ScaleCudaCases, EveryModeMatchesLibswscale) {
  VQX_REQUIRE_CUDA();
  const ScaleCase& c = GetParam();
  Picture in = scale_test_picture(c.in, 11);
  for (ScaleMode mode : kScaleModes) expect_device_matches(in, c.out_width, c.out_height, mode);
}

INSTANTIATE_TEST_SUITE_P(Geometries, ScaleCudaCases, ::testing::ValuesIn(scale_cases()),
                         [](const ::testing::TestParamInfo<ScaleCase>& info) {
                           return scale_case_name(info.param);
                         });

TEST(ScaleCudaFixtures, LadderGeometriesMatchLibswscale) {
  VQX_REQUIRE_CUDA();
  for (const FixtureScaleCase& c : kFixtureScaleCases) {
    VQX_REQUIRE_FIXTURE(c.pair, dir);
    Picture in = fixture_scale_input(c, dir);
    for (ScaleMode mode : kScaleModes) expect_device_matches(in, c.out_width, c.out_height, mode);
  }
}

}  // namespace
}  // namespace vqx::test
