// libvmaf's --aom_ctc and --nflx_ctc presets end to end: the CLI's JSON at %.17g carries the same
// columns as libvmaf 3.2.0's (netflix-p17 goldens), every frame's value and every pooled and
// aggregate value bit for bit, on every fixture pair. The goldens come from a two-thread libvmaf
// run, whose column order follows its threads' timing; cli_libvmaf_bytes_test pins the order.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "support/preset_goldens.h"

namespace vqx::test {
namespace {

class CliPresetGolden : public ::testing::TestWithParam<PresetCase> {};

TEST_P(CliPresetGolden, EveryColumnFrameAndPooledValueBitExact) {
  const PresetCase& c = GetParam();
  VQX_REQUIRE_FIXTURE(c.pair, dir);
  const std::string out = temp_path(fmt::format("{}_{}.json", c.pair, c.config()));
  auto r = run_cli(fmt::format("-r {0}/ref.y4m -d {0}/dis.y4m --{1} {2} --backend cpu --json --precision max -q -o {3}",
                               dir, c.flag, c.version, out));
  ASSERT_EQ(r.status, 0) << r.output;
  expect_preset_output(read_ordered_json(out), load_preset_golden(c), c.pair + " " + c.config(),
                       [](const std::string& name, double got, double want, const std::string& where) {
                         EXPECT_EQ(got, want) << where << " " << name;
                       });
}

INSTANTIATE_TEST_SUITE_P(AllPairs, CliPresetGolden, ::testing::ValuesIn(all_preset_cases()),
                         preset_case_name);

}  // namespace
}  // namespace vqx::test
