// A long stream through the CPU engine: 100,000 frames of 64x64 4:2:0 with the features of the
// CLI's default model (vif, adm, motion) and PSNR, read from a source that repeats seven frames.
// Every value must repeat with its input, however far into the stream, and the resident memory,
// sampled every 10,000 frames, must not grow beyond what the results table itself holds.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "support/fixtures.h"
#include "support/load_support.h"

namespace vqx::test {
namespace {

constexpr uint64_t kFrames = 100000;
constexpr uint64_t kSampleEvery = 10000;
constexpr int kPeriod = 7;

TEST(LongRun, HundredThousandFramesKeepValuesAndMemoryFlat) {
  const PictureFormat format = make_format(64, 64);
  RepeatingSource ref(period_pictures(format, kPeriod, false), kFrames, "reference");
  RepeatingSource dis(period_pictures(format, kPeriod, true), kFrames, "distorted");
  std::vector<MetricRequest> requests;
  for (const char* f : {"psnr", "vif", "adm", "motion"})
    requests.push_back(parse_metric_request(f));

  std::vector<uint64_t> rss;
  RunSettings settings;
  settings.threads = 2;
  settings.progress = [&](uint64_t frames) {
    if (frames % kSampleEvery == 0) rss.push_back(resident_bytes());
  };
  auto report = run_metrics(ref, dis, requests, settings);
  ASSERT_EQ(report->table.frame_count(), kFrames);

  const auto& names = report->table.feature_names();
  for (const auto& name : names) expect_periodic(column(*report, name), kPeriod, 2, name);

  // The table grows by one optional<double> per frame and column (with vector doubling, at most
  // twice that); anything else that grows with the stream shows up beyond the allowance.
  ASSERT_EQ(rss.size(), kFrames / kSampleEvery);
  const uint64_t table_allowance = 2 * sizeof(std::optional<double>) * names.size() * kFrames;
  const uint64_t slack = 16u << 20;
  const uint64_t growth = *std::max_element(rss.begin(), rss.end()) - rss.front();
  std::string samples;
  for (uint64_t r : rss) samples += " " + std::to_string(r >> 20);
  std::printf("[ load ] cpu %llu frames, %zu columns: resident MiB every %llu frames:%s\n",
              static_cast<unsigned long long>(kFrames), names.size(),
              static_cast<unsigned long long>(kSampleEvery), samples.c_str());
  EXPECT_LE(growth, table_allowance + slack) << "resident MiB:" << samples;
}

}  // namespace
}  // namespace vqx::test
