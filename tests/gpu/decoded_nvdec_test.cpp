// NVDEC (io/nvdec.h) against the software decoder: the same frames, byte for byte, and on the CUDA
// backend the same scores, bit for bit, for every metric and built-in model, with NVDEC's frames
// left in device memory and converted there. H.264 and HEVC Main / Main 10 are decoded by NVDEC on
// every GPU vqx runs on; VP9, AV1, 4:4:4 and tiny streams depend on the GPU: --decoder auto takes
// NVDEC or the software decoder with the same frames either way, and --decoder nvdec either
// decodes them the same or refuses with a message naming NVDEC.
#include <fmt/format.h>
#include <gmock/gmock.h>

#include <cstring>
#include <sstream>

#include "core/error.h"
#include "gpu/gpu_support.h"
#include "io/open_input.h"
#include "support/encodes.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

InputOptions decoding(DecoderChoice decoder) {
  InputOptions options;
  options.decoder = decoder;
  options.gpu = 0;
  return options;
}

bool decoded_by_nvdec(const OpenedInput& input) {
  return input.decoder.find("(libavcodec, NVDEC)") != std::string::npos;
}

// Every frame of both sources, byte for byte, through read() (NVDEC's frames downloaded).
void expect_same_frames(FrameSource& actual, FrameSource& expected, const std::string& what) {
  ASSERT_TRUE(actual.format().same_layout(expected.format())) << what;
  EXPECT_EQ(actual.format().range, expected.format().range) << what;
  Picture a(actual.format()), e(expected.format());
  uint64_t frames = 0;
  for (;; ++frames) {
    bool have_a = actual.read(a), have_e = expected.read(e);
    ASSERT_EQ(have_a, have_e) << what << " frame " << frames;
    if (!have_a) break;
    ASSERT_EQ(std::memcmp(a.bytes(), e.bytes(), a.size_bytes()), 0) << what << " frame " << frames;
  }
  EXPECT_GE(frames, 4u) << what;
}

std::string case_name(const ::testing::TestParamInfo<std::string>& info) {
  return encoded_case_name({"", "", info.param});
}

class NvdecDecodes : public ::testing::TestWithParam<std::string> {};

TEST_P(NvdecDecodes, SameFramesAsTheSoftwareDecoder) {
  VQX_REQUIRE_CUDA();
  VQX_REQUIRE_ENCODE(GetParam(), path);
  OpenedInput nvdec = open_input(path, decoding(DecoderChoice::kNvdec), "distorted");
  EXPECT_TRUE(decoded_by_nvdec(nvdec)) << nvdec.decoder;
  ASSERT_NE(nvdec.source->device_frames(), nullptr);
  OpenedInput cpu = open_input(path, decoding(DecoderChoice::kCpu), "distorted");
  EXPECT_THAT(cpu.decoder, testing::HasSubstr("software"));
  expect_same_frames(*nvdec.source, *cpu.source, GetParam());
}

// H.264 8-bit 4:2:0 (mp4, raw, mkv, mpeg-ts) and HEVC Main and Main 10.
INSTANTIATE_TEST_SUITE_P(Encodes, NvdecDecodes,
                         ::testing::Values("n576_h264.mp4", "n576_h264.h264", "n576_ref_h264.mkv", "n576_hevc.mkv",
                                           "hbd720_hevc10.mp4", "syn_h264.mp4", "syn_h264.ts", "syn_h264.mkv"),
                         case_name);

class NvdecMayRefuse : public ::testing::TestWithParam<std::string> {};

TEST_P(NvdecMayRefuse, AutoGivesTheSoftwareDecodersFrames) {
  VQX_REQUIRE_CUDA();
  VQX_REQUIRE_ENCODE(GetParam(), path);
  OpenedInput chosen = open_input(path, decoding(DecoderChoice::kAuto), "distorted");
  if (!decoded_by_nvdec(chosen)) {
    EXPECT_THAT(chosen.decoder, testing::HasSubstr("; not NVDEC: NVDEC"));
  }
  OpenedInput cpu = open_input(path, decoding(DecoderChoice::kCpu), "distorted");
  expect_same_frames(*chosen.source, *cpu.source, GetParam());
  try {
    OpenedInput nvdec = open_input(path, decoding(DecoderChoice::kNvdec), "distorted");
    EXPECT_TRUE(decoded_by_nvdec(nvdec)) << nvdec.decoder;
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), testing::HasSubstr("NVDEC"));
  }
}

// AV1 8 and 10-bit, VP9 8 and 10-bit, 4:4:4 H.264 (not in NVDEC) and HEVC, a 160x96 HEVC stream
// (under NVDEC's smallest HEVC size on some GPUs).
INSTANTIATE_TEST_SUITE_P(Encodes, NvdecMayRefuse,
                         ::testing::Values("n576_av1.ivf", "n576_av1.obu", "hbd720_av1_10.ivf", "syn_av1.ivf",
                                           "n576_vp9.webm", "hbd720_vp9_10.webm", "syn_vp9.webm",
                                           "odd853_h264_444.ts", "odd853_hevc444.hevc", "syn_hevc.hevc"),
                         case_name);

TEST(NvdecRefuses, ACodecWithoutNvdecIsAnErrorNamingIt) {
  VQX_REQUIRE_CUDA();
  VQX_REQUIRE_ENCODE("rung_odd.mkv", ffv1);
  try {
    open_input(ffv1, decoding(DecoderChoice::kNvdec), "distorted");
    ADD_FAILURE() << "ffv1 opened on NVDEC";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), testing::HasSubstr("distorted '"));
    EXPECT_THAT(e.what(), testing::HasSubstr("NVDEC does not decode ffv1 video"));
  }
}

// On the CUDA backend, the frames stay on the device and every metric and model scores the bits
// it scores on the software decoder's frames, for reference and distorted on NVDEC, on the
// software decoder, or one of each (a Y4M reference).
TEST(NvdecScores, EveryMetricMatchesTheSoftwareDecoder) {
  VQX_REQUIRE_CUDA();
  const std::vector<std::string> decoded_on_nvdec = {"n576_h264.mp4", "n576_hevc.mkv", "hbd720_hevc10.mp4"};
  const std::vector<std::string> either = {"n576_vp9.webm", "hbd720_vp9_10.webm", "n576_av1.ivf",
                                           "hbd720_av1_10.ivf"};
  size_t scored = 0;
  for (const EncodedCase& c : kEncodedCases) {
    const bool on_nvdec = std::count(decoded_on_nvdec.begin(), decoded_on_nvdec.end(), c.distorted) > 0;
    if (!on_nvdec && std::count(either.begin(), either.end(), c.distorted) == 0) continue;
    SCOPED_TRACE(c.distorted);
    VQX_REQUIRE_CASE_INPUTS(c, reference, distorted);
    auto ref = open_input(reference, decoding(DecoderChoice::kAuto), "reference");
    auto dis = open_input(distorted, decoding(DecoderChoice::kAuto), "distorted");
    if (on_nvdec) {
      EXPECT_NE(dis.source->device_frames(), nullptr) << dis.decoder;
    }
    auto on_device = score_everything(*ref.source, *dis.source, cuda_settings());
    auto ref_cpu = open_input(reference, decoding(DecoderChoice::kCpu), "reference").source;
    auto dis_cpu = open_input(distorted, decoding(DecoderChoice::kCpu), "distorted").source;
    auto on_host = score_everything(*ref_cpu, *dis_cpu, cuda_settings());
    EXPECT_GE(on_device->table.frame_count(), 4u);
    expect_same_table(*on_device, *on_host, c.distorted);
    ++scored;
  }
  EXPECT_EQ(scored, decoded_on_nvdec.size() + either.size());
}

// Frame skipping reads NVDEC's frames on the host (FrameSource::read); the rest stay on the device.
TEST(NvdecScores, FrameSkipAndCountMatchTheSoftwareDecoder) {
  VQX_REQUIRE_CUDA();
  VQX_REQUIRE_ENCODE("syn_h264.mkv", mkv);
  const std::string common = fmt::format(
      "-r {0} -d {0} --backend cuda --frame_skip_dist 1 --frame_cnt 6 --feature psnr -n -q --csv -o -", mkv);
  CliResult nvdec = run_cli(common + " --decoder nvdec");
  CliResult cpu = run_cli(common + " --decoder cpu");
  ASSERT_EQ(nvdec.status, 0) << nvdec.output;
  ASSERT_EQ(cpu.status, 0) << cpu.output;
  EXPECT_EQ(nvdec.output, cpu.output);
}

// A stream NVDEC refuses after reading some of it (H.264 4:4:4; AV1 on GPUs without AV1 decoding)
// comes from a pipe: the packets read are replayed to the software decoder, and the run scores
// what the run on the file scores.
TEST(NvdecFallback, PipedInputIsReplayedToTheSoftwareDecoder) {
  VQX_REQUIRE_CUDA();
  for (auto [pair, encode] : {std::pair{"odd853", "odd853_h264_444.ts"}, {"n576", "n576_av1.ivf"}}) {
    SCOPED_TRACE(encode);
    VQX_REQUIRE_FIXTURE(pair, dir);
    VQX_REQUIRE_ENCODE(encode, path);
    const std::string common = fmt::format("-r {}/ref.y4m --backend cuda --feature psnr -n -q -o - --csv", dir);
    CliResult from_file = run_cli(fmt::format("{} -d {}", common, path));
    CliResult from_pipe = run_command(fmt::format("cat {} | {} {} -d - 2>&1", path, VQX_CLI_PATH, common));
    ASSERT_EQ(from_file.status, 0) << from_file.output;
    ASSERT_EQ(from_pipe.status, 0) << from_pipe.output;
    // The short-input warning names the input: its path for the file, "(standard input)" for the
    // pipe. The scores and the rest of what the runs print must be the same.
    const auto without_warnings = [](const std::string& text) {
      std::string kept, line;
      std::istringstream lines(text);
      while (std::getline(lines, line))
        if (line.rfind("vqx: warning:", 0) != 0) kept += line + "\n";
      return kept;
    };
    EXPECT_EQ(without_warnings(from_pipe.output), without_warnings(from_file.output));
  }
}

}  // namespace
}  // namespace vqx::test
