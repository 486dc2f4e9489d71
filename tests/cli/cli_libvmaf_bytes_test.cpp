// The CLI's output files against libvmaf 3.2.0's own (the anchor binary in shared/anchors), byte
// for byte in JSON, XML, CSV and SUB apart from the version and fps fields: the default model,
// features alone (-n), features beside a model, a v1 model, several models, bootstrap collections,
// the float models and libvmaf's --aom_ctc and --nflx_ctc presets. Among other things this pins the feature collector's output order
// (ResultTable::output_order).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "support/fixtures.h"

namespace vqx::test {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The libvmaf CLI, unpacked once per test process and removed at its end; empty when the
// anchor is not there.
class UnpackedAnchor {
 public:
  UnpackedAnchor() {
    const std::string packed = shared_dir() + "/anchors/vmaf-3.2.0-f85a8536-cuda.xz";
    if (!std::filesystem::exists(packed)) return;
    const std::string out = temp_path("vmaf-3.2.0");
    const std::string command = fmt::format("xz -dc '{}' > '{}' && chmod +x '{}'", packed, out, out);
    if (std::system(command.c_str()) == 0) path_ = out;
  }
  ~UnpackedAnchor() {
    if (!path_.empty()) std::filesystem::remove(path_);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

const std::string& libvmaf_cli() {
  static const UnpackedAnchor anchor;
  return anchor.path();
}

// Drops what differs by design: the version string and the timing-dependent fps.
std::string without_version_and_fps(std::string text) {
  static const std::regex json_header(R"(\n  "version": "[^"]*",\n  "fps": [^\n]*)");
  static const std::regex xml_version(R"(<VMAF version="[^"]*">)");
  static const std::regex xml_fps(R"(\n  <fyi fps="[^"]*" />)");
  text = std::regex_replace(text, json_header, "");
  text = std::regex_replace(text, xml_version, "<VMAF>");
  return std::regex_replace(text, xml_fps, "");
}

struct OutputCase {
  std::string name, pair, args;
};
void PrintTo(const OutputCase& c, std::ostream* out) { *out << c.pair << " [" << c.args << "]"; }

const std::vector<OutputCase> kCases = {
    {"DefaultModel", "n576", ""},
    {"DefaultModel444", "odd853", ""},
    {"DefaultModelTenBit", "hbd720", ""},
    {"DefaultModelSubsampled", "n576", "--subsample 2"},
    {"FeaturesOnly", "n576", "-n --feature float_ssim --feature psnr=enable_apsnr=true"},
    {"FeaturesOnlyTemporalFirst", "n576", "-n --feature motion --feature psnr --feature vif"},
    {"FeaturesAndModel", "n576", "--feature psnr --feature float_ssim"},
    {"V1Model", "n576", "-m version=vmaf_v1.0.16_3d0h"},
    {"V1ModelAndV0Model", "odd853",
     "-m version=vmaf_v1.0.16_3d0h -m version=vmaf_v0.6.1:name=v0 --feature float_ssim"},
    {"SeveralModels", "n576",
     "-m version=vmaf_v0.6.1neg:name=neg -m version=vmaf_v0.6.1 --feature psnr"},
    {"BootstrapModel", "n576", "-m version=vmaf_b_v0.6.3"},
    {"BootstrapBesideModels", "odd853",
     "-m version=vmaf_float_b_v0.6.3:name=fb -m version=vmaf_v0.6.1 -m version=vmaf_b_v0.6.3:name=b"},
    {"FloatModels", "n576",
     "-m version=vmaf_float_v0.6.1neg -m version=vmaf_float_4k_v0.6.1:name=f4k"},
    {"AomCtcV1", "n576", "--aom_ctc v1.0"},
    {"AomCtcV6", "odd853", "--aom_ctc v6.0"},
    {"AomCtcV7", "n576", "--aom_ctc v7.0"},
    {"AomCtcV7AmongOtherArguments", "n576",
     "--feature float_psnr -m version=vmaf_4k_v0.6.1:name=k --aom_ctc v7.0 --feature float_moment"},
    {"AomCtcFeaturesOnly", "n576", "-n --aom_ctc v3.0"},
    {"NflxCtc", "n576", "--nflx_ctc v1.0"},
    {"FloatMotionForcedZero", "n576",
     "-n --feature float_motion=motion_force_zero=true --feature float_vif"},
};

const std::vector<std::pair<std::string, std::string>> kFormats = {
    {"json", "--json"}, {"xml", "--xml"}, {"csv", "--csv"}, {"sub", "--sub"}};

class CliLibvmafBytes : public ::testing::TestWithParam<OutputCase> {};

TEST_P(CliLibvmafBytes, EveryFormatEqualsLibvmafButVersionAndFps) {
  const OutputCase& c = GetParam();
  if (libvmaf_cli().empty())
    GTEST_SKIP() << "no libvmaf anchor (" << shared_dir() << "/anchors is absent or xz failed)";
  VQX_REQUIRE_FIXTURE(c.pair, dir);
  const std::string inputs = fmt::format("-r {0}/ref.y4m -d {0}/dis.y4m --frame_cnt 4 -q", dir);
  for (const auto& [ext, flag] : kFormats) {
    const std::string ours = temp_path(fmt::format("{}_vqx.{}", c.name, ext));
    const std::string theirs = temp_path(fmt::format("{}_libvmaf.{}", c.name, ext));
    const std::string args = fmt::format("{} {} {} -o", inputs, c.args, flag);
    auto r = run_cli(fmt::format("{} {}", args, ours));
    ASSERT_EQ(r.status, 0) << c.name << " " << ext << ": " << r.output;
    // The anchor is libvmaf's CUDA build: --gpumask keeps it on its CPU path, the reference.
    const std::string command = fmt::format("'{}' --gpumask 4294967295 {} '{}' > /dev/null 2>&1",
                                            libvmaf_cli(), args, theirs);
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    EXPECT_EQ(without_version_and_fps(slurp(ours)), without_version_and_fps(slurp(theirs)))
        << c.name << " " << ext << ": " << ours << " vs " << theirs;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, CliLibvmafBytes, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<OutputCase>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace vqx::test
