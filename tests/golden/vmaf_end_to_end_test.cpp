// VMAF from Y4M to score: the real extractors feed every built-in model, and every per-frame
// value (features and score) and the pooled scores equal libvmaf's (netflix-p17) bit for bit.
#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "io/readers.h"
#include "metrics/vmaf/model.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

const std::vector<std::string> kModels = {
    "vmaf_v0.6.1",          "vmaf_4k_v0.6.1",           "vmaf_v1.0.16_3d0h",
    "vmaf_v1.0.16_5d0h",    "vmaf_v1.0.16_1d5h_2160",   "vmaf_v1.0.16_3d0h_2160",
    "vmaf_v1.0.16_hfr_3d0h", "vmaf_v1.0.16_hfr_5d0h",   "vmaf_v1.0.16_hfr_1d5h_2160",
    "vmaf_v1.0.16_hfr_3d0h_2160"};

using Case = std::tuple<std::string, std::string>;
class VmafEndToEnd : public ::testing::TestWithParam<Case> {};

TEST_P(VmafEndToEnd, FeaturesAndScoresMatchLibvmaf) {
  const auto& [pair, model_name] = GetParam();
  VQX_REQUIRE_FIXTURE(pair, dir);
  auto models = vmaf::load_models({"version=" + model_name});
  auto requests = vmaf::model_metric_requests(models);
  auto ref = open_y4m(dir + "/ref.y4m", "reference");
  auto dis = open_y4m(dir + "/dis.y4m", "distorted");
  RunSettings settings;
  settings.threads = 2;
  auto report = run_metrics(*ref, *dis, requests, settings);
  vmaf::apply_model(models[0], report->table);
  Golden golden = load_golden(pair, "netflix-p17", model_name);
  size_t checked = 0;
  for (const auto& [name, values] : golden.frames) {
    if (!report->table.find_feature(name)) continue;  // e.g. float features of the _full config
    expect_bit_exact(column(*report, name), values, fmt::format("{} {} {}", pair, model_name, name));
    ++checked;
  }
  EXPECT_EQ(checked, golden.frames.size()) << "every golden column is produced";
  auto pooled = pool(column(*report, "vmaf"));
  const auto& g = golden.pooled.at("vmaf");
  EXPECT_EQ(pooled.min, g.at("min"));
  EXPECT_EQ(pooled.max, g.at("max"));
  EXPECT_EQ(pooled.mean, g.at("mean"));
  EXPECT_EQ(pooled.harmonic_mean, g.at("harmonic_mean"));
}

INSTANTIATE_TEST_SUITE_P(AllPairsAllModels, VmafEndToEnd,
                         ::testing::Combine(::testing::ValuesIn(kAllPairs), ::testing::ValuesIn(kModels)),
                         [](const auto& info) {
                           std::string name = std::get<0>(info.param) + "_" + std::get<1>(info.param);
                           for (char& c : name)
                             if (c == '.') c = '_';
                           return name;
                         });

TEST(VmafCli, DefaultModelIsV061) {
  VQX_REQUIRE_FIXTURE("odd853", dir);
  std::string out = temp_path("odd853_vmaf.json");
  auto r = run_cli(fmt::format("-r {0}/ref.y4m -d {0}/dis.y4m --json --precision max -q -o {1}", dir, out));
  ASSERT_EQ(r.status, 0) << r.output;
  auto text = r.output;
  EXPECT_EQ(text, "");
  auto j = load_golden("odd853", "netflix-p17", "vmaf_v0.6.1");
  std::ifstream in(out);
  auto parsed = nlohmann::json::parse(in);
  std::vector<double> values;
  for (const auto& frame : parsed["frames"]) values.push_back(frame["metrics"]["vmaf"].get<double>());
  expect_bit_exact(values, j.frames.at("vmaf"), "odd853 vmaf via CLI");
}

TEST(VmafCli, SeveralModelsAndFeaturesInOneRun) {
  VQX_REQUIRE_FIXTURE("n576", dir);
  auto r = run_cli(fmt::format(
      "-r {0}/ref.y4m -d {0}/dis.y4m -m version=vmaf_v0.6.1 -m version=vmaf_v1.0.16_3d0h:name=vmaf_v1 "
      "--feature psnr --csv --precision max -q -o -",
      dir));
  ASSERT_EQ(r.status, 0) << r.output;
  std::string header = r.output.substr(0, r.output.find('\n'));
  EXPECT_NE(header.find(",vmaf,"), std::string::npos) << header;
  EXPECT_NE(header.find(",vmaf_v1,"), std::string::npos) << header;
  EXPECT_NE(header.find(",psnr_y,"), std::string::npos) << header;
}

TEST(VmafCli, UnknownModelIsAClearError) {
  VQX_REQUIRE_FIXTURE("n576", dir);
  auto r = run_cli(fmt::format("-r {0}/ref.y4m -d {0}/dis.y4m -m version=vmaf_v9 -q", dir));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("vmaf_v9"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace vqx::test
