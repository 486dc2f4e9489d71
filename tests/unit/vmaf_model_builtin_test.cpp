// The embedded models are the shipped files byte for byte (shared/spec/data/models, whose
// SHA256SUMS is the reference), and they carry the key numbers of vmaf.md 6.8.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "metrics/vmaf/builtin_models.h"
#include "metrics/vmaf/model.h"
#include "support/fixtures.h"

namespace vqx::vmaf {
namespace {

std::string models_dir() { return test::shared_dir() + "/spec/data/models"; }

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(VmafModelBuiltin, EmbeddedFilesEqualTheShippedOnes) {
  std::map<std::string, std::string> sums;
  std::istringstream lines(read(models_dir() + "/SHA256SUMS"));
  std::string digest, file;
  while (lines >> digest >> file) sums[file] = digest;
  ASSERT_EQ(sums.size(), 10u);
  ASSERT_EQ(builtin_model_files().size(), 10u);
  for (const auto& f : builtin_model_files()) {
    std::string name = std::string(f.version) + ".json";
    ASSERT_TRUE(sums.count(name)) << name;
    EXPECT_EQ(f.sha256, sums[name]) << name;
    EXPECT_TRUE(f.json == read(models_dir() + "/" + name)) << name << " differs from the file";
  }
}

TEST(VmafModelBuiltin, KeyNumbersOfTheShippedModels) {
  // vmaf.md 6.8: output slope/intercept, transform and clip per model.
  for (const auto& f : builtin_model_files()) {
    auto m = nlohmann::json::parse(f.json)["model_dict"];
    std::string v(f.version);
    bool v1 = v.rfind("vmaf_v1.0.16", 0) == 0;
    EXPECT_EQ(m["feature_names"].size(), v1 ? 4u : 6u) << v;
    EXPECT_EQ(m.contains("chroma_correction_parameter"), v1) << v;
    EXPECT_EQ(m["score_clip"][1].get<double>(),
              v.find("3d0h_2160") != std::string::npos ? 110.0 : 100.0)
        << v;
    if (v == "vmaf_v0.6.1") {
      EXPECT_EQ(m["slopes"][0].get<double>(), 0.012020766332648465);
      EXPECT_FALSE(m["score_transform"].contains("enabled"));
    }
    if (v == "vmaf_4k_v0.6.1") EXPECT_EQ(m["intercepts"][0].get<double>(), -0.31191973282964003);
    if (v1) {
      EXPECT_EQ(m["slopes"][3].get<double>(), 4.044462665497729) << v;
      EXPECT_TRUE(m["score_transform"]["enabled"].get<bool>()) << v;
    }
  }
}

}  // namespace
}  // namespace vqx::vmaf
