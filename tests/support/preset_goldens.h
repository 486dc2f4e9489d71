#pragma once
// The CLI's --aom_ctc / --nflx_ctc output against libvmaf 3.2.0's preset goldens (netflix-p17):
// the cases (every fixture pair, each preset version with a golden) and the comparison of one
// JSON output with its golden, column sets, every frame, pooled and aggregate value.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cctype>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/fixtures.h"
#include "support/json_files.h"

namespace vqx::test {

struct PresetCase {
  std::string pair, flag, version;
  std::string config() const { return fmt::format("{}_{}", flag, version); }
};

inline std::vector<PresetCase> all_preset_cases() {
  std::vector<PresetCase> cases;
  for (const auto& pair : kAllPairs) {
    cases.push_back({pair, "aom_ctc", "v6.0"});
    cases.push_back({pair, "aom_ctc", "v7.0"});
    cases.push_back({pair, "nflx_ctc", "v1.0"});
  }
  return cases;
}

// A gtest parameter name, e.g. aom_ctc_v6_0_n576.
inline std::string preset_case_name(const ::testing::TestParamInfo<PresetCase>& info) {
  std::string name = fmt::format("{}_{}_{}", info.param.flag, info.param.version, info.param.pair);
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

inline nlohmann::ordered_json load_preset_golden(const PresetCase& c) {
  return read_ordered_json(
      fmt::format("{}/golden/{}/netflix-p17/{}.json", shared_dir(), c.pair, c.config()));
}

// `expect_value(name, got, want, where)` checks one value (EXPECT_* inside).
using PresetValueCheck =
    std::function<void(const std::string&, double, double, const std::string&)>;

inline void expect_preset_output(const nlohmann::ordered_json& ours,
                                 const nlohmann::ordered_json& golden, const std::string& label,
                                 const PresetValueCheck& expect_value) {
  ASSERT_EQ(ours["frames"].size(), golden["frames"].size()) << label;
  for (size_t f = 0; f < golden["frames"].size(); ++f) {
    const auto& want = golden["frames"][f]["metrics"];
    const auto& got = ours["frames"][f]["metrics"];
    const std::string where = fmt::format("{} frame {}", label, f);
    ASSERT_EQ(sorted_keys(got), sorted_keys(want)) << where;
    for (const auto& [name, value] : want.items())
      expect_value(name, got[name].get<double>(), value.get<double>(), where);
  }
  ASSERT_EQ(sorted_keys(ours["pooled_metrics"]), sorted_keys(golden["pooled_metrics"])) << label;
  for (const auto& [name, methods] : golden["pooled_metrics"].items())
    for (const auto& [method, value] : methods.items())
      expect_value(name, ours["pooled_metrics"][name][method].get<double>(), value.get<double>(),
                   label + " pooled " + method);
  ASSERT_EQ(sorted_keys(ours["aggregate_metrics"]), sorted_keys(golden["aggregate_metrics"]))
      << label;
  for (const auto& [name, value] : golden["aggregate_metrics"].items())
    expect_value(name, ours["aggregate_metrics"][name].get<double>(), value.get<double>(), label);
}

}  // namespace vqx::test
