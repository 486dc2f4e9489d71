// The spec's VMAF test vectors A-F (shared/spec/vmaf.md 12.2-12.3): every libvmaf output file
// there (AVX2 and --cpumask 255 runs, v0.6.1, 4k, v0.6.1neg and the v1 models on D and E) lists
// the per-frame features and the score; the predictor must turn the former into the latter bit
// for bit. E and D with vmaf_v1.0.16_3d0h_2160 go through the chroma correction (vmaf.md 6.5).
#include <fmt/format.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "metrics/vmaf/model.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

struct VectorFile {
  std::string vector, file;  // e.g. "A", "vmaf_v0.6.1_cpumask255"
};

std::string vectors_dir() { return shared_dir() + "/spec/data/vmaf_vectors"; }

std::vector<VectorFile> vector_files() {
  std::vector<VectorFile> out;
  for (const char* v : {"A", "B", "C", "D", "E", "F"})
    for (const auto& entry : std::filesystem::directory_iterator(vectors_dir() + "/" + v)) {
      std::string stem = entry.path().stem().string();
      if (stem != "features_debug") out.push_back({v, stem});
    }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return std::tie(a.vector, a.file) < std::tie(b.vector, b.file);
  });
  return out;
}

uint64_t bits(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

class VmafModelVectors : public ::testing::TestWithParam<VectorFile> {};

TEST_P(VmafModelVectors, ScoresAndPooledValuesBitExact) {
  const auto& [vector, file] = GetParam();
  std::ifstream in(fmt::format("{}/{}/{}.json", vectors_dir(), vector, file));
  ASSERT_TRUE(in);
  auto json = nlohmann::json::parse(in);
  std::string version = file.substr(0, file.find("_cpumask"));
  auto model = vmaf::load_model(vmaf::parse_model_request("version=" + version));

  ResultTable table;
  const auto& frames = json.at("frames");
  table.set_frame_count(frames.size());
  for (const auto& column : model.feature_columns()) {
    if (table.find_feature(column)) continue;
    size_t index = table.add_feature(column);
    for (const auto& frame : frames)
      table.put(frame.at("frameNum").get<size_t>(), index,
                frame.at("metrics").at(column).get<double>());
  }
  vmaf::apply_model(model, table);
  auto scores = table.selected_values(*table.find_feature("vmaf"));
  ASSERT_TRUE(scores);
  std::vector<double> want;
  for (const auto& frame : frames) want.push_back(frame.at("metrics").at("vmaf").get<double>());
  expect_bit_exact(*scores, want, vector + " " + file);

  PooledValues pooled = pool(*scores);
  const auto& p = json.at("pooled_metrics").at("vmaf");
  EXPECT_EQ(bits(pooled.min), bits(p.at("min").get<double>()));
  EXPECT_EQ(bits(pooled.max), bits(p.at("max").get<double>()));
  EXPECT_EQ(bits(pooled.mean), bits(p.at("mean").get<double>()));
  EXPECT_EQ(bits(pooled.harmonic_mean), bits(p.at("harmonic_mean").get<double>()));
}

INSTANTIATE_TEST_SUITE_P(SpecVectors, VmafModelVectors, ::testing::ValuesIn(vector_files()),
                         [](const auto& info) {
                           std::string name = info.param.vector + "_" + info.param.file;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

// The values of vmaf.md 12.3 as printed there (vector D, vmaf_v0.6.1neg, frame 0, and the
// chroma-corrected vector E, vmaf_v1.0.16_3d0h, frame 0), through the model directly.
TEST(VmafModelVectors, SpecTableValues) {
  auto neg = vmaf::load_model(vmaf::parse_model_request("version=vmaf_v0.6.1neg"));
  std::ifstream in(vectors_dir() + "/D/vmaf_v0.6.1neg_cpumask255.json");
  auto json = nlohmann::json::parse(in);
  std::vector<double> raw;
  for (const auto& c : neg.feature_columns())
    raw.push_back(json["frames"][0]["metrics"][c].get<double>());
  EXPECT_EQ(bits(neg.predict(raw)), bits(65.049023963017547));

  auto v1 = vmaf::load_model(vmaf::parse_model_request("version=vmaf_v1.0.16_3d0h"));
  // cambi, speed_chroma_uv (0: flat chroma), adm3, motion3 of vector E frame 0 (vmaf.md 12.3).
  std::vector<double> e0 = {0, 0, 0.94257894472703918, 5.388304532368978};
  EXPECT_EQ(bits(v1.predict(e0)), bits(81.725497746304512));
}

}  // namespace
}  // namespace vqx::test
