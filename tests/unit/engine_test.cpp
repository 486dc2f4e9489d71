// The engine's frame selection, ordering and thread-count invariance.
#include "engine/engine.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <cstring>

#include "core/error.h"
#include "engine/cuda_backend.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

std::vector<Picture> clip(const PictureFormat& f, uint32_t seed, int frames) {
  std::vector<Picture> out;
  for (int i = 0; i < frames; ++i) out.push_back(make_picture(f, seed + uint32_t(i) * 2, 6));
  return out;
}

TEST(Engine, ResultsDoNotDependOnThreadCount) {
  PictureFormat f = make_format(67, 41, ChromaSubsampling::k420, 10);
  auto ref = clip(f, 1, 9), dis = clip(f, 2, 9);
  std::vector<std::vector<double>> baseline;
  for (unsigned threads : {0u, 1u, 2u, 5u}) {
    RunSettings s;
    s.threads = threads;
    auto report = run_on_pictures(ref, dis, {"psnr=enable_mse=true"}, s);
    std::vector<std::vector<double>> columns;
    for (const auto& name : report->table.feature_names()) columns.push_back(column(*report, name));
    if (baseline.empty()) baseline = columns;
    ASSERT_EQ(columns.size(), baseline.size());
    for (size_t c = 0; c < columns.size(); ++c) expect_bit_exact(columns[c], baseline[c], "threads");
  }
}

TEST(Engine, SubsampleReportsEveryNthFrame) {
  PictureFormat f = make_format(16, 16);
  auto ref = clip(f, 1, 7), dis = clip(f, 2, 7);
  RunSettings s;
  s.subsample = 3;
  auto report = run_on_pictures(ref, dis, {"psnr"}, s);
  EXPECT_EQ(report->table.frame_count(), 7u);
  for (uint64_t i = 0; i < 7; ++i) EXPECT_EQ(report->table.get(i, 0).has_value(), i % 3 == 0) << i;
}

TEST(Engine, FrameCountAndSkips) {
  PictureFormat f = make_format(16, 16);
  auto ref = clip(f, 1, 6), dis = clip(f, 2, 6);
  RunSettings all;
  auto full = run_on_pictures(ref, dis, {"psnr"}, all);
  RunSettings s;
  s.frame_cnt = 2;
  s.skip_ref = 1;
  s.skip_dist = 1;
  auto part = run_on_pictures(ref, dis, {"psnr"}, s);
  EXPECT_EQ(part->table.frame_count(), 2u);
  // Skipping both by one pairs ref[1] with dis[1]: frame 0 then equals the full run's frame 1.
  EXPECT_EQ(*part->table.get(0, 0), *full->table.get(1, 0));
  EXPECT_EQ(*part->table.get(1, 0), *full->table.get(2, 0));
}

TEST(Engine, ShorterInputStopsWithWarning) {
  PictureFormat f = make_format(16, 16);
  auto ref = clip(f, 1, 5), dis = clip(f, 2, 3);
  std::string warning;
  RunSettings s;
  s.warn = [&](const std::string& w) { warning = w; };
  auto report = run_on_pictures(ref, dis, {"psnr"}, s);
  EXPECT_EQ(report->table.frame_count(), 3u);
  EXPECT_NE(warning.find("ended before"), std::string::npos);
}

TEST(Engine, SkipBeyondEndIsAnError) {
  PictureFormat f = make_format(16, 16);
  auto ref = clip(f, 1, 2), dis = clip(f, 2, 2);
  RunSettings s;
  s.skip_ref = 3;
  EXPECT_THROW(run_on_pictures(ref, dis, {"psnr"}, s), InputError);
}

// Without a usable device (this machine, CI) the automatic choice is the CPU, and its line says
// why; an explicit CPU choice gives only the thread count.
TEST(Engine, AutoBackendWithoutDeviceIsTheCpuAndSaysWhy) {
  if (cuda_device_available(0)) GTEST_SKIP() << "a CUDA device is present";
  const std::vector<MetricRequest> requests = {parse_metric_request("psnr")};
  RunSettings s;
  s.threads = 4;
  s.backend = Backend::kAuto;
  BackendChoice choice = choose_backend(requests, s);
  EXPECT_EQ(choice.backend, Backend::kCpu);
  EXPECT_EQ(choice.description.rfind("cpu (4 threads; ", 0), 0u) << choice.description;
  EXPECT_NE(choice.description.find("CUDA"), std::string::npos) << choice.description;
  s.backend = Backend::kCpu;
  s.threads = 0;
  EXPECT_EQ(choose_backend(requests, s).description, "cpu (1 thread)");
  s.backend = Backend::kCuda;
  EXPECT_THROW(choose_backend(requests, s), RuntimeFailure);
}

TEST(Engine, RunReportsItsBackendOnceBeforeTheFrames) {
  PictureFormat f = make_format(16, 16);
  auto ref = clip(f, 1, 3), dis = clip(f, 2, 3);
  RunSettings s;
  s.threads = 2;
  std::vector<std::string> lines;
  s.backend_chosen = [&](const BackendChoice& c) { lines.push_back(c.description); };
  s.progress = [&](uint64_t) { EXPECT_EQ(lines.size(), 1u); };
  auto report = run_on_pictures(ref, dis, {"psnr"}, s);
  EXPECT_EQ(lines, (std::vector<std::string>{"cpu (2 threads)"}));
  EXPECT_EQ(report->backend, "cpu");
}

TEST(Engine, CpuQuotaLinesRoundUpAndMaxIsNoQuota) {
  EXPECT_EQ(cpu_quota_cpus("max 100000"), 0u);
  EXPECT_EQ(cpu_quota_cpus("200000 100000"), 2u);
  EXPECT_EQ(cpu_quota_cpus("150000 100000"), 2u);
  EXPECT_EQ(cpu_quota_cpus("50000 100000"), 1u);
  EXPECT_EQ(cpu_quota_cpus("1600000 100000\n"), 16u);
  EXPECT_EQ(cpu_quota_cpus(""), 0u);
  EXPECT_EQ(cpu_quota_cpus("0 100000"), 0u);
  EXPECT_EQ(cpu_quota_cpus("100000 0"), 0u);
}

// The affinity mask bounds the usable CPUs: pinned to one CPU, this thread may use one.
TEST(Engine, UsableCpusFollowTheAffinityMask) {
  cpu_set_t saved;
  ASSERT_EQ(sched_getaffinity(0, sizeof(saved), &saved), 0);
  const unsigned all = usable_cpus();
  EXPECT_GE(all, 1u);
  EXPECT_LE(all, unsigned(CPU_COUNT(&saved)));
  int first = 0;
  while (!CPU_ISSET(first, &saved)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
  const unsigned pinned = usable_cpus();
  ASSERT_EQ(sched_setaffinity(0, sizeof(saved), &saved), 0);
  EXPECT_EQ(pinned, 1u);
  EXPECT_EQ(usable_cpus(), all);
}

}  // namespace
}  // namespace vqx::test
