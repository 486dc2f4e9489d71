// The HTML report's parts: thumbnails (box average, Y'CbCr to R'G'B'), their PNG encoding (read
// back by vqx's own PNG reader), base64, and the page: one panel per metric, the pooled values,
// the worst frames, and a 100,000-frame clip that stays small with its dips still in the plot.
#include "output/html_report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <sstream>

#include "io/readers.h"
#include "output/png_encoder.h"
#include "output/thumbnail.h"
#include "support/fixtures.h"

namespace vqx {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

Picture uniform(const PictureFormat& f, uint16_t y, uint16_t cb, uint16_t cr) {
  Picture p(f);
  const uint16_t values[3] = {y, cb, cr};
  for (unsigned plane = 0; plane < f.plane_count(); ++plane)
    for (size_t i = 0; i < size_t(f.plane_width(plane)) * f.plane_height(plane); ++i) {
      if (f.bytes_per_sample() == 1) p.plane<uint8_t>(plane)[i] = uint8_t(values[plane]);
      else p.plane<uint16_t>(plane)[i] = values[plane];
    }
  return p;
}

TEST(Thumbnail, SizeKeepsTheAspectAndNeverEnlarges) {
  const auto size = [](uint32_t w, uint32_t h) {
    const ThumbnailSize s = thumbnail_size(test::make_format(w, h), 256, 144);
    return std::pair(s.width, s.height);
  };
  EXPECT_EQ(size(1920, 1080), std::pair(256u, 144u));
  EXPECT_EQ(size(576, 324), std::pair(256u, 144u));
  EXPECT_EQ(size(3840, 1600), std::pair(256u, 107u));
  EXPECT_EQ(size(100, 50), std::pair(100u, 50u));
  EXPECT_EQ(size(4, 2000), std::pair(1u, 144u));
}

TEST(Thumbnail, LimitedRangeWhiteBlackAndRed) {
  const PictureFormat f = test::make_format(64, 36);
  const auto pixel = [&](uint16_t y, uint16_t cb, uint16_t cr) {
    const Thumbnail t = make_thumbnail(uniform(f, y, cb, cr), {8, 4});
    EXPECT_EQ(t.rgb.size(), 8u * 4 * 3);
    return std::vector<int>{t.rgb[0], t.rgb[1], t.rgb[2]};
  };
  EXPECT_EQ(pixel(235, 128, 128), (std::vector<int>{255, 255, 255}));
  EXPECT_EQ(pixel(16, 128, 128), (std::vector<int>{0, 0, 0}));
  // BT.601 red: Y' 81, Cb 90, Cr 240 (rounded codes, so within a step or two).
  const auto red = pixel(81, 90, 240);
  EXPECT_NEAR(red[0], 255, 2);
  EXPECT_NEAR(red[1], 0, 2);
  EXPECT_NEAR(red[2], 0, 2);
  // 10 bits: the same codes times four.
  const auto white10 = make_thumbnail(uniform(test::make_format(64, 36, ChromaSubsampling::k420, 10), 940, 512, 512), {8, 4});
  EXPECT_EQ(white10.rgb[0], 255);
}

TEST(Thumbnail, EachPixelIsTheAverageOfItsBox) {
  // A 4x2 grey frame (4:4:4, neutral chroma) to 2x1: each pixel averages a 2x2 box.
  PictureFormat f = test::make_format(4, 2, ChromaSubsampling::k444);
  f.range = ColorRange::kFull;
  Picture p = uniform(f, 0, 128, 128);
  const uint8_t luma[8] = {0, 100, 200, 255, 50, 50, 10, 255};
  std::copy(luma, luma + 8, p.plane<uint8_t>(0));
  const Thumbnail t = make_thumbnail(p, {2, 1});
  EXPECT_EQ(t.rgb[0], 50);                                    // (0 + 100 + 50 + 50) / 4
  EXPECT_EQ(t.rgb[3], uint8_t(std::lround((200 + 255 + 10 + 255) / 4.0)));  // 180
  EXPECT_EQ(t.rgb[3], t.rgb[4]);
}

TEST(PngEncoder, ReadsBackAsTheSamePixels) {
  Thumbnail t{7, 3, {}};
  for (size_t i = 0; i < 7 * 3 * 3; ++i) t.rgb.push_back(uint8_t(i * 37 + 11));
  std::string png = encode_png(t);
  ASSERT_EQ(png.substr(1, 3), "PNG");
  std::FILE* stream = fmemopen(png.data(), png.size(), "rb");
  ASSERT_NE(stream, nullptr);
  auto source = open_png_stream(stream, "thumbnail");
  ASSERT_EQ(source->format().width, 7u);
  ASSERT_EQ(source->format().height, 3u);
  Picture back(source->format());
  ASSERT_TRUE(source->read(back));
  for (size_t i = 0; i < 21; ++i)
    for (unsigned c = 0; c < 3; ++c) EXPECT_EQ(back.plane<uint8_t>(c)[i], t.rgb[i * 3 + c]) << i << " " << c;
}

TEST(HtmlReport, Base64) {
  EXPECT_EQ(base64(""), "");
  EXPECT_EQ(base64("f"), "Zg==");
  EXPECT_EQ(base64("fo"), "Zm8=");
  EXPECT_EQ(base64("foo"), "Zm9v");
  EXPECT_EQ(base64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64(std::string("\xff\x00\x80", 3)), "/wCA");
}

ReportContent content_for(const std::string& primary, std::vector<WorstFrame> worst) {
  ReportContent c;
  c.version = "vqx-test";
  c.reference = "ref<1>.y4m";
  c.distorted = "dis&.y4m";
  c.backend = "cpu (2 threads)";
  c.numbers = NumberFormat::Adaptive();
  c.percentiles = {5, 50};
  c.primary = primary;
  c.worst = std::move(worst);
  return c;
}

TEST(HtmlReport, PanelsTableAndWorstFrames) {
  ResultTable t;
  t.add_feature("psnr_y");
  t.add_feature("float_ssim");
  for (uint64_t f = 0; f < 5; ++f) {
    t.put(f, 0, 40.0 - double(f), 0);
    t.put(f, 1, 0.99, 0);
  }
  t.set_frame_count(5);
  WorstFrame w{4, 36.0, {}};
  w.thumbnails.reference = {2, 1, {1, 2, 3, 4, 5, 6}};
  w.thumbnails.distorted = {2, 1, {6, 5, 4, 3, 2, 1}};
  std::ostringstream out;
  write_html_report(out, t, content_for("psnr_y", {w}));
  const std::string html = out.str();
  EXPECT_EQ(count(html, "<svg class=\"plot\""), 2u);
  EXPECT_EQ(count(html, "<polyline class=\"line\""), 2u);
  EXPECT_EQ(count(html, "<img class=\"thumb reference\""), 1u);
  EXPECT_EQ(count(html, "<img class=\"thumb distorted\""), 1u);
  EXPECT_EQ(count(html, "data:image/png;base64,"), 2u);
  EXPECT_EQ(count(html, "<circle class=\"worst-mark\""), 1u);
  EXPECT_NE(html.find("<figure class=\"worst\" data-frame=\"4\">"), std::string::npos);
  EXPECT_NE(html.find("frame 4 · psnr_y 36.000000"), std::string::npos);
  // psnr_y: mean 38, harmonic mean, min 36, max 40, p5 36.2, p50 38.
  EXPECT_NE(html.find("<td>psnr_y</td><td>38.000000</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("<td>36.000000</td><td>40.000000</td><td>36.200000</td><td>38.000000</td>"), std::string::npos);
  EXPECT_NE(html.find("<th>p5</th><th>p50</th>"), std::string::npos);
  EXPECT_NE(html.find("ref&lt;1&gt;.y4m"), std::string::npos);
  EXPECT_NE(html.find("dis&amp;.y4m"), std::string::npos);
  // Self-contained: nothing is fetched.
  EXPECT_EQ(html.find("http"), std::string::npos);
  EXPECT_EQ(html.find(" src=\"h"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
}

// 100,000 frames of three metrics: the page stays small, and each single-frame dip is still a
// value of the plot data (a bucket's min).
TEST(HtmlReport, AHundredThousandFramesStaySmallAndKeepTheirDips) {
  constexpr uint64_t kFrames = 100000;
  ResultTable t;
  for (const char* name : {"vmaf", "psnr_y", "float_ssim"}) t.add_feature(name);
  for (uint64_t f = 0; f < kFrames; ++f) {
    t.put(f, 0, 90.0 + double(f % 5) * 0.5, 0);
    t.put(f, 1, 40.0 + double(f % 3), 0);
    t.put(f, 2, 0.98, 0);
  }
  t.put(31337, 0, 12.25, 0);
  t.put(99999, 0, 7.5, 0);
  t.set_frame_count(kFrames);
  std::ostringstream out;
  write_html_report(out, t, content_for("vmaf", {}));
  const std::string html = out.str();
  EXPECT_LT(html.size(), 400u * 1024) << "the report of a 100,000-frame clip is " << html.size() << " bytes";
  EXPECT_EQ(count(html, "<svg class=\"plot\""), 3u);
  const size_t data = html.find("id=\"vqx-plot-data\"");
  ASSERT_NE(data, std::string::npos);
  EXPECT_NE(html.find(",12.250000,", data), std::string::npos);
  EXPECT_NE(html.find(",7.500000,", data), std::string::npos);
  // The polyline reaches the bottom of the vmaf panel (its minimum, 7.5) once.
  const std::string first_panel = html.substr(0, html.find("</svg>"));
  EXPECT_EQ(count(first_panel, ",128.0 "), 1u);
}

}  // namespace
}  // namespace vqx
