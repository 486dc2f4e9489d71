// The CLI on a shared device: two vqx processes on one GPU at the same time both finish with the
// scores of a run alone, and a --gpu index the machine does not have is a clear error (exit 3).
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <gmock/gmock.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "gpu/gpu_support.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

// The per-frame values of a JSON result file (the "fyi" fps differs from run to run).
nlohmann::json frames_of(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in).at("frames");
}

class CudaProcesses : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ref_ = temp_path("procs_ref.y4m");
    dis_ = temp_path("procs_dis.y4m");
    auto f = make_format(1280, 720, ChromaSubsampling::k420, 8);
    write_y4m(ref_, random_pictures(f, 48, 51));
    write_y4m(dis_, random_pictures(f, 48, 52));
  }
  static std::string command(const std::string& output) {
    return fmt::format(
        "{} -r {} -d {} -q --backend cuda --json -o {} --feature psnr "
        "--feature float_ssim --feature cambi 2>&1",
        VQX_CLI_PATH, ref_, dis_, output);
  }
  static inline std::string ref_, dis_;
};

TEST_F(CudaProcesses, TwoProcessesOnOneDeviceGiveTheScoresOfOneAlone) {
  VQX_REQUIRE_CUDA();
  const std::string alone = temp_path("procs_alone.json");
  ASSERT_EQ(std::system(command(alone).c_str()), 0);
  const std::string a = temp_path("procs_a.json"), b = temp_path("procs_b.json");
  // Both start before either reads its first frame.
  std::FILE* first = ::popen(command(a).c_str(), "r");
  std::FILE* second = ::popen(command(b).c_str(), "r");
  ASSERT_TRUE(first && second);
  std::string output;
  char buffer[4096];
  for (std::FILE* p : {first, second})
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, p)) > 0;) output.append(buffer, n);
  const int status_a = ::pclose(first), status_b = ::pclose(second);
  EXPECT_EQ(status_a, 0) << output;
  EXPECT_EQ(status_b, 0) << output;
  const auto expected = frames_of(alone);
  EXPECT_EQ(expected.size(), 48u);
  EXPECT_EQ(frames_of(a), expected);
  EXPECT_EQ(frames_of(b), expected);
}

TEST_F(CudaProcesses, AGpuIndexBeyondTheDevicesIsAClearError) {
  VQX_REQUIRE_CUDA();
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  const std::string out = temp_path("procs_bad_index.json");
  auto r = run_cli(fmt::format("-r {} -d {} -q --backend cuda --gpu {} --feature psnr -o {}", ref_,
                               dis_, count, out));
  EXPECT_EQ(r.status, 3) << r.output;
  EXPECT_THAT(r.output,
              ::testing::HasSubstr(fmt::format("vqx: error: --backend cuda --gpu {}", count)));
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace vqx::test
