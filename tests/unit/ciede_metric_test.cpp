// ciede as a metric: chroma repetition for every layout (4:2:2 is a documented deviation), refused
// inputs, and the score of identical pictures.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "core/error.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

// The 4:4:4 picture whose chroma sample (x, y) is `p`'s (x >> sx, y >> sy).
Picture repeat_chroma(const Picture& p, unsigned sx, unsigned sy) {
  const PictureFormat& f = p.format();
  PictureFormat full = f;
  full.subsampling = ChromaSubsampling::k444;
  Picture out(full);
  for (unsigned plane = 0; plane < 3; ++plane)
    for (uint32_t y = 0; y < f.height; ++y)
      for (uint32_t x = 0; x < f.width; ++x) {
        const size_t to = size_t(y) * f.width + x;
        const size_t from = plane == 0 ? to : size_t(y >> sy) * f.plane_width(plane) + (x >> sx);
        if (f.bytes_per_sample() == 1)
          out.plane<uint8_t>(plane)[to] = p.plane<uint8_t>(plane)[from];
        else
          out.plane<uint16_t>(plane)[to] = p.plane<uint16_t>(plane)[from];
      }
  return out;
}

double ciede_of(Picture ref, Picture dis) {
  std::vector<Picture> r, d;
  r.push_back(std::move(ref));
  d.push_back(std::move(dis));
  return column(*run_on_pictures(r, d, {"ciede"}), "ciede2000")[0];
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Ramps with noise of a quarter of the range: every chroma sample differs from its neighbours.
Picture noisy(const PictureFormat& f, uint32_t seed) {
  return make_picture(f, seed, (1 << f.bit_depth) / 4);
}

void expect_same_as_repeated(ChromaSubsampling s, unsigned sx, unsigned sy, uint8_t bits) {
  const PictureFormat f =
      make_format(17, 9, s, bits);  // odd sizes: the last chroma column is whole
  const double sub = ciede_of(noisy(f, 1), noisy(f, 2));
  const double full =
      ciede_of(repeat_chroma(noisy(f, 1), sx, sy), repeat_chroma(noisy(f, 2), sx, sy));
  EXPECT_TRUE(same_bits(sub, full))
      << to_string(s) << " " << int(bits) << ": " << sub << " vs " << full;
  EXPECT_TRUE(std::isfinite(sub));
}

TEST(Ciede, Chroma420IsRepeatedToLumaResolution) {
  expect_same_as_repeated(ChromaSubsampling::k420, 1, 1, 8);
  expect_same_as_repeated(ChromaSubsampling::k420, 1, 1, 10);
}

// Deviation: upstream's 4:2:2 path reads the wrong chroma rows and columns; vqx repeats each
// chroma sample horizontally.
TEST(Ciede, Chroma422IsRepeatedHorizontally) {
  expect_same_as_repeated(ChromaSubsampling::k422, 1, 0, 8);
  expect_same_as_repeated(ChromaSubsampling::k422, 1, 0, 12);
}

TEST(Ciede, IdenticalPicturesScoreInfinity) {
  const PictureFormat f = make_format(16, 8, ChromaSubsampling::k444, 16);
  const double score = ciede_of(noisy(f, 3), noisy(f, 3));
  EXPECT_TRUE(std::isinf(score) && score > 0) << score;
}

TEST(Ciede, RefusesInputWithoutYCbCrChroma) {
  auto mono = make_pictures(make_format(16, 16, ChromaSubsampling::k400), {1});
  EXPECT_THROW(run_on_pictures(mono, mono, {"ciede"}), InputError);
  PictureFormat rgb = make_format(16, 16, ChromaSubsampling::k444);
  rgb.color = ColorModel::kRGB;
  auto rgb_pics = make_pictures(rgb, {1});
  EXPECT_THROW(run_on_pictures(rgb_pics, rgb_pics, {"ciede"}), InputError);
}

}  // namespace
}  // namespace vqx::test
