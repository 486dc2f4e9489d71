// ciede as a metric: chroma repetition for every layout (4:2:2 is a documented deviation), refused
// inputs, the score of identical pictures, and the metric's reuse of converted colours and its
// zero for equal colours against the per-pixel formula.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "core/error.h"
#include "metrics/ciede/ciede_math.h"
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

// The metric scores a pair of equal colours 0 without converting them: exact, as CIEDE2000 of any
// colour with itself is +0 (every term is a zero numerator over a positive weight).
TEST(Ciede, AColourAgainstItselfIsPositiveZero) {
  for (unsigned bits : {8u, 10u, 12u, 16u}) {
    const uint32_t max = (1u << bits) - 1, step = bits == 8 ? 5 : max / 37;
    for (uint32_t y = 0; y <= max; y += step)
      for (uint32_t u = 0; u <= max; u += step)
        for (uint32_t v = 0; v <= max; v += step) {
          const ciede::Lab lab = ciede::yuv_to_lab(float(y), float(u), float(v), bits);
          const float d = ciede::ciede2000(lab, lab);
          ASSERT_TRUE(d == 0.0f && !std::signbit(d)) << bits << "-bit " << y << " " << u << " " << v;
        }
  }
}

// Runs of repeated colours and equal pixels (what the metric's shortcuts take) give the score of
// the plain per-pixel formula summed in raster order.
TEST(Ciede, RepeatedAndEqualColoursScoreAsThePerPixelFormula) {
  for (uint8_t bits : {uint8_t(8), uint8_t(10)}) {
    const PictureFormat f = make_format(37, 11, ChromaSubsampling::k444, bits);
    Picture ref = noisy(f, 3), dis = noisy(f, 4);
    const size_t n = size_t(f.width) * f.height;
    for (size_t i = 0; i < n; ++i)
      for (unsigned p = 0; p < 3; ++p) {
        auto set = [&](auto* ref_plane, auto* dis_plane) {
          if (i % 5 == 1) ref_plane[i] = ref_plane[i - 1];  // a run of one colour
          if (i % 3 == 0) dis_plane[i] = ref_plane[i];      // an equal pixel
        };
        if (bits == 8)
          set(ref.plane<uint8_t>(p), dis.plane<uint8_t>(p));
        else
          set(ref.plane<uint16_t>(p), dis.plane<uint16_t>(p));
      }
    auto sample = [&](const Picture& pic, unsigned p, size_t i) {
      return bits == 8 ? float(pic.plane<uint8_t>(p)[i]) : float(pic.plane<uint16_t>(p)[i]);
    };
    std::vector<float> de00(n);
    for (size_t i = 0; i < n; ++i)
      de00[i] = ciede::ciede2000(
          ciede::yuv_to_lab(sample(ref, 0, i), sample(ref, 1, i), sample(ref, 2, i), bits),
          ciede::yuv_to_lab(sample(dis, 0, i), sample(dis, 1, i), sample(dis, 2, i), bits));
    const double want = ciede::score_from_sum(ciede::sequential_sum(de00), f.width, f.height);
    EXPECT_TRUE(same_bits(ciede_of(std::move(ref), std::move(dis)), want)) << int(bits);
  }
}

}  // namespace
}  // namespace vqx::test
