// The embedded models are the shipped files byte for byte (shared/spec/data/models, whose
// SHA256SUMS is the reference, and libvmaf f85a8536's model/ files, whose digests are below), and
// they carry the key numbers of vmaf.md 6.8.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

extern "C" {
#include <libavutil/mem.h>
#include <libavutil/sha.h>
}

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

std::string sha256(std::string_view text) {
  AVSHA* sha = av_sha_alloc();
  av_sha_init(sha, 256);
  av_sha_update(sha, reinterpret_cast<const uint8_t*>(text.data()), text.size());
  uint8_t digest[32];
  av_sha_final(sha, digest);
  av_free(sha);
  std::string hex;
  for (uint8_t b : digest) hex += fmt::format("{:02x}", b);
  return hex;
}

// sha256sum of libvmaf f85a8536's model/<name>.json, the bytes its CLI carries built in.
const std::map<std::string, std::string> kLibvmafDigests = {
    {"vmaf_v0.6.1neg", "1fcda193aaa2a3136471b7516b3c5dc344546c05fcde2d58609f8c60a2387392"},
    {"vmaf_4k_v0.6.1neg", "f92048bf94401a5b915f551eb248709275c61df5f20d062a3ae010dcf4d4e8fc"},
    {"vmaf_b_v0.6.3", "34f620dbaff662fe7d33dd80326553c2cc3910e4135349ba4c367171d3a3cfbd"},
    {"vmaf_float_v0.6.1", "26573aa333346f1109226e7283969e8b3581119a1ab7f18897767351dd963ff8"},
    {"vmaf_float_v0.6.1neg", "8ac8e9bd6153e57fed4e9809c49711ea7654da2a14ea701423187905e914597a"},
    {"vmaf_float_b_v0.6.3", "e32df73119386b124836910956fe8e0b0583a35638d2c518719e5a5069d0248b"},
    {"vmaf_float_4k_v0.6.1", "2af34f3068174720a35126807dbe8d0b19c5143fee328a9fc2331c15c54e4433"},
};

TEST(VmafModelBuiltin, EmbeddedFilesEqualTheShippedOnes) {
  std::map<std::string, std::string> sums;
  std::istringstream lines(read(models_dir() + "/SHA256SUMS"));
  std::string digest, file;
  while (lines >> digest >> file) sums[file] = digest;
  ASSERT_EQ(sums.size(), 10u);
  ASSERT_EQ(builtin_model_files().size(), 17u);
  size_t from_shared = 0, from_libvmaf = 0;
  for (const auto& f : builtin_model_files()) {
    std::string version(f.version);
    std::string name = version + ".json";
    EXPECT_EQ(sha256(f.json), f.sha256) << name;
    if (sums.count(name)) {
      ++from_shared;
      EXPECT_EQ(f.sha256, sums[name]) << name;
      EXPECT_TRUE(f.json == read(models_dir() + "/" + name)) << name << " differs from the file";
    } else {
      ASSERT_TRUE(kLibvmafDigests.count(version)) << name;
      ++from_libvmaf;
      EXPECT_EQ(f.sha256, kLibvmafDigests.at(version)) << name;
    }
  }
  EXPECT_EQ(from_shared, 10u);
  EXPECT_EQ(from_libvmaf, kLibvmafDigests.size());
}

TEST(VmafModelBuiltin, KeyNumbersOfTheShippedModels) {
  // vmaf.md 6.8: output slope/intercept, transform and clip per model.
  for (const auto& f : builtin_model_files()) {
    auto root = nlohmann::json::parse(f.json);
    std::string v(f.version);
    // A bootstrap collection: 21 models "0".."20" of the same form (vmaf.md 6.6).
    if (v.find("_b_") != std::string::npos) {
      EXPECT_FALSE(root.contains("model_dict")) << v;
      EXPECT_TRUE(root.contains("20") && !root.contains("21")) << v;
      EXPECT_EQ(root["1"]["model_dict"]["model_type"], "BOOTSTRAP_LIBSVMNUSVR") << v;
    }
    auto m = root.contains("model_dict") ? root["model_dict"] : root["0"]["model_dict"];
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
    if (v == "vmaf_4k_v0.6.1") {
      EXPECT_EQ(m["intercepts"][0].get<double>(), -0.31191973282964003);
    }
    if (v1) {
      EXPECT_EQ(m["slopes"][3].get<double>(), 4.044462665497729) << v;
      EXPECT_TRUE(m["score_transform"]["enabled"].get<bool>()) << v;
    }
  }
}

}  // namespace
}  // namespace vqx::vmaf
