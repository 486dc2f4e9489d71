// The four output layouts carry the same values, parse, and follow libvmaf's byte layout.
#include "output/writers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

namespace vqx {
namespace {

void fill_sample(ResultTable& t) {
  t.add_feature("alpha");
  t.add_feature("beta");
  t.put(0, 0, 0.995371);
  t.put(0, 1, 66.16995);
  t.put(1, 0, 0.994012);
  t.put(1, 1, 0.0000001234);
  t.put(2, 0, 1.5);  // frame 2: beta missing
  t.set_frame_count(3);
  t.put_aggregate("agg", 12.5);
}

const ResultTable& sample() {
  static ResultTable t;
  static bool filled = (fill_sample(t), true);
  (void)filled;
  return t;
}

std::string write(OutputFormat f, const ResultTable& t, NumberFormat nf = NumberFormat::Adaptive()) {
  std::ostringstream out;
  OutputInfo info{"vqx-test", 52.468, 576, 324, nf, {}};
  write_results(out, f, t, info);
  return out.str();
}

TEST(Writers, JsonIsValidAndComplete) {
  ResultTable t;
  fill_sample(t);
  auto j = nlohmann::json::parse(write(OutputFormat::kJson, t, NumberFormat::Digits(17)));
  EXPECT_EQ(j["version"], "vqx-test");
  EXPECT_EQ(j["fps"].get<double>(), 52.47);
  ASSERT_EQ(j["frames"].size(), 3u);
  EXPECT_EQ(j["frames"][1]["metrics"]["beta"].get<double>(), 0.0000001234);
  EXPECT_FALSE(j["frames"][2]["metrics"].contains("beta"));
  EXPECT_EQ(j["pooled_metrics"]["alpha"]["min"].get<double>(), 0.994012);
  EXPECT_EQ(j["pooled_metrics"]["alpha"]["max"].get<double>(), 1.5);
  // beta lacks frame 2, so pooling it fails and its entry is empty, as in libvmaf.
  EXPECT_TRUE(j["pooled_metrics"]["beta"].empty());
  EXPECT_EQ(j["aggregate_metrics"]["agg"].get<double>(), 12.5);
}

TEST(Writers, JsonValidWhenFirstFrameMissing) {
  ResultTable t;
  t.add_feature("a");
  t.put(1, 0, 2.0);
  t.set_frame_count(2);
  auto text = write(OutputFormat::kJson, t);
  auto j = nlohmann::json::parse(text);
  ASSERT_EQ(j["frames"].size(), 1u);
  EXPECT_EQ(j["frames"][0]["frameNum"], 1);
}

TEST(Writers, JsonNullForNonFinite) {
  ResultTable t;
  t.add_feature("a");
  t.add_feature("b");
  t.put(0, 0, NAN);
  t.put(0, 1, 1.0);
  t.set_frame_count(1);
  auto text = write(OutputFormat::kJson, t);
  EXPECT_NE(text.find("\"a\": null,        \"b\": 1.000000\n"), std::string::npos) << text;
  auto j = nlohmann::json::parse(text);
  EXPECT_TRUE(j["frames"][0]["metrics"]["a"].is_null());
}

TEST(Writers, XmlLayout) {
  auto text = write(OutputFormat::kXml, sample());
  EXPECT_EQ(text.substr(0, 100),
            "<VMAF version=\"vqx-test\">\n  <params qualityWidth=\"576\" qualityHeight=\"324\" />\n  <fyi fps=\"52.47\" />\n");
  EXPECT_NE(text.find("    <frame frameNum=\"1\" alpha=\"0.994012\" beta=\"0.0000001234000000\" />\n"), std::string::npos);
  EXPECT_NE(text.find("    <frame frameNum=\"2\" alpha=\"1.500000\" />\n"), std::string::npos);
  EXPECT_NE(text.find("    <metric name=\"beta\" />\n"), std::string::npos);
  EXPECT_NE(text.find("  <aggregate_metrics agg=\"12.500000\" />\n</VMAF>\n"), std::string::npos);
}

TEST(Writers, CsvKeepsColumnsAligned) {
  auto text = write(OutputFormat::kCsv, sample());
  EXPECT_EQ(text, "Frame,alpha,beta,\n0,0.995371,66.169950,\n1,0.994012,0.0000001234000000,\n2,1.500000,,\n");
}

TEST(Writers, SubLayout) {
  auto text = write(OutputFormat::kSub, sample());
  EXPECT_EQ(text.substr(0, text.find('\n') + 1), "{0}{1}frame: 0|alpha: 0.995371|beta: 66.169950|\n");
}

TEST(Writers, AllFormatsCarryTheSameValues) {
  ResultTable t;
  fill_sample(t);
  NumberFormat nf = NumberFormat::Digits(17);
  auto j = nlohmann::json::parse(write(OutputFormat::kJson, t, nf));
  std::vector<double> from_json;
  for (const auto& fr : j["frames"])
    for (const auto& [k, v] : fr["metrics"].items()) from_json.push_back(v.get<double>());
  auto grab = [](const std::string& text, const std::regex& re) {
    std::vector<double> v;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
      v.push_back(std::stod((*it)[1]));
    return v;
  };
  auto xml = write(OutputFormat::kXml, t, nf);
  auto frames_xml = xml.substr(xml.find("<frames>"), xml.find("</frames>") - xml.find("<frames>"));
  EXPECT_EQ(grab(frames_xml, std::regex("(?:alpha|beta)=\"([^\"]+)\"")), from_json);
  EXPECT_EQ(grab(write(OutputFormat::kSub, t, nf), std::regex("(?:alpha|beta): ([^|]+)\\|")), from_json);
  std::vector<double> csv;
  std::istringstream in(write(OutputFormat::kCsv, t, nf));
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string field;
    std::getline(fields, field, ',');
    while (std::getline(fields, field, ','))
      if (!field.empty()) csv.push_back(std::stod(field));
  }
  EXPECT_EQ(csv, from_json);
}

// libvmaf's collector order: a column first written by a later call (VMAF motion2 at the flush)
// follows every column of frame 0 whatever its registration; ties keep registration order;
// columns no metric call wrote (model scores) come last.
TEST(Writers, ColumnsFollowTheCallThatFirstWroteThem) {
  ResultTable t;
  const size_t motion2 = t.add_feature("motion2"), sad = t.add_feature("sad");
  const size_t vif = t.add_feature("vif"), model = t.add_feature("model");
  const size_t late = t.add_feature("late");
  for (uint64_t f = 0; f < 2; ++f) {
    t.put(f, sad, 1.0, f);
    t.put(f, vif, 2.0, f);
    t.put(f, model, 4.0);
  }
  t.put(1, late, 5.0, 1);
  t.put(0, motion2, 3.0, ResultTable::kFlushCall);
  t.put(1, motion2, 3.0, ResultTable::kFlushCall);
  t.set_frame_count(2);
  EXPECT_EQ(t.output_order(), (std::vector<size_t>{sad, vif, late, motion2, model}));
  std::string csv = write(OutputFormat::kCsv, t);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "Frame,sad,vif,late,motion2,model,");
  std::string xml = write(OutputFormat::kXml, t);
  EXPECT_LT(xml.find("<metric name=\"late\""), xml.find("<metric name=\"motion2\""));
}

}  // namespace
}  // namespace vqx
