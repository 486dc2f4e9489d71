#pragma once
// Test access to the shared fixtures and golden scores.
//
// Fixture pairs live in $VQX_FIXTURES/<pair>/{ref,dis}.y4m (made by
// shared/fixtures/make-fixtures.sh). When the variable is unset, tests that need them skip, unless
// VQX_REQUIRE_FIXTURES=1 (as in CI), where a missing fixture fails the test.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/engine.h"

namespace vqx::test {

inline const std::vector<std::string> kAllPairs = {"n576", "band1080", "odd853", "hbd720", "uhd4k"};

std::string shared_dir();
// Path of a fixture pair's folder, or nullopt when fixtures are not available.
std::optional<std::string> fixture_dir(const std::string& pair);

// Per-frame values of a golden file: feature name -> values by frameNum.
struct Golden {
  std::map<std::string, std::vector<double>> frames;
  std::map<std::string, std::map<std::string, double>> pooled;
};
// e.g. load_golden("n576", "netflix-p17", "psnr").
Golden load_golden(const std::string& pair, const std::string& tool, const std::string& config);

// Runs `features` (--feature syntax) on a fixture pair and returns the report.
std::unique_ptr<RunReport> run_on_pair(const std::string& pair, const std::vector<std::string>& features,
                                       RunSettings settings = {});
// Runs on in-memory pictures (synthetic inputs).
std::unique_ptr<RunReport> run_on_pictures(const std::vector<Picture>& ref, const std::vector<Picture>& dis,
                                           const std::vector<std::string>& features,
                                           RunSettings settings = {});

// Values of one output column over all frames (asserts every frame has a value).
std::vector<double> column(const RunReport& report, const std::string& feature);

// Expects every frame bit-identical to the golden (reports the first few mismatches at %.17g).
void expect_bit_exact(const std::vector<double>& actual, const std::vector<double>& golden,
                      const std::string& what);

// Skips the current test (or fails it under VQX_REQUIRE_FIXTURES=1) when fixtures are missing.
#define VQX_REQUIRE_FIXTURE(pair, dirvar)                                                  \
  auto dirvar##_opt = ::vqx::test::fixture_dir(pair);                                      \
  if (!dirvar##_opt) {                                                                     \
    if (::vqx::test::fixtures_required()) FAIL() << "fixture " << (pair) << " is missing"; \
    GTEST_SKIP() << "fixtures not available (set VQX_FIXTURES)";                            \
  }                                                                                        \
  const std::string dirvar = *dirvar##_opt

bool fixtures_required();

// Runs the vqx CLI with `args` (a shell-quoted string); returns exit status, stdout+stderr.
struct CliResult {
  int status;
  std::string output;
};
CliResult run_cli(const std::string& args);
// Runs a shell command line through popen; its exit status and standard output.
CliResult run_command(const std::string& command);
std::string temp_path(const std::string& name);

}  // namespace vqx::test

namespace vqx::test {

// A synthetic picture: smooth ramp plus seeded noise, valid for the format's bit depth.
Picture make_picture(const PictureFormat& format, uint32_t seed, int noise = 4);
std::vector<Picture> make_pictures(const PictureFormat& format, std::initializer_list<uint32_t> seeds);
// Writes a Y4M file; `color_tag` overrides the C tag (default derived from the format).
void write_y4m(const std::string& path, const std::vector<Picture>& frames,
               const std::string& color_tag = "", const std::string& extra_tags = "");
void write_raw(const std::string& path, const std::vector<Picture>& frames);
PictureFormat make_format(uint32_t w, uint32_t h, ChromaSubsampling s = ChromaSubsampling::k420,
                          uint8_t bit_depth = 8);

}  // namespace vqx::test
