// vqx --segment START:COUNT --features_out and vqx merge: a clip scored in segments and merged
// gives the bytes of one run over the whole clip (the wall-clock fps line aside), at every kind
// of boundary: the clip's first frames (where temporal metrics have their first-frame special
// cases), its middle and its last frames; and merge refuses parts that do not form one clip.
#include <fmt/format.h>
#include <gmock/gmock.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/fixtures.h"
#include "support/shell.h"

namespace vqx::test {
namespace {

using ::testing::HasSubstr;

struct Config {
  std::string name;
  std::string args;  // features and models, as for a whole run
};

// Models with every temporal window (motion lag 1 and the five-frame window with its moving
// average), temporal features alone and with debug outputs, and non-temporal ones.
const std::vector<Config>& configs() {
  static const std::vector<Config> list = {
      {"default_model", ""},
      {"v1_3d0h", "-m version=vmaf_v1.0.16_3d0h"},
      {"hfr_five_frame_window", "-m version=vmaf_v1.0.16_hfr_3d0h"},
      {"motion_features", "-n --feature motion=debug=true --feature float_motion=debug=true --feature speed_temporal"},
      {"motion_moving_average", "-n --feature motion=motion_moving_average=true"},
      {"non_temporal", "-n --feature psnr --feature float_ssim --feature cambi"},
  };
  return list;
}

// The results without the wall-clock fps (JSON "fps", XML <fyi>), the one figure of a run that
// its frames do not decide.
std::string without_fps(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line))
    if (line.find("\"fps\"") == std::string::npos && line.find("<fyi ") == std::string::npos) out += line + "\n";
  return out;
}

class SegmentMerge : public ::testing::Test {
 public:
  static std::string inputs(const std::string& ref, const std::string& dis) {
    return fmt::format("-q --threads 1 -r '{}' -d '{}'", ref, dis);
  }
  // Scores the whole clip, then each segment of `bounds` (segment k is [bounds[k], bounds[k+1]),
  // the last one reaching past the clip's end), merges the parts and compares the bytes.
  static void expect_merge_equals_whole(const std::string& in, const Config& c, const std::vector<uint64_t>& bounds,
                                        const std::string& format, const std::string& label) {
    SCOPED_TRACE(fmt::format("{} {} {}", label, c.name, format));
    const std::string dir = temp_path(fmt::format("seg_{}_{}", label, c.name));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::string whole = dir + "/whole";
    CliResult run = run_cli(fmt::format("{} {} {} -o '{}'", in, c.args, format, whole));
    ASSERT_EQ(run.status, 0) << run.output;
    std::string parts;
    for (size_t k = 0; k < bounds.size(); ++k) {
      const uint64_t count = k + 1 < bounds.size() ? bounds[k + 1] - bounds[k] : 1000;
      const std::string part = fmt::format("{}/part{:04}.jsonl", dir, k);
      CliResult seg = run_cli(fmt::format("{} {} --segment {}:{} --features_out '{}'", in, c.args, bounds[k], count, part));
      ASSERT_EQ(seg.status, 0) << seg.output;
      parts = " '" + part + "'" + parts;  // merge takes the parts in any order
    }
    const std::string merged = dir + "/merged";
    CliResult merge = run_cli(fmt::format("merge{} {} -o '{}'", parts, format, merged));
    ASSERT_EQ(merge.status, 0) << merge.output;
    const std::string expected = read_file(whole), actual = read_file(merged);
    ASSERT_GT(expected.size(), 100u);
    EXPECT_EQ(without_fps(actual), without_fps(expected));
    if (format == "--csv") {
      EXPECT_EQ(actual, expected);  // no fps: the very bytes
    }
  }
};

// A short synthetic clip split at every point: into two parts at each boundary, and into
// one-frame parts (every boundary at once).
TEST_F(SegmentMerge, ShortClipAtEveryBoundary) {
  const PictureFormat f = make_format(232, 216);
  const std::string ref = temp_path("seg_ref.y4m"), dis = temp_path("seg_dis.y4m");
  write_y4m(ref, make_pictures(f, {1, 9, 4, 13, 2, 7, 11}));
  write_y4m(dis, make_pictures(f, {21, 5, 17, 3, 19, 8, 6}));
  const uint64_t frames = 7;
  std::vector<uint64_t> each_frame;
  for (uint64_t k = 0; k < frames; ++k) each_frame.push_back(k);
  for (const Config& c : configs()) expect_merge_equals_whole(inputs(ref, dis), c, each_frame, "--json", "short_each");
  // The widest temporal windows, also with the longer segments of a two-part split.
  for (const Config& c : {configs()[2], configs()[3]})
    for (uint64_t split = 1; split < frames; ++split)
      expect_merge_equals_whole(inputs(ref, dis), c, {0, split}, "--json", fmt::format("short_split{}", split));
}

// A fixture of `frames` frames: one-frame parts over the first six and the last five frames,
// where the first- and last-frame rules of the temporal metrics act, and longer parts between.
void expect_fixture_merges(const std::string& pair, const std::string& dir, uint64_t frames,
                           const std::vector<Config>& json_configs) {
  const std::string in = SegmentMerge::inputs(dir + "/ref.y4m", dir + "/dis.y4m");
  std::vector<uint64_t> bounds = {0, 1, 2, 3, 4, 5, 6, frames / 2, frames / 2 + 1};
  for (uint64_t k = frames - 5; k < frames; ++k) bounds.push_back(k);
  for (const Config& c : json_configs) SegmentMerge::expect_merge_equals_whole(in, c, bounds, "--json", pair);
  SegmentMerge::expect_merge_equals_whole(in, configs()[2], {0, frames / 3, frames * 2 / 3}, "--xml", pair + "_xml");
  SegmentMerge::expect_merge_equals_whole(in, configs()[0], {0, 2, frames - 3}, "--csv", pair + "_csv");
}

TEST_F(SegmentMerge, FixtureN576) {
  VQX_REQUIRE_FIXTURE("n576", dir);
  expect_fixture_merges("n576", dir, 48, configs());
}

TEST_F(SegmentMerge, FixtureOdd853) {
  VQX_REQUIRE_FIXTURE("odd853", dir);
  expect_fixture_merges("odd853", dir, 24, {configs()[1], configs()[3], configs()[5]});
}

class SegmentMergeErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    const PictureFormat f = make_format(64, 48);
    ref_ = temp_path("seg_err_ref.y4m");
    dis_ = temp_path("seg_err_dis.y4m");
    write_y4m(ref_, make_pictures(f, {1, 2, 3, 4, 5, 6}));
    write_y4m(dis_, make_pictures(f, {7, 8, 9, 10, 11, 12}));
  }
  std::string part(const std::string& range, const std::string& features = "--feature motion") {
    const std::string path = temp_path("seg_err_" + range + features.substr(10) + ".jsonl");
    CliResult r = run_cli(fmt::format("-q -n -r '{}' -d '{}' {} --segment {} --features_out '{}'", ref_, dis_,
                                      features, range, path));
    EXPECT_EQ(r.status, 0) << r.output;
    return path;
  }
  static void expect_merge_error(const std::string& parts, const std::string& text) {
    CliResult r = run_cli("merge " + parts + " --json");
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_THAT(r.output, HasSubstr("vqx: error: " + text));
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  }
  std::string ref_, dis_;
};

TEST_F(SegmentMergeErrors, GapOverlapAndMissingEnds) {
  const std::string a = part("0:2"), b = part("2:2"), c = part("4:2"), b2 = part("3:2");
  expect_merge_error(a + " " + c, "merge: frames 2..3 are in no part (a gap before " + c + ")");
  expect_merge_error(b + " " + c, "merge: frames 0..1 are in no part (a gap before " + b + ")");
  expect_merge_error(a + " " + b + " " + b2 + " " + c, "merge: frame 3 is in both " + b + " and " + b2);
  expect_merge_error(a + " " + b, "merge: the clip goes on after frame 3, the last frame of " + b);
  expect_merge_error(a + " " + b + " " + c + " " + part("5:3"), "merge: " + c + " ends the clip at frame 5, yet ");
  CliResult ok = run_cli(fmt::format("merge '{}' '{}' '{}' --csv", c, a, b));
  EXPECT_EQ(ok.status, 0) << ok.output;
  EXPECT_EQ(std::count(ok.output.begin(), ok.output.end(), '\n'), 7) << ok.output;
}

TEST_F(SegmentMergeErrors, MismatchedSettings) {
  const std::string a = part("0:3"), b = part("3:3", "--feature motion=motion_fps_weight=2");
  expect_merge_error(a + " " + b, "merge: the parts were run with different settings: " + a + " has features");
}

TEST_F(SegmentMergeErrors, TruncatedAndForeignParts) {
  const std::string a = part("0:3"), b = part("3:3");
  std::string text = read_file(b);
  const std::string cut = temp_path("seg_err_cut.jsonl");
  std::ofstream(cut, std::ios::binary) << text.substr(0, text.rfind("{\"end\""));
  expect_merge_error(a + " " + cut, cut + ": ends after 3 of its 3 frames, with no end line (truncated)");
  std::ofstream(cut, std::ios::binary) << text.substr(0, text.size() / 2);
  expect_merge_error(a + " " + cut, cut + ": line ");
  const std::string foreign = temp_path("seg_err_foreign.jsonl");
  std::ofstream(foreign, std::ios::binary) << "{\"frames\": []}\n";
  expect_merge_error(a + " " + foreign, foreign + ": line 1: not a vqx features part");
}

TEST_F(SegmentMergeErrors, SegmentOptions) {
  const std::string in = fmt::format("-q -n --feature psnr -r '{}' -d '{}'", ref_, dis_);
  const std::string out = temp_path("seg_err_opt.jsonl");
  auto expect_error = [](const CliResult& r, int status, const std::string& text) {
    EXPECT_EQ(r.status, status) << r.output;
    EXPECT_THAT(r.output, HasSubstr("vqx: error: "));
    EXPECT_THAT(r.output, HasSubstr(text));
  };
  expect_error(run_cli(in + " --segment 3 --features_out " + out), 1, "--segment 3: expected START:COUNT");
  expect_error(run_cli(in + " --segment 0:0 --features_out " + out), 1, "COUNT at least 1");
  expect_error(run_cli(in + " --segment 0:2"), 1, "--segment needs --features_out FILE");
  expect_error(run_cli(in + " --features_out " + out), 1, "--features_out needs --segment");
  expect_error(run_cli(in + " --segment 0:2 --features_out " + out + " -o x.json"), 1, "--segment writes only");
  expect_error(run_cli(in + " --segment 0:2 --subsample 2 --features_out " + out), 1, "--subsample");
  expect_error(run_cli(in + " --segment 6:2 --features_out " + out), 2, "--segment 6:2: ");
  expect_error(run_cli(fmt::format("-q -n --feature psnr=enable_apsnr=true -r '{}' -d '{}' --segment 0:2 "
                                   "--features_out {}",
                                   ref_, dis_, out)),
               1, "'apsnr_y' is a whole-clip value");
}

}  // namespace
}  // namespace vqx::test
