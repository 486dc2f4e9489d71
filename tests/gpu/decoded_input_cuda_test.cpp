// The exactness contract of compressed input on the CUDA backend: every encode (software-decoded)
// scores the same bits, for every metric and built-in model, as ffmpeg's Y4M decode of it does.
#include "gpu/gpu_support.h"
#include "io/open_input.h"
#include "io/readers.h"
#include "support/encodes.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

class DecodedInputCuda : public ::testing::TestWithParam<EncodedCase> {};

TEST_P(DecodedInputCuda, ScoresEqualThoseOfFfmpegsY4mDecode) {
  VQX_REQUIRE_CUDA();
  const EncodedCase& c = GetParam();
  VQX_REQUIRE_FIXTURE(c.pair, dir);
  VQX_REQUIRE_ENCODE(c.distorted, distorted);
  std::string reference = dir + "/ref.y4m";
  if (!c.reference.empty()) {
    VQX_REQUIRE_ENCODE(c.reference, encoded_reference);
    reference = encoded_reference;
  }
  auto ref = open_input(reference, {}, "reference").source;
  auto dis = open_input(distorted, {}, "distorted").source;
  auto decoded = score_everything(*ref, *dis, cuda_settings());
  auto ref_y4m = open_y4m(c.reference.empty() ? reference : reference + ".y4m", "reference");
  auto dis_y4m = open_y4m(distorted + ".y4m", "distorted");
  auto expected = score_everything(*ref_y4m, *dis_y4m, cuda_settings());
  EXPECT_GE(decoded->table.frame_count(), 4u);
  expect_same_table(*decoded, *expected, c.distorted);
}

INSTANTIATE_TEST_SUITE_P(Encodes, DecodedInputCuda, ::testing::ValuesIn(kEncodedCases),
                         [](const auto& info) { return encoded_case_name(info.param); });

}  // namespace
}  // namespace vqx::test
