// The exactness contract of compressed input: scoring an encode (H.264, HEVC 8/10-bit, AV1, VP9;
// mp4, mkv, webm, ivf, mpeg-ts and raw h264/hevc/obu streams; 4:2:0 and odd-sized 4:4:4) gives
// the same bits, for every metric and every built-in model, as scoring what
// `ffmpeg -i FILE -f yuv4mpegpipe -strict -1 -pix_fmt <native> -` makes of it.
#include "support/encodes.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

class DecodedInputExactness : public ::testing::TestWithParam<EncodedCase> {};

TEST_P(DecodedInputExactness, ScoresEqualThoseOfFfmpegsY4mDecode) {
  const EncodedCase& c = GetParam();
  VQX_REQUIRE_CASE_INPUTS(c, reference, distorted);
  RunSettings settings;
  settings.threads = 2;
  expect_scores_of_y4m_decode(c, reference, distorted, settings);
}

INSTANTIATE_TEST_SUITE_P(Encodes, DecodedInputExactness, ::testing::ValuesIn(kEncodedCases),
                         [](const auto& info) { return encoded_case_name(info.param); });

}  // namespace
}  // namespace vqx::test
