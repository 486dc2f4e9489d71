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

// The CPU engine's read-ahead buffers: two frame pairs per worker, bounded by memory.
TEST(ThreadsFarAboveTheCores, FrameBuffersStayWithinTheMemoryBound) {
  const PictureFormat hd = make_format(1920, 1080, ChromaSubsampling::k420, 8);
  const PictureFormat uhd16 = make_format(7680, 4320, ChromaSubsampling::k444, 16);
  EXPECT_EQ(cpu_frame_buffers(0, hd), 1u);
  EXPECT_EQ(cpu_frame_buffers(1, hd), 2u);
  EXPECT_EQ(cpu_frame_buffers(16, hd), 32u);
  EXPECT_EQ(cpu_frame_buffers(4096, hd), (size_t{2} << 30) / (2 * hd.frame_bytes()));
  // A pair of 8K 16-bit 4:4:4 frames is about 400 MB: five fit in the budget.
  EXPECT_EQ(cpu_frame_buffers(512, uhd16), 5u);
  // A pair larger than the whole budget still gets two (one being read, one being scored).
  const PictureFormat huge = make_format(16384, 16384, ChromaSubsampling::k444, 16);
  EXPECT_EQ(cpu_frame_buffers(512, huge), 2u);
  for (unsigned threads : {2u, 64u, 4096u})
    EXPECT_LE(cpu_frame_buffers(threads, hd) * 2 * hd.frame_bytes(), size_t{2} << 30) << threads;
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
