// ssimulacra2 against the lusoris fork's per-frame values (%.17g) on every fixture, every frame.
#include "support/fixtures.h"

namespace vqx::test {
namespace {

class Ssimulacra2Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Ssimulacra2Golden, EveryFrameBitExact) {
  VQX_REQUIRE_FIXTURE(GetParam(), dir);
  RunSettings settings;
  settings.threads = 2;
  auto report = run_on_pair(GetParam(), {"ssimulacra2"}, settings);
  Golden golden = load_golden(GetParam(), "lusoris", "ssimulacra2");
  const std::vector<double>& expected = golden.frames.at("ssimulacra2");
  std::vector<double> actual = column(*report, "ssimulacra2");
  ASSERT_EQ(actual.size(), expected.size());
  expect_bit_exact(actual, expected, GetParam() + " ssimulacra2");
}

INSTANTIATE_TEST_SUITE_P(AllPairs, Ssimulacra2Golden, ::testing::ValuesIn(kAllPairs));

}  // namespace
}  // namespace vqx::test
