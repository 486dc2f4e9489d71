// speed_chroma against libvmaf's per-frame values (netflix-p17, %.17g) on every fixture, for the
// three option sets of the VMAF v1 models (shared/golden/README.md, speed.md 1.3 and 14.1).
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "support/fixtures.h"

namespace vqx::test {
namespace {

struct Config {
  const char* golden;   // config name of the golden file
  const char* options;  // option string after "speed_chroma="
  const char* suffix;   // libvmaf's name suffix
};

constexpr const char* kV1 =
    "speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:speed_max_val=45";

const Config kConfigs[] = {
    {"speed_chroma_v1", "", "_mxv_45_nnf_0.1_snn_0.19_wvm_5"},
    {"speed_chroma_v1_ps0.6", ":speed_prescale=0.6:speed_prescale_method=bilinear",
     "_mxv_45_nnf_0.1_ps_0.6_psm_bilinear_snn_0.19_wvm_5"},
    {"speed_chroma_v1_ps0.5", ":speed_prescale=0.5:speed_prescale_method=bilinear",
     "_mxv_45_nnf_0.1_ps_0.5_psm_bilinear_snn_0.19_wvm_5"},
};

class SpeedChromaGolden : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(SpeedChromaGolden, EveryFrameBitExact) {
  const auto& [pair, index] = GetParam();
  const Config& config = kConfigs[index];
  VQX_REQUIRE_FIXTURE(pair, dir);
  RunSettings settings;
  settings.threads = 2;
  auto report = run_on_pair(pair, {std::string("speed_chroma=") + kV1 + config.options}, settings);
  Golden golden = load_golden(pair, "netflix-p17", config.golden);
  for (const char* plane : {"u", "v", "uv"}) {
    const std::string name = std::string("speed_chroma_") + plane + config.suffix;
    ASSERT_TRUE(golden.frames.count(name)) << name;
    expect_bit_exact(column(*report, name), golden.frames.at(name), pair + " " + name);
  }
}

std::string config_label(const ::testing::TestParamInfo<std::tuple<std::string, int>>& info) {
  static const char* const kLabels[] = {"v1", "v1_ps0_6", "v1_ps0_5"};
  return std::get<0>(info.param) + "_" + kLabels[std::get<1>(info.param)];
}

INSTANTIATE_TEST_SUITE_P(AllPairs, SpeedChromaGolden,
                         ::testing::Combine(::testing::ValuesIn(kAllPairs),
                                            ::testing::Values(0, 1, 2)),
                         config_label);

}  // namespace
}  // namespace vqx::test
