// Load: every metric at once, several instances of those whose options name their outputs apart,
// on a 10-bit 4:2:0 clip that every metric accepts (cambi needs 216 samples on one side), with
// worker threads far beyond the core count. Each output column must equal the same instance run
// alone in the calling thread, bit for bit: instances share nothing, and threads change nothing.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <thread>

#include "core/error.h"
#include "core/thread_pool.h"
#include "support/fixtures.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define VQX_SANITIZER_BUILD 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define VQX_SANITIZER_BUILD 1
#endif

namespace vqx::test {
namespace {

const std::vector<std::string> kInstances = {
    "psnr=enable_mse=true:enable_apsnr=true",
    "vif",
    "vif=vif_enhn_gain_limit=1.0",
    "adm",
    "adm=adm_enhn_gain_limit=1.0",
    "motion",
    "motion=motion_force_zero=true",
    "cambi",
    "cambi=window_size=33",
    "speed_chroma",
    "speed_chroma=speed_kernelscale=1.5",
    "ssimulacra2",
    "float_ms_ssim",
    "float_ssim",
    "ciede",
    "psnr_hvs",
    "float_psnr",
    "float_ansnr",
    "float_moment",
    "float_vif",
    "float_adm",
    "float_motion",
    "speed_temporal",
};

class ManyInstances : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const PictureFormat f = make_format(232, 224, ChromaSubsampling::k420, 10);
    for (uint32_t i = 0; i < 6; ++i) {
      ref_.push_back(make_picture(f, 2 * i, 9));
      dis_.push_back(make_picture(f, 2 * i + 1, 9));
    }
  }
  static inline std::vector<Picture> ref_, dis_;
};

TEST_F(ManyInstances, EveryMetricAtOnceEqualsEachAloneAtAnyThreadCount) {
  std::map<std::string, std::vector<double>> alone;
  for (const auto& instance : kInstances) {
    RunSettings s;
    s.threads = 0;
    auto report = run_on_pictures(ref_, dis_, {instance}, s);
    for (const auto& name : report->table.feature_names()) alone[name] = column(*report, name);
  }
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned threads : {2u, 16 * cores, 256u}) {
    RunSettings s;
    s.threads = threads;
    auto together = run_on_pictures(ref_, dis_, kInstances, s);
    ASSERT_EQ(together->table.feature_names().size(), alone.size()) << "columns";
    for (const auto& [name, values] : alone)
      expect_bit_exact(column(*together, name), values,
                       name + " with " + std::to_string(threads) + " threads");
  }
}

// The CPU engine's frame buffers: two frame pairs per worker, as many as the memory limit holds
// with the metrics' workspaces of the frames being scored and the pairs kept for history.
TEST(ThreadsFarAboveTheCores, FrameBuffersStayWithinTheMemoryLimit) {
  const PictureFormat hd = make_format(1920, 1080, ChromaSubsampling::k420, 8);
  const uint64_t pair = 2 * hd.frame_bytes();
  constexpr uint64_t kGiB = uint64_t{1} << 30;
  EXPECT_EQ(cpu_frame_buffers(0, hd, 0, 0, kGiB), 1u);
  EXPECT_EQ(cpu_frame_buffers(1, hd, 0, 0, kGiB), 2u);
  EXPECT_EQ(cpu_frame_buffers(16, hd, 0, 0, kGiB), 32u);
  EXPECT_EQ(cpu_frame_buffers(4096, hd, 0, 0, 2 * kGiB), 2 * kGiB / pair);
  // 50 MB of workspaces per frame being scored: 16 threads score at most 16 frames at once, so
  // 32 buffers take 32 pairs and 16 workspaces (about 1 GB); under 1 GB, fewer.
  const size_t ws = 50'000'000;
  EXPECT_EQ(cpu_frame_buffers(16, hd, ws, 0, 32 * pair + 16 * ws), 32u);
  EXPECT_EQ(cpu_frame_buffers(16, hd, ws, 0, 32 * pair + 16 * ws - 1), 31u);
  EXPECT_EQ(cpu_frame_buffers(16, hd, ws, 0, 10 * pair + 10 * ws), 10u);
  // The pairs kept for history count too.
  EXPECT_EQ(cpu_frame_buffers(16, hd, ws, 2, 12 * pair + 10 * ws), 10u);
  for (unsigned threads : {2u, 16u, 64u, 4096u})
    for (uint64_t limit : {uint64_t{200} << 20, kGiB, 8 * kGiB}) {
      const size_t n = cpu_frame_buffers(threads, hd, ws, 1, limit);
      EXPECT_LE(cpu_frames_memory(n, threads, hd, ws, 1), limit) << threads << " " << limit;
      if (n < 2 * threads)
        EXPECT_GT(cpu_frames_memory(n + 1, threads, hd, ws, 1), limit) << threads;
    }
  // Two must fit: a limit below them is refused, saying what is needed.
  try {
    cpu_frame_buffers(8, hd, ws, 0, 2 * pair + 2 * ws - 1);
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("needs 108 MiB for 2 frames in flight"), std::string::npos)
        << e.what();
  }
  EXPECT_GT(default_memory_limit(), uint64_t{0});
}

// A run whose memory limit holds fewer frames than threads says so and scores the same.
TEST(ThreadsFarAboveTheCores, AMemoryLimitBelowTheThreadsChangesNoScore) {
  const PictureFormat f = make_format(232, 224, ChromaSubsampling::k420, 10);
  std::vector<Picture> ref, dis;
  for (uint32_t i = 0; i < 12; ++i) {
    ref.push_back(make_picture(f, 2 * i, 9));
    dis.push_back(make_picture(f, 2 * i + 1, 9));
  }
  const std::vector<std::string> metrics = {"vif", "adm", "motion", "float_ms_ssim", "cambi"};
  RunSettings alone;
  alone.threads = 0;
  auto expected = run_on_pictures(ref, dis, metrics, alone);
  RunSettings limited;
  limited.threads = 16;
  limited.memory_limit = 24 << 20;
  std::vector<std::string> notices;
  limited.warn = [&](const std::string& text) { notices.push_back(text); };
  auto capped = run_on_pictures(ref, dis, metrics, limited);
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_NE(notices[0].find("the memory limit of 24 MiB (--memory_limit) holds "),
            std::string::npos)
      << notices[0];
  for (const auto& name : expected->table.feature_names())
    expect_bit_exact(column(*capped, name), column(*expected, name), name + " under 24 MiB");
}

// When the system refuses a worker thread, the pool stops the ones it started and says so, rather
// than terminating the process. A child process with its address space capped just above its
// current size cannot map the stacks of 256 threads.
TEST(ThreadsFarAboveTheCores, RefusedThreadsAreARuntimeFailure) {
#ifdef VQX_SANITIZER_BUILD
  GTEST_SKIP() << "sanitizer runtimes need address space of their own";
#else
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    unsigned long long pages = 0;
    std::FILE* statm = std::fopen("/proc/self/statm", "r");
    if (!statm || std::fscanf(statm, "%llu", &pages) != 1) ::_exit(3);
    std::fclose(statm);
    rlimit cap{};
    cap.rlim_cur = cap.rlim_max = pages * uint64_t(::sysconf(_SC_PAGESIZE)) + (64u << 20);
    if (::setrlimit(RLIMIT_AS, &cap) != 0) ::_exit(3);
    try {
      ThreadPool pool(256);
    } catch (const RuntimeFailure& e) {
      ::_exit(std::strstr(e.what(), "cannot start 256 worker threads") ? 0 : 1);
    } catch (...) {
      ::_exit(2);
    }
    ::_exit(4);  // every thread started: the cap did not bite
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: wrong message, 2: another exception, 3: setup, 4: no "
                                       "failure";
#endif
}

}  // namespace
}  // namespace vqx::test
