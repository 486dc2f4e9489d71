// --gpu A,B,...: the clip split over several devices (here device 0 listed more than once, on
// whichever backend the run gets) writes what a run on one device writes: the very bytes of CSV,
// JSON but for the wall-clock fps; and what cannot be split is refused with one line.
#include <fmt/format.h>
#include <gmock/gmock.h>

#include <sstream>

#include "support/fixtures.h"
#include "support/shell.h"

namespace vqx::test {
namespace {

using ::testing::HasSubstr;

std::string without_fps(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line))
    if (line.find("\"fps\"") == std::string::npos) out += line + "\n";
  return out;
}

// Runs `args` on --gpu 0 and on each of `lists`; every output must equal the first.
void expect_same_as_one_device(const std::string& args, const std::vector<std::string>& lists,
                               const std::string& label) {
  for (const std::string format : {"--csv", "--json"}) {
    const std::string one = temp_path(fmt::format("gpu_{}_one", label));
    CliResult r = run_cli(fmt::format("{} {} --gpu 0 -o '{}'", args, format, one));
    ASSERT_EQ(r.status, 0) << r.output;
    const std::string expected = read_file(one);
    ASSERT_GT(expected.size(), 200u);
    for (const auto& list : lists) {
      SCOPED_TRACE(fmt::format("{} --gpu {} {}", label, list, format));
      const std::string split = temp_path(fmt::format("gpu_{}_split", label));
      r = run_cli(fmt::format("{} {} --gpu {} -o '{}'", args, format, list, split));
      ASSERT_EQ(r.status, 0) << r.output;
      if (format == std::string("--csv")) {
        EXPECT_EQ(read_file(split), expected);
      } else {
        EXPECT_EQ(without_fps(read_file(split)), without_fps(expected));
      }
    }
  }
}

TEST(CliMultiDevice, ShortClipOnRepeatedDevice) {
  const PictureFormat f = make_format(232, 216);
  const std::string ref = temp_path("gpu_ref.y4m"), dis = temp_path("gpu_dis.y4m");
  write_y4m(ref, make_pictures(f, {1, 9, 4, 13, 2, 7, 11}));
  write_y4m(dis, make_pictures(f, {21, 5, 17, 3, 19, 8, 6}));
  // More slots than frames: one frame per slot.
  expect_same_as_one_device(fmt::format("-q --threads 2 -r '{}' -d '{}' -m version=vmaf_v1.0.16_hfr_3d0h "
                                        "--feature float_motion --feature speed_temporal --feature psnr",
                                        ref, dis),
                            {"0,0", "0,0,0", "0,0,0,0,0,0,0,0,0"}, "short");
}

TEST(CliMultiDevice, FixtureOnRepeatedDevice) {
  VQX_REQUIRE_FIXTURE("n576", dir);
  expect_same_as_one_device(fmt::format("-q --threads 2 -r '{}/ref.y4m' -d '{}/dis.y4m'", dir, dir), {"0,0", "0,0,0"},
                            "n576");
}

TEST(CliMultiDevice, RefusesWhatCannotBeSplit) {
  const PictureFormat f = make_format(64, 48);
  const std::string ref = temp_path("gpu_err_ref.y4m"), dis = temp_path("gpu_err_dis.y4m");
  write_y4m(ref, make_pictures(f, {1, 2, 3}));
  write_y4m(dis, make_pictures(f, {4, 5, 6}));
  const std::string in = fmt::format("-q -n --feature psnr -r '{}' -d '{}' -o -", ref, dis);
  auto expect_error = [](const CliResult& r, const std::string& text) {
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_THAT(r.output, HasSubstr("vqx: error: " + text));
  };
  expect_error(run_cli(in + " --gpu 0,x"), "--gpu 0,x: expected a device index, a list A,B,... or all");
  expect_error(run_cli(in + " --gpu 0,"), "--gpu 0,: expected");
  expect_error(run_cli(in + " --gpu 0,0 --subsample 2"), "--gpu with several devices splits the clip");
  expect_error(run_cli(in + " --gpu 0,0 --ndjson " + temp_path("gpu.ndjson")), "--gpu with several devices");
  expect_error(run_cli(fmt::format("-q -n --feature psnr -r - -d '{}' -o - --gpu 0,0 < '{}'", dis, ref)),
               "--gpu with several devices needs inputs whose frame count the files tell");
}

}  // namespace
}  // namespace vqx::test
