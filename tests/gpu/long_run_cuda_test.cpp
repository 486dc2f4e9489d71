// The long stream of tests/long/long_run_test.cpp through the CUDA engine: 100,000 frames of
// 64x64 with psnr, vif, adm and motion (twins bit-identical to the CPU). Every value must repeat
// with its input and equal the CPU's on the same frames; the device memory in use, sampled every
// 10,000 frames, must not change at all (the engine allocates once, before the first frame), and
// the resident host memory must not grow beyond what the results table holds.
#include <cuda_runtime.h>

#include <algorithm>
#include <optional>

#include "gpu/gpu_support.h"
#include "support/fixtures.h"
#include "support/load_support.h"

namespace vqx::test {
namespace {

constexpr uint64_t kFrames = 100000;
constexpr uint64_t kSampleEvery = 10000;
constexpr int kPeriod = 7;

size_t device_bytes_used() {
  size_t free_bytes = 0, total = 0;
  cudaMemGetInfo(&free_bytes, &total);
  return total - free_bytes;
}

std::string mib_list(const std::vector<uint64_t>& bytes) {
  std::string text;
  for (uint64_t b : bytes) text += " " + std::to_string(b >> 20);
  return text;
}

TEST(LongRunCuda, HundredThousandFramesKeepValuesAndMemoryFlat) {
  VQX_REQUIRE_CUDA();
  const PictureFormat format = make_format(64, 64);
  const std::vector<std::string> features = {"psnr", "vif", "adm", "motion"};
  std::vector<MetricRequest> requests;
  for (const auto& f : features) requests.push_back(parse_metric_request(f));

  std::vector<uint64_t> rss, device;
  RunSettings settings = cuda_settings();
  settings.progress = [&](uint64_t frames) {
    if (frames % kSampleEvery != 0) return;
    rss.push_back(resident_bytes());
    device.push_back(device_bytes_used());
  };
  RepeatingSource ref(period_pictures(format, kPeriod, false), kFrames, "reference");
  RepeatingSource dis(period_pictures(format, kPeriod, true), kFrames, "distorted");
  auto gpu = run_metrics(ref, dis, requests, settings);
  ASSERT_EQ(gpu->table.frame_count(), kFrames);

  // The CPU on the first 3 periods; frame i of the stream must equal frame i there (i < 3 * P)
  // or frame P + i % P (past the warm-up of the temporal features).
  RepeatingSource cpu_ref(period_pictures(format, kPeriod, false), 3 * kPeriod, "reference");
  RepeatingSource cpu_dis(period_pictures(format, kPeriod, true), 3 * kPeriod, "distorted");
  auto cpu = run_metrics(cpu_ref, cpu_dis, requests, cpu_settings());
  for (const auto& name : gpu->table.feature_names()) {
    auto values = column(*gpu, name);
    expect_periodic(values, kPeriod, 2, name);
    auto head = std::vector<double>(values.begin(), values.begin() + 2 * kPeriod);
    auto cpu_values = column(*cpu, name);
    expect_bit_exact(head,
                     std::vector<double>(cpu_values.begin(), cpu_values.begin() + 2 * kPeriod),
                     name + " vs cpu");
  }

  ASSERT_EQ(device.size(), kFrames / kSampleEvery);
  std::printf(
      "[ load ] cuda %llu frames: device MiB in use every %llu frames:%s; resident MiB:%s\n",
      static_cast<unsigned long long>(kFrames), static_cast<unsigned long long>(kSampleEvery),
      mib_list(device).c_str(), mib_list(rss).c_str());
  for (uint64_t d : device) EXPECT_EQ(d, device.front()) << "device MiB:" << mib_list(device);
  const size_t columns = gpu->table.feature_names().size();
  const uint64_t table_allowance = 2 * sizeof(std::optional<double>) * columns * kFrames;
  const uint64_t growth = *std::max_element(rss.begin(), rss.end()) - rss.front();
  EXPECT_LE(growth, table_allowance + (16u << 20)) << "resident MiB:" << mib_list(rss);
}

}  // namespace
}  // namespace vqx::test
