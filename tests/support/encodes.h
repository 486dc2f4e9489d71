#pragma once
// Test access to the small encodes tests/encodes/make_encodes.sh makes into the build tree (the
// ctest fixture "encodes"), and the exactness contract's comparison: a compressed input scores
// the same bits as ffmpeg's Y4M decode of it, for every metric and built-in model.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/engine.h"

namespace vqx::test {

// Path of an encode, or nullopt when it was not made (fixture encodes need $VQX_FIXTURES).
std::optional<std::string> encode_path(const std::string& file);

// Skips the test (fails it under VQX_REQUIRE_FIXTURES=1) when the encode is missing.
#define VQX_REQUIRE_ENCODE(file, var)                                                        \
  auto var##_opt = ::vqx::test::encode_path(file);                                           \
  if (!var##_opt) {                                                                          \
    if (::vqx::test::fixtures_required()) FAIL() << "encode " << (file) << " is missing";    \
    GTEST_SKIP() << "encode " << (file) << " not made (run the make_encodes test first)";    \
  }                                                                                          \
  const std::string var = *var##_opt

// A compressed input of the contract: `distorted` (and `reference`, or the pair's ref.y4m when
// empty) are encodes; each has FILE.y4m beside it.
struct EncodedCase {
  std::string pair, reference, distorted;
};

// Declares `reference` and `distorted`, the paths of case `c`'s inputs (the pair's ref.y4m where
// the case has no encoded reference); skips the test (fails it under VQX_REQUIRE_FIXTURES=1) when
// the fixture or an encode is missing.
#define VQX_REQUIRE_CASE_INPUTS(c, reference, distorted)       \
  VQX_REQUIRE_FIXTURE((c).pair, reference##_pair_dir);          \
  VQX_REQUIRE_ENCODE((c).distorted, distorted);                 \
  std::string reference = reference##_pair_dir + "/ref.y4m";    \
  if (!(c).reference.empty()) {                                 \
    VQX_REQUIRE_ENCODE((c).reference, reference##_encoded);     \
    reference = reference##_encoded;                            \
  }
extern const std::vector<EncodedCase> kEncodedCases;
std::string encoded_case_name(const EncodedCase& c);

// A ladder rung and ffmpeg's scale of it (`-vf scale=W:H:flags=MODE+accurate_rnd+bitexact`), both
// made by make_encodes.sh: 720p and 540p to 1080p in every mode, 1080p to 4K, 853x481 to 1080p
// and to 1279x719, 10-bit 4:2:0 and 4:4:4.
struct ScaledRung {
  const char* rung;
  uint32_t width, height;
  const char* mode;
};
extern const std::vector<ScaledRung> kScaledRungs;
// Where ffmpeg's scale of the rung at `rung_path` is: RUNG.WxH.MODE.y4m.
std::string scaled_rung_path(const std::string& rung_path, const ScaledRung& c);

// Every metric with its defaults and every built-in VMAF model, on one input pair; the models'
// scores are added to the table.
std::unique_ptr<RunReport> score_everything(FrameSource& reference, FrameSource& distorted,
                                            const RunSettings& settings);

// Same columns, frame count and bits (NaN equal to NaN) in both tables.
void expect_same_table(const RunReport& actual, const RunReport& expected, const std::string& what);

// The contract on one case: score_everything on the encodes (opened as the CLI opens them) and on
// their FILE.y4m, with `settings`, give the same table. `reference` is the pair's ref.y4m or the
// case's encoded reference.
void expect_scores_of_y4m_decode(const EncodedCase& c, const std::string& reference, const std::string& distorted,
                                 const RunSettings& settings);

}  // namespace vqx::test
