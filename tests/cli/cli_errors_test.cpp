// Every kind of bad input gets a one-line message and a non-zero exit status from the CLI:
// 1 for a malformed command line, 2 for input that cannot be scored.
#include <fmt/format.h>
#include <gmock/gmock.h>

#include <filesystem>
#include <fstream>

#include "engine/cuda_backend.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

using ::testing::HasSubstr;

class CliErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    good_ref_ = temp_path("good_ref.y4m");
    good_dis_ = temp_path("good_dis.y4m");
    auto f = make_format(64, 48);
    write_y4m(good_ref_, make_pictures(f, {1, 2}));
    write_y4m(good_dis_, make_pictures(f, {3, 4}));
  }
  static void write_text(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
  }
  // Runs with the good reference against `dis` (or the good pair plus `extra`).
  static CliResult score(const std::string& ref, const std::string& dis, const std::string& extra = "--feature psnr") {
    return run_cli(fmt::format("-r '{}' -d '{}' -n -q {}", ref, dis, extra));
  }
  static void expect_error(const CliResult& r, int status, const std::string& text) {
    EXPECT_EQ(r.status, status) << r.output;
    EXPECT_THAT(r.output, HasSubstr(text));
    EXPECT_THAT(r.output, HasSubstr("vqx: error: "));
  }
  std::string good_ref_, good_dis_;
};

TEST_F(CliErrors, MissingFile) {
  expect_error(score(good_ref_, "/nonexistent/dis.y4m"), 2, "cannot open: No such file or directory");
}

TEST_F(CliErrors, UnreadableFile) {
  auto dir = temp_path("a_directory.y4m");
  std::filesystem::create_directories(dir);
  expect_error(score(good_ref_, dir), 2, "is a directory");
}

TEST_F(CliErrors, NotY4m) {
  auto path = temp_path("garbage.y4m");
  write_text(path, "this is not a video\n");
  expect_error(score(good_ref_, path), 2, "not a Y4M file");
}

TEST_F(CliErrors, TruncatedHeader) {
  auto path = temp_path("trunc_header.y4m");
  write_text(path, "YUV4MPEG2 W64 H48 F25:1");
  expect_error(score(good_ref_, path), 2, "truncated Y4M header");
}

TEST_F(CliErrors, EmptyFile) {
  auto path = temp_path("empty.y4m");
  write_text(path, "");
  expect_error(score(good_ref_, path), 2, "file is empty");
}

TEST_F(CliErrors, MalformedHeaderTag) {
  auto path = temp_path("bad_width.y4m");
  write_text(path, "YUV4MPEG2 W6x4 H48 F25:1\n");
  expect_error(score(good_ref_, path), 2, "bad width tag 'W6x4'");
}

TEST_F(CliErrors, MissingFrameRate) {
  auto path = temp_path("no_rate.y4m");
  write_text(path, "YUV4MPEG2 W64 H48\n");
  expect_error(score(good_ref_, path), 2, "lacks the F");
}

TEST_F(CliErrors, InterlacedRefused) {
  auto path = temp_path("interlaced.y4m");
  write_y4m(path, make_pictures(make_format(64, 48), {3}), "", " It");
  // The writer always emits "Ip" first; a later "It" must still be refused.
  expect_error(score(good_ref_, path), 2, "interlaced input (It) is not supported");
}

TEST_F(CliErrors, UnsupportedColorSpace) {
  auto path = temp_path("c411.y4m");
  write_text(path, "YUV4MPEG2 W64 H48 F25:1 C411\n");
  expect_error(score(good_ref_, path), 2, "colour space C411 is not supported");
}

TEST_F(CliErrors, GeometryMismatch) {
  auto path = temp_path("geom.y4m");
  write_y4m(path, make_pictures(make_format(64, 50), {3}));
  expect_error(score(good_ref_, path), 2, "geometry mismatch: reference is 64x48, distorted is 64x50");
}

TEST_F(CliErrors, ChromaFormatMismatch) {
  auto path = temp_path("c444.y4m");
  write_y4m(path, make_pictures(make_format(64, 48, ChromaSubsampling::k444), {3}));
  expect_error(score(good_ref_, path), 2, "chroma format mismatch: reference is 4:2:0, distorted is 4:4:4");
}

TEST_F(CliErrors, BitDepthMismatch) {
  auto path = temp_path("p10.y4m");
  write_y4m(path, make_pictures(make_format(64, 48, ChromaSubsampling::k420, 10), {3}));
  expect_error(score(good_ref_, path), 2, "bit depth mismatch: reference is 8-bit, distorted is 10-bit");
}

TEST_F(CliErrors, TruncatedLastFrame) {
  auto path = temp_path("trunc_frame.y4m");
  write_y4m(path, make_pictures(make_format(64, 48), {3, 4}));
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 100);
  expect_error(score(good_ref_, path), 2, "frame 1 is truncated: 4508 of 4608 bytes");
}

TEST_F(CliErrors, MalformedFrameMarker) {
  auto path = temp_path("bad_marker.y4m");
  write_y4m(path, make_pictures(make_format(64, 48), {3}));
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(std::string("YUV4MPEG2 W64 H48 F25:1 Ip A1:1 C420jpeg\nFRAM").size());
  f.put('X');
  f.close();
  expect_error(score(good_ref_, path), 2, "frame 0: expected a FRAME marker");
}

TEST_F(CliErrors, ZeroFrames) {
  auto ref = temp_path("header_only_ref.y4m"), dis = temp_path("header_only_dis.y4m");
  write_text(ref, "YUV4MPEG2 W64 H48 F25:1 C420jpeg\n");
  write_text(dis, "YUV4MPEG2 W64 H48 F25:1 C420jpeg\n");
  expect_error(score(ref, dis), 2, "no frames to score");
}

TEST_F(CliErrors, AbsurdDimensions) {
  auto path = temp_path("huge.y4m");
  write_text(path, "YUV4MPEG2 W70000 H70000 F25:1\n");
  expect_error(score(good_ref_, path), 2, "exceeds the maximum of 65536 per side");
}

TEST_F(CliErrors, FrameSizeOverLimit) {
  auto path = temp_path("big.y4m");
  write_text(path, "YUV4MPEG2 W65536 H65536 F25:1 C444p16\n");
  expect_error(score(good_ref_, path), 2, "more than the limit");
}

TEST_F(CliErrors, RawYuvTruncated) {
  auto path = temp_path("raw.yuv");
  write_raw(path, make_pictures(make_format(64, 48), {3}));
  std::filesystem::resize_file(path, 1000);
  auto r = run_cli(fmt::format("-r '{}' -d '{}' -w 64 -h 48 -p 420 -b 8 -n -q --feature psnr", path, path));
  expect_error(r, 2, "frame 0 is truncated: 1000 of 4608 bytes");
}

TEST_F(CliErrors, RawYuvNeedsAllFlags) {
  expect_error(run_cli(fmt::format("-r '{}' -d '{}' -w 64 -h 48 -n --feature psnr", good_ref_, good_dis_)), 1,
               "raw YUV input needs all of -w, -h, -p and -b");
}

TEST_F(CliErrors, RawYuvBadPixelFormat) {
  expect_error(run_cli(fmt::format("-r a.yuv -d b.yuv -w 64 -h 48 -p 411 -b 8 -n --feature psnr")), 1,
               "--pixel_format 411");
}

TEST_F(CliErrors, RawYuvWithoutGeometry) {
  expect_error(run_cli("-r a.yuv -d b.yuv -n --feature psnr"), 1, "looks like raw YUV");
}

TEST_F(CliErrors, UnknownFeature) {
  expect_error(score(good_ref_, good_dis_, "--feature psnrr"), 1, "unknown feature 'psnrr'");
}

TEST_F(CliErrors, UnknownOptionKey) {
  expect_error(score(good_ref_, good_dis_, "--feature psnr=enable_chrome=true"), 1,
               "feature 'psnr' has no option 'enable_chrome'");
}

TEST_F(CliErrors, OptionOutOfRange) {
  expect_error(score(good_ref_, good_dis_, "--feature psnr=min_sse=-1"), 1, "option min_sse=-1 is invalid: must be in");
}

TEST_F(CliErrors, OptionWrongType) {
  expect_error(score(good_ref_, good_dis_, "--feature psnr=enable_chroma=yes"), 1,
               "option enable_chroma=yes is invalid: expected true or false");
  expect_error(score(good_ref_, good_dis_, "--feature psnr=min_sse=abc"), 1,
               "option min_sse=abc is invalid: expected a finite number");
}

TEST_F(CliErrors, OptionWithoutValue) {
  expect_error(score(good_ref_, good_dis_, "--feature psnr=enable_chroma"), 1, "bad option string \"enable_chroma\"");
}

TEST_F(CliErrors, DuplicateOutputNames) {
  expect_error(score(good_ref_, good_dis_, "--feature psnr --feature psnr"), 1, "would write 'psnr_y' a second time");
}

TEST_F(CliErrors, UnknownFlag) {
  expect_error(score(good_ref_, good_dis_, "--feature psnr --bogus"), 1, "--bogus");
}

TEST_F(CliErrors, ForkOnlyFlag) {
  expect_error(score(good_ref_, good_dis_, "--feature psnr --tiny-model x.onnx"), 1, "ONNX");
}

TEST_F(CliErrors, CtcPresetVersions) {
  expect_error(score(good_ref_, good_dis_, "--aom_ctc v8.0"), 1, "bad aom_ctc version \"v8.0\"");
  expect_error(score(good_ref_, good_dis_, "--aom_ctc proposed"), 1, "`--aom_ctc proposed` is deprecated.");
  expect_error(score(good_ref_, good_dis_, "--nflx_ctc v2.0"), 1, "bad nflx_ctc version \"v2.0\"");
  expect_error(score(good_ref_, good_dis_, "--aom_ctc"), 1, "--aom_ctc");
  // v7.0 replaces this float_ssim, and its own then writes float_ssim a second time: libvmaf
  // drops the second instance's values silently, vqx refuses the run.
  expect_error(score(good_ref_, good_dis_, "--feature float_ssim --aom_ctc v7.0"), 1,
               "would write 'float_ssim' a second time");
}

TEST_F(CliErrors, MissingInputs) { expect_error(run_cli("-n --feature psnr"), 1, "-r/--reference and -d/--distorted are required"); }

TEST_F(CliErrors, BadPrecision) {
  expect_error(score(good_ref_, good_dis_, "--feature psnr --precision 18"), 1, "--precision 18");
}

TEST_F(CliErrors, BadBackend) {
  expect_error(score(good_ref_, good_dis_, "--feature psnr --backend sycl"), 1, "not supported by vqx");
}

TEST_F(CliErrors, GpuFramesOutOfRange) {
  expect_error(score(good_ref_, good_dis_, "--feature psnr --gpu_frames 17"), 1, "--gpu_frames");
  expect_error(score(good_ref_, good_dis_, "--feature psnr --gpu_frames two"), 1, "--gpu_frames");
}

TEST_F(CliErrors, MemoryLimitMalformed) {
  for (const char* limit : {"12Q", "G", "0", "-4G", "99999999999999G"})
    expect_error(
        score(good_ref_, good_dis_, fmt::format("--feature psnr --memory_limit '{}'", limit)), 1,
        "--memory_limit");
}

// A pair of 64x48 4:2:0 frames is 9 KiB; two must fit.
TEST_F(CliErrors, MemoryLimitBelowTwoFrames) {
  expect_error(
      score(good_ref_, good_dis_, "--feature psnr --backend cpu --threads 4 --memory_limit 16K"), 1,
      "needs 18 KiB for 2 frames in flight (their pictures and the metrics' workspaces), above the "
      "memory limit of 16 KiB (--memory_limit)");
}

TEST_F(CliErrors, CudaUnavailable) {
  if (cuda_device_available(0)) GTEST_SKIP() << "a CUDA device is present";
  auto r = score(good_ref_, good_dis_, "--feature psnr --backend cuda");
  EXPECT_EQ(r.status, 3) << r.output;
  EXPECT_THAT(r.output, HasSubstr("CUDA"));
}

TEST_F(CliErrors, NoFeature) { expect_error(score(good_ref_, good_dis_, ""), 1, "no feature requested"); }

TEST_F(CliErrors, UnwritableOutput) {
  expect_error(score(good_ref_, good_dis_, "--feature psnr -o /nonexistent/dir/out.json"), 3,
               "cannot open output file");
}

}  // namespace
}  // namespace vqx::test
