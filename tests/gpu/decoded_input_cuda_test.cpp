// The exactness contract of compressed input on the CUDA backend: every encode (software-decoded)
// scores the same bits, for every metric and built-in model, as ffmpeg's Y4M decode of it does.
#include "gpu/gpu_support.h"
#include "support/encodes.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

class DecodedInputCuda : public ::testing::TestWithParam<EncodedCase> {};

TEST_P(DecodedInputCuda, ScoresEqualThoseOfFfmpegsY4mDecode) {
  VQX_REQUIRE_CUDA();
  const EncodedCase& c = GetParam();
  VQX_REQUIRE_CASE_INPUTS(c, reference, distorted);
  expect_scores_of_y4m_decode(c, reference, distorted, cuda_settings());
}

INSTANTIATE_TEST_SUITE_P(Encodes, DecodedInputCuda, ::testing::ValuesIn(kEncodedCases),
                         [](const auto& info) { return encoded_case_name(info.param); });

}  // namespace
}  // namespace vqx::test
