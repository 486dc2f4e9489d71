// --scale on the CUDA backend: a ladder rung, decoded by NVDEC (--decoder auto, where the GPU
// takes it) or in software and scaled on the device, is the picture `ffmpeg -vf
// scale=W:H:flags=<mode>+accurate_rnd+bitexact` makes of it, sample for sample: scored against
// ffmpeg's scale, every score and squared error is what that scale scores against itself.
#include <fmt/format.h>
#include <gmock/gmock.h>

#include "gpu/gpu_support.h"
#include "support/encodes.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

constexpr const char* kScores = "-n -q --feature psnr=enable_mse=true --csv -o -";

TEST(DecodedScaleCuda, EveryRungScalesOnTheDeviceAsFfmpegDoes) {
  VQX_REQUIRE_CUDA();
  for (const ScaledRung& c : kScaledRungs) {
    VQX_REQUIRE_ENCODE(c.rung, rung);
    const std::string scaled = scaled_rung_path(rung, c);
    SCOPED_TRACE(scaled);
    CliResult expected = run_cli(fmt::format("-r {0} -d {0} --backend cuda {1}", scaled, kScores));
    ASSERT_EQ(expected.status, 0) << expected.output;
    for (const char* decoder : {"auto", "cpu"}) {
      CliResult result =
          run_cli(fmt::format("-r {} -d {} --scale {} --decoder {} --backend cuda {}", scaled, rung,
                              c.mode, decoder, kScores));
      ASSERT_EQ(result.status, 0) << result.output;
      EXPECT_EQ(result.output, expected.output) << "--decoder " << decoder;
    }
  }
}

}  // namespace
}  // namespace vqx::test
