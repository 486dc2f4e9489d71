// The --aom_ctc and --nflx_ctc presets on the CUDA backend, in one pass with every metric on the
// device. Each frame, pooled and aggregate value equals
// libvmaf 3.2.0's (netflix-p17 goldens) bit for bit, but CAMBI's, whose device sum is exact-rounded
// where the CPU's double sum rounds (shared/spec/README.md): |diff| <= 1e-12 there.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

#include "gpu/gpu_support.h"
#include "support/preset_goldens.h"

namespace vqx::test {
namespace {

void expect_value(const std::string& name, double got, double want, const std::string& where) {
  if (name.rfind("cambi", 0) == 0) {
    EXPECT_LE(std::fabs(got - want), 1e-12) << where << " " << name;
    return;
  }
  EXPECT_EQ(got, want) << where << " " << name;
}

class CliPresetCuda : public ::testing::TestWithParam<PresetCase> {};

TEST_P(CliPresetCuda, MatchesLibvmafInOnePass) {
  VQX_REQUIRE_CUDA();
  const PresetCase& c = GetParam();
  VQX_REQUIRE_FIXTURE(c.pair, dir);
  const std::string out = temp_path(fmt::format("{}_{}_cuda.json", c.pair, c.config()));
  auto r = run_cli(fmt::format("-r {0}/ref.y4m -d {0}/dis.y4m --{1} {2} --backend cuda --json "
                               "--precision max -o {3}",
                               dir, c.flag, c.version, out));
  ASSERT_EQ(r.status, 0) << r.output;
  // Every metric of the presets has a CUDA twin: nothing runs on CPU threads beside the device.
  EXPECT_NE(r.output.find("vqx: backend cuda ("), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("CPU threads"), std::string::npos) << r.output;
  expect_preset_output(read_ordered_json(out), load_preset_golden(c), c.pair + " " + c.config(),
                       expect_value);
}

INSTANTIATE_TEST_SUITE_P(AllPairs, CliPresetCuda, ::testing::ValuesIn(all_preset_cases()),
                         preset_case_name);

}  // namespace
}  // namespace vqx::test
