// The CLI on compressed inputs: the same output as on ffmpeg's Y4M decode of them, libvmaf's
// frame semantics (skip, count, subsample, inputs of different lengths) on compressed input, the
// input flags (--ref_stream/--dis_stream, --decoder) and their errors.
#include <fmt/format.h>
#include <gmock/gmock.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "engine/cuda_backend.h"
#include "io/nvdec.h"
#include "support/encodes.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

using ::testing::HasSubstr;

// Runs a shell command line in which VQX stands for the CLI; returns status and stdout+stderr.
CliResult run_shell(std::string command) {
  for (size_t at; (at = command.find("VQX")) != std::string::npos;) command.replace(at, 3, VQX_CLI_PATH);
  CliResult result{-1, {}};
  std::FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return result;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) result.output.append(buffer, n);
  int status = ::pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

const char* kPsnrCsv = "-n -q --feature psnr --csv -o -";

CliResult csv(const std::string& ref, const std::string& dis, const std::string& extra = "") {
  return run_cli(fmt::format("-r '{}' -d '{}' -n -q --feature psnr --feature float_ssim --csv -o - {}", ref, dis, extra));
}

TEST(CliInputs, CompressedPairScoresAsItsY4mDecode) {
  VQX_REQUIRE_ENCODE("syn_h264.mkv", ref);
  VQX_REQUIRE_ENCODE("syn_vp9.webm", dis);
  auto decoded = csv(ref, dis);
  auto y4m = csv(ref + ".y4m", dis + ".y4m");
  ASSERT_EQ(decoded.status, 0) << decoded.output;
  EXPECT_EQ(decoded.output, y4m.output);
  EXPECT_THAT(decoded.output, HasSubstr("\n11,"));  // twelve frames
}

TEST(CliInputs, DefaultVmafOnCompressedInputs) {
  VQX_REQUIRE_ENCODE("syn_h264.mp4", ref);
  VQX_REQUIRE_ENCODE("syn_av1.ivf", dis);
  auto decoded = run_cli(fmt::format("-r {} -d {} -q --csv -o -", ref, dis));
  auto y4m = run_cli(fmt::format("-r {}.y4m -d {}.y4m -q --csv -o -", ref, dis));
  ASSERT_EQ(decoded.status, 0) << decoded.output;
  EXPECT_EQ(decoded.output, y4m.output);
  EXPECT_THAT(decoded.output, HasSubstr("vmaf"));
}

TEST(CliInputs, SkipCountAndSubsampleWorkOnCompressedInput) {
  VQX_REQUIRE_ENCODE("syn_h264.mkv", ref);
  VQX_REQUIRE_ENCODE("syn_hevc.hevc", dis);
  const std::string flags = "--frame_skip_ref 2 --frame_skip_dist 1 --frame_cnt 7 --subsample 3";
  auto decoded = csv(ref, dis, flags);
  auto y4m = csv(ref + ".y4m", dis + ".y4m", flags);
  ASSERT_EQ(decoded.status, 0) << decoded.output;
  EXPECT_EQ(decoded.output, y4m.output);
  EXPECT_THAT(decoded.output, HasSubstr("\n6,"));
  EXPECT_THAT(decoded.output, ::testing::Not(HasSubstr("\n7,")));
}

TEST(CliInputs, ShorterInputEndsTheRunAsInLibvmaf) {
  VQX_REQUIRE_ENCODE("syn_h264.mkv", ref);
  VQX_REQUIRE_ENCODE("syn_short.mkv", dis);
  auto r = run_cli(fmt::format("-r {} -d {} -n --feature psnr --csv -o -", ref, dis));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr(fmt::format("distorted '{}' ended before reference '{}'; scoring the first 8 frames",
                                              dis, ref)));
  EXPECT_THAT(r.output, HasSubstr("\n7,"));
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("\n8,")));
  auto skipped_past = run_cli(fmt::format("-r {} -d {} -n -q --feature psnr --frame_skip_dist 9", ref, dis));
  EXPECT_EQ(skipped_past.status, 2) << skipped_past.output;
  EXPECT_THAT(skipped_past.output, HasSubstr("cannot skip 9 frames, it has only 8"));
}

TEST(CliInputs, StreamFlagsSelectAndAreChecked) {
  VQX_REQUIRE_ENCODE("syn_multi.mkv", multi);
  auto r = run_cli(fmt::format("-r {0} -d {0} --ref_stream 2 --dis_stream v:1 -n -q --feature psnr --json -o -", multi));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("\"psnr_y\": 60"));  // identical inputs: psnr at its cap
  auto mismatch = run_cli(fmt::format("-r {0} -d {0} --dis_stream v:1 -n -q --feature psnr", multi));
  EXPECT_EQ(mismatch.status, 2);
  EXPECT_THAT(mismatch.output, HasSubstr("geometry mismatch: reference is 160x96, distorted is 96x64"));
  auto audio = run_cli(fmt::format("-r {0} -d {0} --dis_stream 1 -n -q --feature psnr", multi));
  EXPECT_EQ(audio.status, 2);
  EXPECT_THAT(audio.output, HasSubstr("stream 1 is not a video stream (audio)"));
  auto bad = run_cli(fmt::format("-r {0} -d {0} --ref_stream first -n -q --feature psnr", multi));
  EXPECT_EQ(bad.status, 1);
  EXPECT_THAT(bad.output, HasSubstr("--ref_stream first: expected a stream index N or v:N"));
}

TEST(CliInputs, DecoderFlag) {
  VQX_REQUIRE_ENCODE("syn_h264.mkv", mkv);
  auto cpu = run_cli(fmt::format("-r {0} -d {0} -n --feature psnr --decoder cpu", mkv));
  EXPECT_EQ(cpu.status, 0) << cpu.output;
  EXPECT_THAT(cpu.output, HasSubstr("vqx: distorted decoder: h264 (libavcodec, software"));
  auto quiet = run_cli(fmt::format("-r {0} -d {0} -n -q --feature psnr", mkv));
  EXPECT_THAT(quiet.output, ::testing::Not(HasSubstr("decoder")));
  auto nvdec = run_cli(fmt::format("-r {0} -d {0} -n --feature psnr --decoder nvdec", mkv));
  if (!nvdec_built()) {
    EXPECT_EQ(nvdec.status, 3) << nvdec.output;
    EXPECT_THAT(nvdec.output, HasSubstr("--decoder nvdec: this vqx has no NVDEC decoder"));
  } else if (!cuda_device_available(0)) {
    EXPECT_EQ(nvdec.status, 3) << nvdec.output;
    EXPECT_THAT(nvdec.output, HasSubstr("--decoder nvdec: NVDEC decodes for the CUDA backend, and this run is on cpu"));
    EXPECT_THAT(nvdec.output, HasSubstr("no usable CUDA device 0"));
  } else {
    EXPECT_EQ(nvdec.status, 0) << nvdec.output;
    EXPECT_THAT(nvdec.output, HasSubstr("vqx: distorted decoder: h264 (libavcodec, NVDEC)"));
  }
  auto on_cpu = run_cli(fmt::format("-r {0} -d {0} -n -q --feature psnr --decoder nvdec --backend cpu", mkv));
  EXPECT_EQ(on_cpu.status, 3) << on_cpu.output;
  EXPECT_THAT(on_cpu.output, HasSubstr(nvdec_built() ? "and this run is on cpu" : "this vqx has no NVDEC decoder"));
  auto bad = run_cli(fmt::format("-r {0} -d {0} -n -q --feature psnr --decoder gpu", mkv));
  EXPECT_EQ(bad.status, 1);
  EXPECT_THAT(bad.output, HasSubstr("--decoder gpu: expected auto, cpu or nvdec"));
}

TEST(CliInputs, DamagedInputIsAOneLineError) {
  VQX_REQUIRE_ENCODE("syn_h264.mkv", ref);
  VQX_REQUIRE_ENCODE("syn_vp9.webm", dis);
  const std::string cut = temp_path("cut.webm");
  std::filesystem::copy_file(dis, cut, std::filesystem::copy_options::overwrite_existing);
  std::filesystem::resize_file(cut, std::filesystem::file_size(cut) / 2);
  auto r = run_cli(fmt::format("-r {} -d {} -n -q --feature psnr", ref, cut));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr(fmt::format("vqx: error: distorted '{}': frame ", cut)));
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
}

TEST(CliPipes, Y4mFromStandardInput) {
  VQX_REQUIRE_ENCODE("syn_h264.mkv", ref);
  VQX_REQUIRE_ENCODE("syn_vp9.webm", dis);
  auto files = csv(ref, dis);
  ASSERT_EQ(files.status, 0) << files.output;
  const std::string decode = fmt::format("ffmpeg -nostdin -v error -i '{}' -f yuv4mpegpipe -", dis);
  auto dash = run_shell(fmt::format("{} | VQX -r '{}' -d - -n -q --feature psnr --feature float_ssim --csv -o -", decode, ref));
  EXPECT_EQ(dash.status, 0) << dash.output;
  EXPECT_EQ(dash.output, files.output);
  auto dev_stdin = run_shell(
      fmt::format("{} | VQX -r '{}' -d /dev/stdin -n -q --feature psnr --feature float_ssim --csv -o -", decode, ref));
  EXPECT_EQ(dev_stdin.output, files.output);
}

TEST(CliPipes, BothInputsFromFifos) {
  VQX_REQUIRE_ENCODE("syn_h264.mkv", ref);
  VQX_REQUIRE_ENCODE("syn_hevc.hevc", dis);
  const std::string a = temp_path("ref.fifo"), b = temp_path("dis.fifo");
  std::remove(a.c_str());
  std::remove(b.c_str());
  auto r = run_shell(fmt::format(
      "mkfifo '{0}' '{1}' && (ffmpeg -nostdin -v error -i '{2}' -f yuv4mpegpipe - > '{0}' &) && "
      "(ffmpeg -nostdin -v error -i '{3}' -f yuv4mpegpipe - > '{1}' &) && VQX -r '{0}' -d '{1}' {4}",
      a, b, ref, dis, kPsnrCsv));
  EXPECT_EQ(r.status, 0) << r.output;
  const std::string expected = run_cli(fmt::format("-r '{}' -d '{}' {}", ref, dis, kPsnrCsv)).output;
  EXPECT_EQ(r.output, expected);
  // One process writing both FIFOs in turn, opening them in either order.
  for (const char* order : {"-map 0:v -f yuv4mpegpipe '{0}' -map 1:v -f yuv4mpegpipe '{1}'",
                            "-map 1:v -f yuv4mpegpipe '{1}' -map 0:v -f yuv4mpegpipe '{0}'"}) {
    SCOPED_TRACE(order);
    const std::string outputs = fmt::format(fmt::runtime(order), a, b);
    auto one_writer = run_shell(fmt::format("(ffmpeg -nostdin -v error -y -i '{}' -i '{}' {} &) && VQX -r '{}' -d '{}' {}",
                                            ref, dis, outputs, a, b, kPsnrCsv));
    EXPECT_EQ(one_writer.status, 0) << one_writer.output;
    EXPECT_EQ(one_writer.output, expected);
  }
}

TEST(CliPipes, CompressedStreamsFromPipes) {
  VQX_REQUIRE_ENCODE("syn_h264.mkv", ref);
  for (const char* file : {"syn_h264.ts", "syn_av1.ivf", "syn_h264.h264", "syn_vp9.webm", "syn_faststart.mp4"}) {
    SCOPED_TRACE(file);
    VQX_REQUIRE_ENCODE(file, dis);
    auto piped = run_shell(fmt::format("cat '{}' | VQX -r '{}' -d - {}", dis, ref, kPsnrCsv));
    EXPECT_EQ(piped.status, 0) << piped.output;
    EXPECT_EQ(piped.output, run_cli(fmt::format("-r '{}' -d '{}' {}", ref, dis, kPsnrCsv)).output);
  }
  auto both = run_shell(fmt::format("cat '{}' | VQX -r - -d /dev/fd/3 {} 3< '{}'", ref, kPsnrCsv, ref));
  EXPECT_EQ(both.status, 0) << both.output;
  EXPECT_THAT(both.output, HasSubstr("\n11,"));
}

TEST(CliPipes, PipeErrors) {
  VQX_REQUIRE_ENCODE("syn_h264.mkv", ref);
  VQX_REQUIRE_ENCODE("syn_moov_last.mp4", moov_last);
  auto mp4 = run_shell(fmt::format("cat '{}' | VQX -r '{}' -d - {}", moov_last, moov_last, kPsnrCsv));
  EXPECT_EQ(mp4.status, 2) << mp4.output;
  EXPECT_THAT(mp4.output, HasSubstr("distorted (standard input): an MP4/MOV read from a pipe needs its index (moov) "
                                    "before the media data"));
  auto both_stdin = run_cli(fmt::format("-r - -d - {}", kPsnrCsv));
  EXPECT_EQ(both_stdin.status, 1);
  EXPECT_THAT(both_stdin.output, HasSubstr("-r and -d cannot both read standard input"));
  auto cut = run_shell(fmt::format("head -c 3000 '{}.y4m' | VQX -r '{}' -d - {}", ref, ref, kPsnrCsv));
  EXPECT_EQ(cut.status, 2) << cut.output;
  EXPECT_THAT(cut.output, HasSubstr("distorted (standard input): frame 0 is truncated"));
  auto garbage = run_shell(fmt::format("echo not a video | VQX -r '{}' -d - {}", ref, kPsnrCsv));
  EXPECT_EQ(garbage.status, 2) << garbage.output;
  EXPECT_THAT(garbage.output, HasSubstr("distorted (standard input): not a Y4M file"));
  auto empty = run_shell(fmt::format("VQX -r '{}' -d - {} < /dev/null", ref, kPsnrCsv));
  EXPECT_EQ(empty.status, 2) << empty.output;
  EXPECT_THAT(empty.output, HasSubstr("distorted (standard input): file is empty"));
}

TEST(CliScale, ALadderRungScoresAsFfmpegsScaleOfIt) {
  VQX_REQUIRE_ENCODE("rung_1080p.mkv", reference);
  VQX_REQUIRE_ENCODE("rung_720p.mkv", rung);
  for (const char* mode : {"bicubic", "lanczos"}) {
    SCOPED_TRACE(mode);
    auto scaled = run_cli(fmt::format("-r {} -d {} --scale {} {}", reference, rung, mode, kPsnrCsv));
    auto expected = run_cli(fmt::format("-r {} -d {}.1920x1080.{}.y4m {}", reference, rung, mode, kPsnrCsv));
    ASSERT_EQ(scaled.status, 0) << scaled.output;
    EXPECT_EQ(scaled.output, expected.output);
  }
  VQX_REQUIRE_ENCODE("rung_720p10.mkv", rung10);
  auto scaled = run_cli(fmt::format("-r {0}.1920x1080.spline.y4m -d {0} --scale bicubic {1}", rung10, kPsnrCsv));
  auto expected = run_cli(fmt::format("-r {0}.1920x1080.spline.y4m -d {0}.1920x1080.bicubic.y4m {1}", rung10, kPsnrCsv));
  ASSERT_EQ(scaled.status, 0) << scaled.output;
  EXPECT_EQ(scaled.output, expected.output);
}

TEST(CliScale, AnotherSizeWithoutScaleNamesTheFlag) {
  VQX_REQUIRE_ENCODE("rung_1080p.mkv", reference);
  VQX_REQUIRE_ENCODE("rung_540p.mkv", rung);
  auto r = run_cli(fmt::format("-r {} -d {} {}", reference, rung, kPsnrCsv));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("geometry mismatch: reference is 1920x1080, distorted is 960x540; --scale bicubic"));
  auto bad = run_cli(fmt::format("-r {} -d {} --scale cubic {}", reference, rung, kPsnrCsv));
  EXPECT_EQ(bad.status, 1);
  EXPECT_THAT(bad.output, HasSubstr("--scale cubic: expected bicubic, bilinear, lanczos, spline or neighbor"));
  auto same = run_cli(fmt::format("-r {0} -d {0} --scale bicubic -n -q --feature psnr --json -o -", reference));
  EXPECT_EQ(same.status, 0) << same.output;
  EXPECT_THAT(same.output, HasSubstr("\"psnr_y\": 60"));
}

TEST(CliScale, PipedRungsScaleToo) {
  VQX_REQUIRE_ENCODE("rung_1080p.mkv", reference);
  VQX_REQUIRE_ENCODE("rung_540p.mkv", rung);
  auto piped = run_shell(fmt::format("cat '{}' | VQX -r '{}' -d - --scale bicubic {}", rung, reference, kPsnrCsv));
  EXPECT_EQ(piped.status, 0) << piped.output;
  EXPECT_EQ(piped.output, run_cli(fmt::format("-r {} -d {}.1920x1080.bicubic.y4m {}", reference, rung, kPsnrCsv)).output);
}

}  // namespace
}  // namespace vqx::test
