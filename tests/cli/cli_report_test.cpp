// --report on every input kind: the worst frames are those of the run's own scores, and each
// thumbnail is, pixel for pixel, the thumbnail of the frame as scored (read here from the same
// input, or from ffmpeg's Y4M decode of a compressed one); the page holds one plot per metric and
// the pooled values of the JSON output; and the flag's errors.
#include <fmt/format.h>
#include <gmock/gmock.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <numeric>

#include "io/readers.h"
#include "output/thumbnail.h"
#include "support/encodes.h"
#include "support/fixtures.h"
#include "support/shell.h"

namespace vqx::test {
namespace {

using ::testing::HasSubstr;

std::string unbase64(const std::string& text) {
  static const std::string kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    if (c == '=') break;
    bits = bits << 6 | uint32_t(kAlphabet.find(c));
    if ((count += 6) >= 8) out += char((bits >> (count -= 8)) & 0xff);
  }
  return out;
}

struct ShownFrame {
  uint64_t frame;
  Picture reference, distorted;  // the thumbnails as the page's PNGs decode
};

Picture decode_png(std::string png) {
  std::FILE* stream = fmemopen(png.data(), png.size(), "rb");
  auto source = open_png_stream(stream, "thumbnail");
  Picture picture(source->format());
  EXPECT_TRUE(source->read(picture));
  return picture;
}

// The text between `before` and the next `after`, from `at` on (which moves past it).
std::string between(const std::string& text, size_t& at, const std::string& before, const std::string& after) {
  const size_t begin = text.find(before, at);
  if (begin == std::string::npos) return {};
  const size_t end = text.find(after, begin + before.size());
  at = end;
  return text.substr(begin + before.size(), end - begin - before.size());
}

// Each worst-frame figure's frame and its two thumbnails, in page order. (std::regex recurses per
// character and overflows the stack on a data URL.)
std::vector<ShownFrame> shown_frames(const std::string& html) {
  const std::string figure = "<figure class=\"worst\" data-frame=\"";
  std::vector<ShownFrame> out;
  for (size_t at = html.find(figure); at != std::string::npos; at = html.find(figure, at)) {
    const uint64_t frame = std::stoull(between(html, at, figure, "\""));
    const std::string ref = between(html, at, "<img class=\"thumb reference\"", ">");
    const std::string dis = between(html, at, "<img class=\"thumb distorted\"", ">");
    size_t in = 0, in_dis = 0;
    const std::string data = "src=\"data:image/png;base64,";
    out.push_back({frame, decode_png(unbase64(between(ref, in, data, "\""))),
                   decode_png(unbase64(between(dis, in_dis, data, "\"")))});
  }
  return out;
}

// Frame `index` of a source that holds frames in order.
Picture frame_of(FrameSource& source, uint64_t index) {
  Picture picture(source.format());
  for (uint64_t f = 0; f <= index; ++f) EXPECT_TRUE(source.read(picture)) << "frame " << f;
  return picture;
}

// The thumbnail's pixels equal make_thumbnail of the frame, at the size the page shows.
void expect_thumbnail_of(const Picture& shown, const Picture& frame, const std::string& what) {
  const PictureFormat& f = shown.format();
  ASSERT_LE(f.width, 256u);
  ASSERT_LE(f.height, 144u);
  const ThumbnailSize expected_size = thumbnail_size(frame.format(), 256, 144);
  EXPECT_EQ(f.width, expected_size.width) << what;
  EXPECT_EQ(f.height, expected_size.height) << what;
  const Thumbnail t = make_thumbnail(frame, {f.width, f.height});
  size_t differ = 0;
  for (size_t i = 0; i < size_t(f.width) * f.height; ++i)
    for (unsigned c = 0; c < 3; ++c) differ += shown.plane<uint8_t>(c)[i] != t.rgb[i * 3 + c];
  EXPECT_EQ(differ, 0u) << what << ": the thumbnail is not the frame as scored";
}

// Each shown frame's two thumbnails are those of the frame at its index in the Y4M files.
void expect_thumbnails_of_y4m(const std::vector<ShownFrame>& shown, const std::string& ref_y4m,
                              const std::string& dis_y4m) {
  for (const auto& s : shown) {
    auto ref = open_y4m(ref_y4m, "reference");
    auto dis = open_y4m(dis_y4m, "distorted");
    expect_thumbnail_of(s.reference, frame_of(*ref, s.frame), fmt::format("reference frame {}", s.frame));
    expect_thumbnail_of(s.distorted, frame_of(*dis, s.frame), fmt::format("distorted frame {}", s.frame));
  }
}

// The frames of the `count` lowest (highest with `higher_worse`) values of `feature` in a JSON
// output, ties to the earlier frame.
std::vector<uint64_t> worst_in_json(const nlohmann::json& json, const std::string& feature, size_t count,
                                    bool higher_worse = false) {
  std::vector<std::pair<double, uint64_t>> scores;
  for (const auto& frame : json["frames"])
    scores.emplace_back(frame["metrics"][feature].get<double>(), frame["frameNum"].get<uint64_t>());
  std::stable_sort(scores.begin(), scores.end(), [&](const auto& a, const auto& b) {
    return higher_worse ? a.first > b.first : a.first < b.first;
  });
  std::vector<uint64_t> out;
  for (size_t i = 0; i < std::min(count, scores.size()); ++i) out.push_back(scores[i].second);
  return out;
}

std::vector<uint64_t> frames_of(const std::vector<ShownFrame>& shown) {
  std::vector<uint64_t> out;
  for (const auto& s : shown) out.push_back(s.frame);
  return out;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Runs vqx with `args`, a JSON output and a report; returns the parsed JSON and the page.
std::pair<nlohmann::json, std::string> run_with_report(const std::string& args, const std::string& name) {
  const std::string json = temp_path(name + ".json"), html = temp_path(name + ".html");
  const auto r = run_cli(fmt::format("{} -q --threads 2 --json -o {} --report {}", args, json, html));
  EXPECT_EQ(r.status, 0) << r.output;
  if (r.status != 0) return {};
  return {nlohmann::json::parse(read_file(json)), read_file(html)};
}

TEST(CliReport, VmafWorstFramesAreTheRunsLowestWithTheirOwnPixels) {
  VQX_REQUIRE_FIXTURE("n576", dir);
  const auto [json, html] = run_with_report(fmt::format("-r {0}/ref.y4m -d {0}/dis.y4m", dir), "report_vmaf");
  ASSERT_FALSE(html.empty());
  const auto shown = shown_frames(html);
  ASSERT_EQ(shown.size(), 6u);
  EXPECT_EQ(frames_of(shown), worst_in_json(json, "vmaf", 6));
  expect_thumbnails_of_y4m(shown, dir + "/ref.y4m", dir + "/dis.y4m");
  // One panel per metric of the JSON output, the vmaf one first; the pooled values as there.
  EXPECT_EQ(count(html, "<svg class=\"plot\""), json["pooled_metrics"].size());
  EXPECT_NE(html.find("<div class=\"plots\">\n<div class=\"panel\" data-metric=\"vmaf\">"), std::string::npos);
  const double mean = json["pooled_metrics"]["vmaf"]["mean"].get<double>();
  EXPECT_THAT(html, HasSubstr(fmt::format("<td>vmaf</td><td>{:.6f}</td>", mean)));
  EXPECT_THAT(html, HasSubstr("<th>p1</th><th>p5</th><th>p50</th><th>p95</th><th>p99</th>"));
  EXPECT_EQ(count(html, "<circle class=\"worst-mark\""), 6u);
}

TEST(CliReport, RawYuvFeaturesOnlyAndFewerWorstFrames) {
  VQX_REQUIRE_FIXTURE("n576", dir);
  std::vector<Picture> ref, dis;
  auto ref_y4m = open_y4m(dir + "/ref.y4m", "reference");
  auto dis_y4m = open_y4m(dir + "/dis.y4m", "distorted");
  for (int f = 0; f < 12; ++f) {
    ref.emplace_back(ref_y4m->format());
    dis.emplace_back(dis_y4m->format());
    ASSERT_TRUE(ref_y4m->read(ref.back()) && dis_y4m->read(dis.back()));
  }
  const std::string ref_raw = temp_path("report_ref.yuv"), dis_raw = temp_path("report_dis.yuv");
  write_raw(ref_raw, ref);
  write_raw(dis_raw, dis);
  const auto [json, html] = run_with_report(
      fmt::format("-r {} -d {} -w 576 -h 324 -p 420 -b 8 -n --feature psnr --report_worst 3", ref_raw, dis_raw),
      "report_raw");
  ASSERT_FALSE(html.empty());
  const auto shown = shown_frames(html);
  ASSERT_EQ(shown.size(), 3u);
  EXPECT_EQ(frames_of(shown), worst_in_json(json, "psnr_y", 3));  // the first feature is the primary one
  EXPECT_THAT(html, HasSubstr("The 3 worst frames by psnr_y"));
  for (const auto& s : shown) {
    expect_thumbnail_of(s.reference, ref[s.frame], "reference");
    expect_thumbnail_of(s.distorted, dis[s.frame], "distorted");
  }
}

TEST(CliReport, PngPair) {
  VQX_REQUIRE_FIXTURE("n576", dir);
  const std::string ref = dir + "/png/ref_f010.png", dis = dir + "/png/dis_f010.png";
  const auto [json, html] = run_with_report(fmt::format("-r {} -d {} -n --feature float_ssim", ref, dis), "report_png");
  ASSERT_FALSE(html.empty());
  const auto shown = shown_frames(html);
  ASSERT_EQ(shown.size(), 1u);
  EXPECT_EQ(shown[0].frame, 0u);
  auto ref_png = open_png(ref, "reference");
  auto dis_png = open_png(dis, "distorted");
  expect_thumbnail_of(shown[0].reference, frame_of(*ref_png, 0), "reference");
  expect_thumbnail_of(shown[0].distorted, frame_of(*dis_png, 0), "distorted");
}

TEST(CliReport, CompressedInputsShowTheirDecodedFrames) {
  VQX_REQUIRE_ENCODE("syn_h264.mkv", ref);
  VQX_REQUIRE_ENCODE("syn_vp9.webm", dis);
  const auto [json, html] = run_with_report(fmt::format("-r {} -d {} -n --feature psnr", ref, dis), "report_av");
  ASSERT_FALSE(html.empty());
  const auto shown = shown_frames(html);
  ASSERT_EQ(shown.size(), 6u);
  EXPECT_EQ(frames_of(shown), worst_in_json(json, "psnr_y", 6));
  expect_thumbnails_of_y4m(shown, ref + ".y4m", dis + ".y4m");
}

TEST(CliReport, SubsampledFramesAndCambiWhereMoreIsWorse) {
  VQX_REQUIRE_FIXTURE("n576", dir);
  const auto [json, html] = run_with_report(
      fmt::format("-r {0}/ref.y4m -d {0}/dis.y4m -n --feature cambi --subsample 3 --frame_cnt 24", dir),
      "report_cambi");
  ASSERT_FALSE(html.empty());
  const auto shown = shown_frames(html);
  ASSERT_EQ(shown.size(), 6u);
  EXPECT_EQ(frames_of(shown), worst_in_json(json, "cambi", 6, true));
  for (const auto& s : shown) EXPECT_EQ(s.frame % 3, 0u) << s.frame;
}

TEST(CliReport, Errors) {
  VQX_REQUIRE_FIXTURE("n576", dir);
  const std::string inputs = fmt::format("-r {0}/ref.y4m -d {0}/dis.y4m -n --feature psnr -q", dir);
  auto r = run_cli(inputs + " --report -");
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.output, HasSubstr("--report -: give the report a file of its own"));
  r = run_cli(inputs + " --report x.html --decoder nvdec");
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.output, HasSubstr("--decoder nvdec keeps them in device memory"));
  r = run_cli(inputs + " --report x.html --report_worst 65");
  EXPECT_EQ(r.status, 1);
  r = run_cli(inputs + " --frame_cnt 2 --report /nonexistent-dir/report.html");
  EXPECT_EQ(r.status, 3);
  EXPECT_THAT(r.output, HasSubstr("/nonexistent-dir/report.html"));
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
}

}  // namespace
}  // namespace vqx::test
