// VMAF models in isolation: the per-frame feature values libvmaf printed (netflix-p17, %.17g)
// go through vqx's predictor, and the score and the pooled values must equal libvmaf's bit for
// bit, for every built-in model on every fixture pair. Needs only the golden files.
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "metrics/vmaf/builtin_models.h"
#include "metrics/vmaf/model.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

using vmaf::LoadedModel;

const std::vector<std::string> kModels = {"vmaf_v0.6.1",
                                          "vmaf_v0.6.1neg",
                                          "vmaf_4k_v0.6.1",
                                          "vmaf_4k_v0.6.1neg",
                                          "vmaf_float_v0.6.1",
                                          "vmaf_v1.0.16_3d0h",
                                          "vmaf_v1.0.16_5d0h",
                                          "vmaf_v1.0.16_1d5h_2160",
                                          "vmaf_v1.0.16_3d0h_2160",
                                          "vmaf_v1.0.16_hfr_3d0h",
                                          "vmaf_v1.0.16_hfr_5d0h",
                                          "vmaf_v1.0.16_hfr_1d5h_2160",
                                          "vmaf_v1.0.16_hfr_3d0h_2160"};

// A result table holding the golden's feature columns, as the engine would have filled it.
void fill_from_golden(ResultTable& table, const Golden& golden, const LoadedModel& model) {
  size_t frames = golden.frames.at("vmaf").size();
  table.set_frame_count(frames);
  for (const auto& column : model.feature_columns()) {
    if (table.find_feature(column)) continue;
    size_t index = table.add_feature(column);
    const auto& values = golden.frames.at(column);
    for (size_t f = 0; f < frames; ++f) table.put(f, index, values.at(f));
  }
}

uint64_t bits(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

void expect_pooled_bit_exact(const std::vector<double>& scores,
                             const std::map<std::string, double>& want) {
  PooledValues pooled = pool(scores);
  EXPECT_EQ(bits(pooled.min), bits(want.at("min"))) << pooled.min;
  EXPECT_EQ(bits(pooled.max), bits(want.at("max"))) << pooled.max;
  EXPECT_EQ(bits(pooled.mean), bits(want.at("mean"))) << pooled.mean;
  EXPECT_EQ(bits(pooled.harmonic_mean), bits(want.at("harmonic_mean"))) << pooled.harmonic_mean;
}

struct Case {
  std::string pair, model;
};

class VmafModelGolden : public ::testing::TestWithParam<Case> {};

TEST_P(VmafModelGolden, PerFrameAndPooledBitExact) {
  const auto& [pair, version] = GetParam();
  Golden golden = load_golden(pair, "netflix-p17", version);
  LoadedModel model = vmaf::load_model(vmaf::parse_model_request("version=" + version));
  for (const auto& column : model.feature_columns())
    ASSERT_TRUE(golden.frames.count(column)) << "golden has no column " << column;

  ResultTable table;
  fill_from_golden(table, golden, model);
  vmaf::apply_model(model, table);
  auto column = table.find_feature("vmaf");
  ASSERT_TRUE(column);
  auto scores = table.selected_values(*column);
  ASSERT_TRUE(scores);
  expect_bit_exact(*scores, golden.frames.at("vmaf"), pair + " " + version);

  expect_pooled_bit_exact(*scores, golden.pooled.at("vmaf"));
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (const auto& pair : kAllPairs)
    for (const auto& model : kModels) cases.push_back({pair, model});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllPairsAllModels, VmafModelGolden, ::testing::ValuesIn(all_cases()),
                         [](const auto& info) {
                           std::string name = info.param.pair + "_" + info.param.model;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

// Bootstrap collections (vmaf.md 6.6): the score of model "0", the twenty collection models'
// scores and the four statistics, per frame and pooled, in libvmaf's column order.
class VmafBootstrapGolden : public ::testing::TestWithParam<Case> {};

TEST_P(VmafBootstrapGolden, EveryOutputPerFrameAndPooledBitExact) {
  const auto& [pair, version] = GetParam();
  Golden golden = load_golden(pair, "netflix-p17", version);
  LoadedModel model = vmaf::load_model(vmaf::parse_model_request("version=" + version));
  ASSERT_EQ(model.collection().size(), 20u);
  ResultTable table;
  fill_from_golden(table, golden, model);
  const size_t features = table.feature_names().size();
  vmaf::apply_models({model}, table);

  std::vector<std::string> outputs = {"vmaf"};
  for (int i = 1; i <= 20; ++i) outputs.push_back(fmt::format("vmaf_{:04d}", i));
  for (const char* s : {"bagging", "stddev", "ci_p95_lo", "ci_p95_hi"})
    outputs.push_back(std::string("vmaf_") + s);
  const auto& names = table.feature_names();
  ASSERT_EQ(names.size(), features + outputs.size());
  for (size_t k = 0; k < outputs.size(); ++k) {
    ASSERT_EQ(names[features + k], outputs[k]);
    auto values = table.selected_values(features + k);
    ASSERT_TRUE(values) << outputs[k];
    expect_bit_exact(*values, golden.frames.at(outputs[k]), pair + " " + outputs[k]);
    expect_pooled_bit_exact(*values, golden.pooled.at(outputs[k]));
  }
}

INSTANTIATE_TEST_SUITE_P(AllPairs, VmafBootstrapGolden, ::testing::ValuesIn([] {
                           std::vector<Case> cases;
                           for (const auto& pair : kAllPairs)
                             for (const char* m : {"vmaf_b_v0.6.3", "vmaf_float_b_v0.6.3"})
                               cases.push_back({pair, m});
                           return cases;
                         }()),
                         [](const auto& info) {
                           std::string name = info.param.pair + "_" + info.param.model;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

// The statistics on hand-made scores: mean, population stddev, interpolated percentiles, then
// the first collection model's clip at [0, 100] (its transform is not enabled) and the clip's
// slope of 0 on the stddev once the mean is beyond a bound.
TEST(VmafBootstrap, StatisticsOfKnownScores) {
  LoadedModel model = vmaf::load_model(vmaf::parse_model_request("version=vmaf_b_v0.6.3"));
  std::vector<double> scores;
  for (int i = 0; i < 20; ++i) scores.push_back(double(19 - i) * 2.0 + 50.0);  // 50, 52, .., 88
  vmaf::BootstrapScores b = vmaf::bootstrap_scores(model, scores);
  EXPECT_EQ(b.bagging, 69.0);
  double ssd = 0;
  for (double s : scores) ssd += (s - 69.0) * (s - 69.0);
  EXPECT_EQ(b.stddev, std::sqrt(ssd / 20) * (((69.0 + 0.01) - (69.0 - 0.01)) / 0.02));
  EXPECT_EQ(b.ci_p95_lo, 50.0 * (1 - 0.475) + 52.0 * 0.475);
  EXPECT_EQ(b.ci_p95_hi, 86.0 * (19 - 18.525) + 88.0 * (18.525 - 18));
  for (double& s : scores) s += 100.0;
  b = vmaf::bootstrap_scores(model, scores);
  EXPECT_EQ(b.bagging, 100.0);
  EXPECT_EQ(b.ci_p95_hi, 100.0);
  EXPECT_EQ(b.stddev, 0.0);
}

// On n576 SpEED-chroma is singular for the prescaled v1 models (golden README), so their golden
// scores only come out right through the chroma correction of vmaf.md 6.5.
TEST(VmafModelGoldenChroma, N576PrescaledModelsTakeTheCorrectionPath) {
  for (const char* version : {"vmaf_v1.0.16_5d0h", "vmaf_v1.0.16_3d0h_2160",
                              "vmaf_v1.0.16_hfr_5d0h", "vmaf_v1.0.16_hfr_3d0h_2160"}) {
    Golden golden = load_golden("n576", "netflix-p17", version);
    LoadedModel model =
        vmaf::load_model(vmaf::parse_model_request(std::string("version=") + version));
    const auto& columns = model.feature_columns();
    const auto& speed = golden.frames.at(columns.at(1));
    for (double v : speed) ASSERT_EQ(v, 0.0) << version;
    // A non-zero SpEED value (one that survives the normalisation round trip, unlike 1e-300,
    // which libvmaf also treats as 0) turns the correction off and changes the score.
    std::vector<double> raw;
    for (const auto& c : columns) raw.push_back(golden.frames.at(c).at(0));
    double corrected = model.predict(raw);
    EXPECT_EQ(bits(corrected), bits(golden.frames.at("vmaf").at(0))) << version;
    // The same model without chroma_correction_parameter misses the golden.
    nlohmann::json json;
    for (const auto& f : vmaf::builtin_model_files())
      if (f.version == version) json = nlohmann::json::parse(f.json);
    json["model_dict"].erase("chroma_correction_parameter");
    LoadedModel plain = vmaf::load_model_json(json.dump(), vmaf::ModelRequest{}, "plain");
    EXPECT_NE(plain.predict(raw), corrected) << version;
    raw[1] = 0.5;
    EXPECT_NE(model.predict(raw), corrected) << version;
  }
}

}  // namespace
}  // namespace vqx::test
