// --percentiles in the JSON and XML outputs: pN keys after libvmaf's four, nothing else changed
// (libvmaf's readers keep working), CSV and SUB untouched.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "output/percentiles.h"
#include "output/writers.h"

namespace vqx {
namespace {

void fill(ResultTable& t) {
  t.add_feature("vmaf");
  t.add_feature("partial");
  const double values[] = {90, 70, 80, 100, 60};
  for (uint64_t f = 0; f < 5; ++f) t.put(f, 0, values[f]);
  t.put(0, 1, 1.0);  // missing elsewhere: pooled entry stays empty
  t.set_frame_count(5);
}

std::string write(OutputFormat format, const ResultTable& t, std::vector<double> percentiles) {
  std::ostringstream out;
  OutputInfo info{"vqx-test", 10, 64, 48, NumberFormat::Digits(17), std::move(percentiles)};
  write_results(out, format, t, info);
  return out.str();
}

TEST(PooledPercentiles, JsonAddsKeysAfterLibvmafs) {
  ResultTable t;
  fill(t);
  const auto j = nlohmann::json::parse(write(OutputFormat::kJson, t, {5, 50, 95, 99.9}));
  const auto& vmaf = j["pooled_metrics"]["vmaf"];
  std::vector<std::string> keys;
  for (auto it = vmaf.begin(); it != vmaf.end(); ++it) keys.push_back(it.key());
  // nlohmann::json sorts keys; the text keeps libvmaf's four first (checked below).
  EXPECT_EQ(keys.size(), 8u);
  // Sorted 60 70 80 90 100, h = 4 * (p / 100).
  const double g5 = 4 * (5 / 100.0), g95 = 4 * (95 / 100.0) - 3;
  EXPECT_EQ(vmaf["p5"].get<double>(), 60 + (70 - 60) * g5);
  EXPECT_EQ(vmaf["p50"].get<double>(), 80);
  EXPECT_EQ(vmaf["p95"].get<double>(), 100 - (100 - 90) * (1 - g95));
  EXPECT_EQ(vmaf["p99.9"].get<double>(), percentile_of_sorted({60, 70, 80, 90, 100}, 99.9));
  EXPECT_EQ(vmaf["mean"].get<double>(), 80);
  EXPECT_TRUE(j["pooled_metrics"]["partial"].empty());
  const std::string text = write(OutputFormat::kJson, t, {50});
  EXPECT_NE(text.find("\"harmonic_mean\": "), std::string::npos);
  EXPECT_LT(text.find("\"harmonic_mean\""), text.find("\"p50\""));
}

TEST(PooledPercentiles, XmlAddsAttributes) {
  ResultTable t;
  fill(t);
  const std::string xml = write(OutputFormat::kXml, t, {50, 1});
  EXPECT_NE(xml.find("<metric name=\"vmaf\" min=\"60\" max=\"100\" mean=\"80\" harmonic_mean=\""),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("\" p50=\"80\" p1=\"60.399999999999999\" />"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<metric name=\"partial\" />"), std::string::npos) << xml;
}

TEST(PooledPercentiles, WithoutTheFlagOutputsAreUnchanged) {
  ResultTable t;
  fill(t);
  for (auto format : {OutputFormat::kXml, OutputFormat::kJson})
    EXPECT_FALSE(std::regex_search(write(format, t, {}), std::regex("\\bp[0-9]")));
  for (auto format : {OutputFormat::kCsv, OutputFormat::kSub})
    EXPECT_EQ(write(format, t, {5, 50}), write(format, t, {}));
}

}  // namespace
}  // namespace vqx
