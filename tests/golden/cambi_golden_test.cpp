// cambi against libvmaf's per-frame values (netflix-p17, %.17g) on every fixture and every
// golden configuration: default, full_ref, window_size=33:topk=0.2, eotf=pq:max_log_contrast=3.
#include "support/fixtures.h"

namespace vqx::test {
namespace {

struct CambiConfig {
  const char* golden;                // file under <pair>/netflix-p17/
  const char* feature;               // --feature text
  std::vector<std::string> outputs;  // columns compared
};

const CambiConfig kConfigs[] = {
    {"cambi", "cambi", {"cambi"}},
    {"cambi_full_ref", "cambi=full_ref=true", {"cambi", "cambi_source", "cambi_full_reference"}},
    {"cambi_ws33_topk0.2", "cambi=window_size=33:topk=0.2", {"cambi_topk_0.2_ws_33"}},
    {"cambi_pq_mlc3", "cambi=eotf=pq:max_log_contrast=3", {"cambi_eotf_pq_mlc_3"}},
};

class CambiGolden : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(CambiGolden, EveryFrameBitExact) {
  const auto& [pair, index] = GetParam();
  const CambiConfig& config = kConfigs[index];
  VQX_REQUIRE_FIXTURE(pair, dir);
  RunSettings settings;
  settings.threads = 2;
  auto report = run_on_pair(pair, {config.feature}, settings);
  Golden golden = load_golden(pair, "netflix-p17", config.golden);
  for (const auto& name : config.outputs) {
    ASSERT_TRUE(golden.frames.count(name)) << config.golden << " lacks " << name;
    expect_bit_exact(column(*report, name), golden.frames.at(name),
                     pair + " " + config.golden + " " + name);
  }
}

INSTANTIATE_TEST_SUITE_P(AllPairs, CambiGolden,
                         ::testing::Combine(::testing::ValuesIn(kAllPairs), ::testing::Range(0, 4)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" +
                                  std::to_string(std::get<1>(info.param));
                         });

}  // namespace
}  // namespace vqx::test
