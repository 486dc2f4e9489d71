// psnr against libvmaf's per-frame values (netflix-p17, %.17g) on every fixture.
#include "support/fixtures.h"

namespace vqx::test {
namespace {

class PsnrGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(PsnrGolden, EveryFrameBitExact) {
  VQX_REQUIRE_FIXTURE(GetParam(), dir);
  RunSettings settings;
  settings.threads = 2;
  auto report = run_on_pair(GetParam(), {"psnr"}, settings);
  Golden golden = load_golden(GetParam(), "netflix-p17", "psnr");
  for (const char* name : {"psnr_y", "psnr_cb", "psnr_cr"})
    expect_bit_exact(column(*report, name), golden.frames.at(name), GetParam() + " " + name);
}

INSTANTIATE_TEST_SUITE_P(AllPairs, PsnrGolden, ::testing::ValuesIn(kAllPairs));

}  // namespace
}  // namespace vqx::test
