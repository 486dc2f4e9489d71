// The --aom_ctc and --nflx_ctc presets on the CUDA backend, in one pass: every metric with a CUDA
// twin on the device and ciede on the CPU beside it. Each frame, pooled and aggregate value equals
// libvmaf 3.2.0's (netflix-p17 goldens) bit for bit, but CAMBI's, whose device sum is exact-rounded
// where the CPU's double sum rounds (shared/spec/README.md): |diff| <= 1e-12 there.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>

#include "gpu/gpu_support.h"
#include "support/fixtures.h"
#include "support/json_files.h"

namespace vqx::test {
namespace {

using nlohmann::ordered_json;

void expect_value(const std::string& name, double got, double want, const std::string& where) {
  if (name.rfind("cambi", 0) == 0) {
    EXPECT_LE(std::fabs(got - want), 1e-12) << where << " " << name;
    return;
  }
  EXPECT_EQ(got, want) << where << " " << name;
}

struct PresetCase {
  std::string pair, flag, version;
};

class CliPresetCuda : public ::testing::TestWithParam<PresetCase> {};

TEST_P(CliPresetCuda, MatchesLibvmafInOnePass) {
  VQX_REQUIRE_CUDA();
  const PresetCase& c = GetParam();
  VQX_REQUIRE_FIXTURE(c.pair, dir);
  const std::string config = fmt::format("{}_{}", c.flag, c.version);
  const std::string out = temp_path(fmt::format("{}_{}_cuda.json", c.pair, config));
  auto r = run_cli(fmt::format("-r {0}/ref.y4m -d {0}/dis.y4m --{1} {2} --backend cuda --json "
                               "--precision max -o {3}",
                               dir, c.flag, c.version, out));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("vqx: backend cuda ("), std::string::npos) << r.output;
  if (c.flag == "aom_ctc") {
    EXPECT_NE(r.output.find("'ciede' on "), std::string::npos) << r.output;
  }
  const ordered_json ours = read_ordered_json(out);
  const ordered_json golden =
      read_ordered_json(fmt::format("{}/golden/{}/netflix-p17/{}.json", shared_dir(), c.pair, config));

  ASSERT_EQ(ours["frames"].size(), golden["frames"].size());
  for (size_t f = 0; f < golden["frames"].size(); ++f) {
    const auto& want = golden["frames"][f]["metrics"];
    const auto& got = ours["frames"][f]["metrics"];
    const std::string where = fmt::format("{} {} frame {}", c.pair, config, f);
    ASSERT_EQ(sorted_keys(got), sorted_keys(want)) << where;
    for (const auto& [name, value] : want.items())
      expect_value(name, got[name].get<double>(), value.get<double>(), where);
  }
  ASSERT_EQ(sorted_keys(ours["pooled_metrics"]), sorted_keys(golden["pooled_metrics"]));
  for (const auto& [name, methods] : golden["pooled_metrics"].items())
    for (const auto& [method, value] : methods.items())
      expect_value(name, ours["pooled_metrics"][name][method].get<double>(), value.get<double>(),
                   fmt::format("{} {} pooled {}", c.pair, config, method));
  ASSERT_EQ(sorted_keys(ours["aggregate_metrics"]), sorted_keys(golden["aggregate_metrics"]));
  for (const auto& [name, value] : golden["aggregate_metrics"].items())
    expect_value(name, ours["aggregate_metrics"][name].get<double>(), value.get<double>(),
                 c.pair + " " + config);
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

INSTANTIATE_TEST_SUITE_P(AllPairs, CliPresetCuda, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<PresetCase>& info) {
                           std::string name = fmt::format("{}_{}_{}", info.param.flag,
                                                          info.param.version, info.param.pair);
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

}  // namespace
}  // namespace vqx::test
