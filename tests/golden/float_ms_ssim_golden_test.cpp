// float_ms_ssim and float_ssim against libvmaf's per-frame values (netflix-p17, %.17g) on every
// fixture, bit for bit: the score, the 15 enable_lcs means, and float_ssim.
#include <fmt/format.h>

#include "support/fixtures.h"

namespace vqx::test {
namespace {

class FloatMsSsimGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(FloatMsSsimGolden, DefaultEveryFrameBitExact) {
  VQX_REQUIRE_FIXTURE(GetParam(), dir);
  RunSettings settings;
  settings.threads = 2;
  auto report = run_on_pair(GetParam(), {"float_ms_ssim"}, settings);
  Golden golden = load_golden(GetParam(), "netflix-p17", "float_ms_ssim");
  expect_bit_exact(column(*report, "float_ms_ssim"), golden.frames.at("float_ms_ssim"),
                   GetParam() + " float_ms_ssim");
}

TEST_P(FloatMsSsimGolden, EnableLcsEveryOutputBitExact) {
  VQX_REQUIRE_FIXTURE(GetParam(), dir);
  RunSettings settings;
  settings.threads = 2;
  auto report = run_on_pair(GetParam(), {"float_ms_ssim=enable_lcs=true"}, settings);
  Golden golden = load_golden(GetParam(), "netflix-p17", "float_ms_ssim_lcs");
  std::vector<std::string> names = {"float_ms_ssim"};
  for (const char* term : {"l", "c", "s"})
    for (int k = 0; k < 5; ++k) names.push_back(fmt::format("float_ms_ssim_{}_scale{}", term, k));
  ASSERT_EQ(golden.frames.size(), names.size());
  for (const std::string& name : names)
    expect_bit_exact(column(*report, name), golden.frames.at(name), GetParam() + " " + name);
}

TEST_P(FloatMsSsimGolden, FloatSsimEveryFrameBitExact) {
  VQX_REQUIRE_FIXTURE(GetParam(), dir);
  RunSettings settings;
  settings.threads = 2;
  auto report = run_on_pair(GetParam(), {"float_ssim"}, settings);
  Golden golden = load_golden(GetParam(), "netflix-p17", "float_ssim");
  expect_bit_exact(column(*report, "float_ssim"), golden.frames.at("float_ssim"),
                   GetParam() + " float_ssim");
}

INSTANTIATE_TEST_SUITE_P(AllPairs, FloatMsSsimGolden, ::testing::ValuesIn(kAllPairs));

}  // namespace
}  // namespace vqx::test
