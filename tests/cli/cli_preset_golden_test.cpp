// libvmaf's --aom_ctc and --nflx_ctc presets end to end: the CLI's JSON at %.17g carries the same
// columns as libvmaf 3.2.0's (netflix-p17 goldens), every frame's value and every pooled and
// aggregate value bit for bit, on every fixture pair. The goldens come from a two-thread libvmaf
// run, whose column order follows its threads' timing; cli_libvmaf_bytes_test pins the order.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cctype>

#include "support/fixtures.h"
#include "support/json_files.h"

namespace vqx::test {
namespace {

using nlohmann::ordered_json;

struct PresetCase {
  std::string pair, flag, version;
};

class CliPresetGolden : public ::testing::TestWithParam<PresetCase> {};

TEST_P(CliPresetGolden, EveryColumnFrameAndPooledValueBitExact) {
  const PresetCase& c = GetParam();
  VQX_REQUIRE_FIXTURE(c.pair, dir);
  const std::string config = fmt::format("{}_{}", c.flag, c.version);
  const std::string out = temp_path(fmt::format("{}_{}.json", c.pair, config));
  auto r = run_cli(fmt::format("-r {0}/ref.y4m -d {0}/dis.y4m --{1} {2} --backend cpu --json --precision max -q -o {3}",
                               dir, c.flag, c.version, out));
  ASSERT_EQ(r.status, 0) << r.output;
  const ordered_json ours = read_ordered_json(out);
  const ordered_json golden =
      read_ordered_json(fmt::format("{}/golden/{}/netflix-p17/{}.json", shared_dir(), c.pair, config));

  ASSERT_EQ(ours["frames"].size(), golden["frames"].size());
  for (size_t f = 0; f < golden["frames"].size(); ++f) {
    const auto& want = golden["frames"][f]["metrics"];
    const auto& got = ours["frames"][f]["metrics"];
    ASSERT_EQ(sorted_keys(got), sorted_keys(want)) << c.pair << " frame " << f;
    for (const auto& [name, value] : want.items())
      EXPECT_EQ(got[name].get<double>(), value.get<double>()) << c.pair << " frame " << f << " " << name;
  }
  ASSERT_EQ(sorted_keys(ours["pooled_metrics"]), sorted_keys(golden["pooled_metrics"]));
  for (const auto& [name, methods] : golden["pooled_metrics"].items())
    for (const auto& [method, value] : methods.items())
      EXPECT_EQ(ours["pooled_metrics"][name][method].get<double>(), value.get<double>())
          << c.pair << " " << name << " " << method;
  ASSERT_EQ(sorted_keys(ours["aggregate_metrics"]), sorted_keys(golden["aggregate_metrics"]));
  for (const auto& [name, value] : golden["aggregate_metrics"].items())
    EXPECT_EQ(ours["aggregate_metrics"][name].get<double>(), value.get<double>()) << c.pair << " " << name;
}

std::vector<PresetCase> all_cases() {
  std::vector<PresetCase> cases;
  for (const auto& pair : kAllPairs) {
    cases.push_back({pair, "aom_ctc", "v6.0"});
    cases.push_back({pair, "aom_ctc", "v7.0"});
    cases.push_back({pair, "nflx_ctc", "v1.0"});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllPairs, CliPresetGolden, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<PresetCase>& info) {
                           std::string name =
                               fmt::format("{}_{}_{}", info.param.flag, info.param.version, info.param.pair);
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

}  // namespace
}  // namespace vqx::test
