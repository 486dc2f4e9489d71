// libvmaf 3.2.0's remaining features against its per-frame values (netflix-p17, %.17g), every
// frame of every fixture, bit for bit.
#include <fmt/format.h>

#include "support/fixtures.h"

namespace vqx::test {
namespace {

struct FeatureGolden {
  std::string feature;  // --feature text
  std::string config;   // golden file, shared/golden/<pair>/netflix-p17/<config>.json
  std::vector<std::string> outputs;
};

const std::vector<FeatureGolden> kFeatures = {
    {"ciede", "ciede", {"ciede2000"}},
    {"psnr_hvs", "psnr_hvs", {"psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs"}},
    {"float_psnr", "float_psnr", {"float_psnr"}},
    {"float_ansnr", "float_ansnr", {"float_ansnr", "float_anpsnr"}},
    {"float_moment",
     "float_moment",
     {"float_moment_ref1st", "float_moment_dis1st", "float_moment_ref2nd", "float_moment_dis2nd"}},
};

struct GoldenCase {
  FeatureGolden feature;
  std::string pair;
};

std::vector<GoldenCase> all_cases() {
  std::vector<GoldenCase> cases;
  for (const auto& f : kFeatures)
    for (const auto& pair : kAllPairs) cases.push_back({f, pair});
  return cases;
}

class LibvmafFeatureGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(LibvmafFeatureGolden, EveryFrameBitExact) {
  const GoldenCase& c = GetParam();
  VQX_REQUIRE_FIXTURE(c.pair, dir);
  RunSettings settings;
  settings.threads = 2;
  auto report = run_on_pair(c.pair, {c.feature.feature}, settings);
  Golden golden = load_golden(c.pair, "netflix-p17", c.feature.config);
  for (const auto& name : c.feature.outputs)
    expect_bit_exact(column(*report, name), golden.frames.at(name), c.pair + " " + name);
}

INSTANTIATE_TEST_SUITE_P(AllPairs, LibvmafFeatureGolden, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<GoldenCase>& info) {
                           return fmt::format("{}_{}", info.param.feature.feature, info.param.pair);
                         });

}  // namespace
}  // namespace vqx::test
