// CAMBI stages (src/metrics/cambi/cambi_stages.h) against the spec's tables and against direct
// implementations of each definition written here, on seeded random planes and edge sizes.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <array>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "core/thread_pool.h"
#include "metrics/cambi/cambi_stages.h"
#include "support/fixtures.h"

namespace vqx::cambi {
namespace {

// ---- Tables (spec 3, 6.3.1) ------------------------------------------------------------------

TEST(CambiReciprocalLut, MatchesSpecDataFileEntryByEntry) {
  std::ifstream in(test::shared_dir() + "/spec/data/cambi_reciprocal_lut.txt");
  ASSERT_TRUE(in) << "cannot read the spec's cambi_reciprocal_lut.txt";
  const auto& lut = reciprocal_lut();
  std::string line;
  int entries = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    int index = 0;
    std::string hex;
    fields >> index >> hex;
    ASSERT_EQ(index, entries);
    const uint32_t bits = uint32_t(std::stoul(hex, nullptr, 16));
    ASSERT_EQ(std::bit_cast<uint32_t>(lut[size_t(index)]), bits) << "R[" << index << "]";
    ++entries;
  }
  EXPECT_EQ(entries, kReciprocalLutSize);
}

TEST(CambiReciprocalLut, FollowsTheNineDigitRuleWith42OffByOneEntries) {
  const auto& lut = reciprocal_lut();
  EXPECT_EQ(std::bit_cast<uint32_t>(lut[0]), 0u);
  int off_by_one = 0;
  for (int i = 1; i < kReciprocalLutSize; ++i) {
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", 1.0 / i);
    ASSERT_EQ(std::bit_cast<uint32_t>(lut[size_t(i)]),
              std::bit_cast<uint32_t>(std::strtof(text, nullptr)))
        << i;
    const int32_t delta = int32_t(std::bit_cast<uint32_t>(lut[size_t(i)]) -
                                  std::bit_cast<uint32_t>(1.0f / float(i)));
    ASSERT_LE(std::abs(delta), 1) << i;
    off_by_one += delta != 0;
  }
  EXPECT_EQ(off_by_one, 42);
  EXPECT_EQ(std::bit_cast<uint32_t>(lut[82]), 0x3c47ce0du);
  EXPECT_EQ(std::bit_cast<uint32_t>(lut[4224]), 0x39783e0fu);
}

TEST(CambiInit, Bt1886EndPoints) {
  EXPECT_EQ(luminance(Eotf::kBt1886, 940), 300.0);
  EXPECT_EQ(luminance(Eotf::kBt1886, 64), 0.0099999999999999985);
  EXPECT_EQ(luminance(Eotf::kBt1886, 1000), 300.0);  // clipped to 940
}

TEST(CambiInit, TviTableOfTheSpec) {
  const int bt1886[] = {178, 305, 432, 559, 686, 813};
  for (int d = 1; d <= 32; ++d) {
    EXPECT_EQ(tvi_threshold_code(Eotf::kBt1886, 0.019, d), d <= 6 ? bt1886[d - 1] : 1023) << d;
    EXPECT_EQ(tvi_threshold_code(Eotf::kPq, 0.019, d), d == 1 ? 233 : 1023) << d;
  }
  LevelParams p = make_level_params(Eotf::kBt1886, 0.019, 2, 0.0);
  EXPECT_EQ(p.num_diffs, 4);
  EXPECT_EQ((std::array<int, 4>{p.tvi[0], p.tvi[1], p.tvi[2], p.tvi[3]}),
            (std::array<int, 4>{182, 309, 436, 563}));
  EXPECT_EQ(p.base, 0);
  EXPECT_EQ(p.band, 564);
  LevelParams pq = make_level_params(Eotf::kPq, 0.019, 3, 0.0);
  EXPECT_EQ(pq.band, 1023 + 8 + 1);
  EXPECT_EQ(pq.diff_weights[7], 6);
}

TEST(CambiInit, VisibilityLumaThreshold) {
  EXPECT_EQ(vis_lum_threshold_code(Eotf::kBt1886, 0.0), 0);
  EXPECT_EQ(vis_lum_threshold_code(Eotf::kBt1886, 0.1), 84);
  EXPECT_EQ(vis_lum_threshold_code(Eotf::kBt1886, 1.0), 135);
  EXPECT_EQ(vis_lum_threshold_code(Eotf::kBt1886, 10.0), 268);
  EXPECT_EQ(vis_lum_threshold_code(Eotf::kPq, 0.1), 119);
  EXPECT_EQ(vis_lum_threshold_code(Eotf::kPq, 1.0), 196);
  EXPECT_EQ(vis_lum_threshold_code(Eotf::kPq, 10.0), 327);
  // The bound (quirk 9): the largest accepted threshold is reached exactly at 940.
  EXPECT_EQ(vis_lum_threshold_code(Eotf::kBt1886, 300.0), 940);
  LevelParams p = make_level_params(Eotf::kBt1886, 0.019, 2, 10.0);
  EXPECT_EQ(p.vlt_luma, 268);
  EXPECT_EQ(p.base, 268 - 12 + 1);
  EXPECT_EQ(p.band, 563 + 1 - p.base);
}

TEST(CambiInit, WorkedWindowsAndMaskIndex) {
  struct Row {
    unsigned w, h, ws, ws_speedup;
    int mask_index;
  };
  const Row rows[] = {{3840, 2160, 65, 33, 24}, {4096, 2160, 67, 35, 25}, {2560, 1440, 43, 23, 22},
                      {1920, 1080, 33, 17, 21}, {1280, 720, 21, 11, 19},  {960, 540, 17, 9, 18},
                      {576, 324, 9, 5, 16},     {7680, 4320, 131, 65, 27}};
  for (const Row& r : rows) {
    EXPECT_EQ(adjust_window(65, r.w, r.h, false), r.ws) << r.w;
    EXPECT_EQ(adjust_window(65, r.w, r.h, true), r.ws_speedup) << r.w;
    EXPECT_EQ(mask_index(r.w, r.h), r.mask_index) << r.w;
  }
  EXPECT_EQ(adjust_window(66, 3840, 2160, false), 67u);
  EXPECT_EQ(adjust_window(127, 3840, 2160, true), 65u);
  EXPECT_EQ(mask_index(100, 50), (49 + 3 * (0 - 11) - 1) >> 1);  // (W>>6)(H>>6) = 0
}

TEST(CambiInit, ResizeMapStepsInFloat) {
  // Identity without resize; a halving picks the odd... rows of the f32 accumulator.
  ResizeMap same = make_resize_map(7, 5, 7, 5);
  EXPECT_EQ(same.cols, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6}));
  ResizeMap half = make_resize_map(8, 4, 4, 2);
  // ratio 2, start f32(1 - 0.5) = 0.5: (int)(0.5 + 0.5) = 1, then 3, 5, 7.
  EXPECT_EQ(half.cols, (std::vector<uint32_t>{1, 3, 5, 7}));
  EXPECT_EQ(half.rows, (std::vector<uint32_t>{1, 3}));
  // 1280 -> 960: every index from the literal f32 stepping, never start + j * ratio.
  ResizeMap m = make_resize_map(1280, 720, 960, 540);
  float ratio = 1280.0f / 960.0f, x = float(double(ratio / 2.0f) - 0.5);
  for (unsigned j = 0; j < 960; ++j, x += ratio) ASSERT_EQ(m.cols[j], uint32_t(int(double(x) + 0.5)));
  EXPECT_LT(m.cols.back(), 1280u);
  EXPECT_LT(m.rows.back(), 720u);
}

// ---- Image stages against their definitions ---------------------------------------------------

struct Size {
  unsigned w, h;
};
const Size kSizes[] = {{1, 1}, {1, 9}, {9, 1}, {2, 2}, {3, 7}, {7, 3}, {16, 16}, {17, 15},
                       {63, 65}, {64, 64}, {65, 63}, {130, 41}};

// Values from a small alphabet in blocks, so that flat regions, edges and banding all occur.
std::vector<uint16_t> random_image(unsigned w, unsigned h, std::mt19937& rng, int lo, int levels) {
  std::vector<uint16_t> img(size_t{w} * h);
  std::uniform_int_distribution<int> value(lo, lo + levels - 1), block(1, 6), noise(0, 9);
  for (unsigned r = 0; r < h; ++r) {
    uint16_t v = uint16_t(value(rng));
    for (unsigned c = 0; c < w;) {
      int len = block(rng);
      if (noise(rng) == 0) v = uint16_t(value(rng));
      for (int k = 0; k < len && c < w; ++k, ++c) {
        const uint16_t above = r ? img[size_t{r - 1} * w + c] : v;
        img[size_t{r} * w + c] = noise(rng) < 6 ? above : v;
      }
    }
  }
  return img;
}

TEST(CambiStages, AntiDitherIsThe2x2Box) {
  std::mt19937 rng(1);
  for (const Size& s : kSizes) {
    auto in = random_image(s.w, s.h, rng, 0, 1024);
    std::vector<uint16_t> out(in.size());
    anti_dither(in.data(), s.w, s.h, out.data());
    auto at = [&](unsigned r, unsigned c) { return int(in[size_t{r} * s.w + c]); };
    for (unsigned r = 0; r < s.h; ++r)
      for (unsigned c = 0; c < s.w; ++c) {
        const bool right = c + 1 < s.w, down = r + 1 < s.h;
        int expect = right && down ? (at(r, c) + at(r, c + 1) + at(r + 1, c) + at(r + 1, c + 1)) >> 2
                     : right        ? (at(r, c) + at(r, c + 1)) >> 1
                     : down         ? (at(r, c) + at(r + 1, c)) >> 1
                                    : at(r, c);
        ASSERT_EQ(out[size_t{r} * s.w + c], expect) << s.w << "x" << s.h << " at " << r << "," << c;
      }
  }
}

TEST(CambiStages, SpatialMaskIsTheClipped7x7FlatCount) {
  std::mt19937 rng(2);
  for (const Size& s : kSizes)
    for (int index : {0, 7, 16, 24}) {
      auto img = random_image(s.w, s.h, rng, 100, 3);
      std::vector<uint8_t> mask(img.size());
      spatial_mask(img.data(), s.w, s.h, index, mask.data());
      auto px = [&](int r, int c) { return img[size_t(r) * s.w + size_t(c)]; };
      auto z = [&](int r, int c) {
        bool right = c == int(s.w) - 1 || px(r, c) == px(r, c + 1);
        bool down = r == int(s.h) - 1 || px(r, c) == px(r + 1, c);
        return right && down;
      };
      for (int r = 0; r < int(s.h); ++r)
        for (int c = 0; c < int(s.w); ++c) {
          int n = 0;
          for (int rr = std::max(0, r - 3); rr <= std::min(int(s.h) - 1, r + 3); ++rr)
            for (int cc = std::max(0, c - 3); cc <= std::min(int(s.w) - 1, c + 3); ++cc)
              n += z(rr, cc);
          ASSERT_EQ(mask[size_t(r) * s.w + size_t(c)], n > index ? 1 : 0)
              << s.w << "x" << s.h << " at " << r << "," << c;
        }
    }
}

uint16_t mode3_definition(uint16_t a, uint16_t b, uint16_t c) {
  if (a == b || a == c) return a;
  if (b == c) return b;
  return std::min({a, b, c});
}

TEST(CambiStages, ModeFilterKeepsBorderRowsAndFiltersTheRest) {
  std::mt19937 rng(3);
  for (const Size& s : kSizes) {
    auto in = random_image(s.w, s.h, rng, 500, 4);
    std::vector<uint16_t> out(in.size());
    mode_filter(in.data(), s.w, s.h, out.data());
    auto px = [&](unsigned r, unsigned c) { return in[size_t{r} * s.w + c]; };
    auto hmode = [&](unsigned r, unsigned c) {
      if (c == 0 || c + 1 == s.w) return px(r, c);
      return mode3_definition(px(r, c - 1), px(r, c), px(r, c + 1));
    };
    for (unsigned r = 0; r < s.h; ++r)
      for (unsigned c = 0; c < s.w; ++c) {
        uint16_t expect = (r == 0 || r + 1 == s.h)
                              ? px(r, c)
                              : mode3_definition(hmode(r - 1, c), hmode(r, c), hmode(r + 1, c));
        ASSERT_EQ(out[size_t{r} * s.w + c], expect) << s.w << "x" << s.h << " at " << r << "," << c;
      }
  }
}

TEST(CambiStages, DecimateKeepsEvenRowsAndColumns) {
  std::mt19937 rng(4);
  for (const Size& s : kSizes) {
    auto img = random_image(s.w, s.h, rng, 0, 1024);
    std::vector<uint8_t> mask(img.size());
    for (auto& m : mask) m = uint8_t(rng() & 1);
    const unsigned ow = (s.w + 1) / 2, oh = (s.h + 1) / 2;
    std::vector<uint16_t> out(size_t{ow} * oh);
    std::vector<uint8_t> out_mask(out.size());
    decimate(img.data(), mask.data(), s.w, s.h, out.data(), out_mask.data());
    for (unsigned r = 0; r < oh; ++r)
      for (unsigned c = 0; c < ow; ++c) {
        ASSERT_EQ(out[size_t{r} * ow + c], img[size_t{2 * r} * s.w + 2 * c]);
        ASSERT_EQ(out_mask[size_t{r} * ow + c], mask[size_t{2 * r} * s.w + 2 * c]);
      }
  }
}

TEST(CambiStages, ConversionRoundsHighBitDepthsAsUpstream) {
  EXPECT_EQ(to_10bit(255, 8), 1020);
  EXPECT_EQ(to_10bit(511, 9), 1022);
  EXPECT_EQ(to_10bit(1023, 10), 1023);
  EXPECT_EQ(to_10bit(4095, 12), 1024);  // quirk 3: outside the 10-bit range
  EXPECT_EQ(to_10bit(65535, 16), 1024);
  EXPECT_EQ(to_10bit(2045, 11), 1023);
  EXPECT_EQ(to_10bit(2046, 11), 1023);
  EXPECT_EQ(to_10bit(2047, 11), 1024);
}

// ---- c-values: sliding histogram against the direct definition --------------------------------

void expect_same_bits(const std::vector<float>& a, const std::vector<float>& b, unsigned w,
                      const std::string& what) {
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_EQ(std::bit_cast<uint32_t>(a[i]), std::bit_cast<uint32_t>(b[i]))
        << what << " at " << i / w << "," << i % w << ": " << a[i] << " vs " << b[i];
}

// The sums c_values returns are those of the values of the definition.
void expect_sums_of(const ValueSums& sums, const std::vector<float>& values,
                    const std::string& what) {
  ValueSums expected;
  for (float v : values) expected.add(v);
  EXPECT_EQ(expected.nonzero, sums.nonzero) << what;
  EXPECT_EQ(expected.units, sums.units) << what;
  EXPECT_EQ(expected.representable, sums.representable) << what;
}

TEST(CambiCValues, SlidingHistogramEqualsDefinitionOnRandomAndEdgeInputs) {
  struct Config {
    Eotf eotf;
    int mlc;
    double vlt;
  };
  const Config configs[] = {{Eotf::kBt1886, 2, 0.0}, {Eotf::kBt1886, 0, 0.0}, {Eotf::kBt1886, 5, 0.0},
                            {Eotf::kPq, 3, 0.0},     {Eotf::kBt1886, 2, 1.0}};
  ThreadPool pool(2);
  std::mt19937 rng(5);
  for (const Config& cfg : configs) {
    const LevelParams p = make_level_params(cfg.eotf, 0.019, cfg.mlc, cfg.vlt);
    for (const Size& s : kSizes)
      for (unsigned window : {3u, 9u, 17u, 65u}) {
        // Levels around the band's lower edge and around the top of the tvi range.
        for (int lo : {p.base, std::max(0, p.tvi[0] - p.num_diffs - 6), p.base + p.band - 5}) {
          auto img = random_image(s.w, s.h, rng, lo, 8);
          std::vector<uint8_t> mask(img.size());
          for (auto& m : mask) m = uint8_t((rng() % 8) != 0);
          std::vector<float> fast(img.size(), -1.0f), plain(img.size(), -2.0f);
          const ValueSums sums =
              c_values(img.data(), mask.data(), s.w, s.h, window, p, fast.data(), &pool);
          c_values_plain(img.data(), mask.data(), s.w, s.h, window, p, plain.data());
          const std::string what = std::to_string(s.w) + "x" + std::to_string(s.h) + " ws " +
                                   std::to_string(window) + " mlc " + std::to_string(cfg.mlc);
          expect_same_bits(fast, plain, s.w, what);
          expect_sums_of(sums, plain, what);
          if (HasFatalFailure()) return;
        }
      }
  }
}

TEST(CambiCValues, LargeWindowAndTallPlaneSplitIntoChunksEqualsDefinition) {
  // Tall enough for several row chunks (8 windows each), wide enough for long runs.
  const LevelParams p = make_level_params(Eotf::kBt1886, 0.019, 2, 0.0);
  std::mt19937 rng(6);
  const unsigned w = 150, h = 700, window = 11;
  auto img = random_image(w, h, rng, 300, 6);
  std::vector<uint8_t> mask(img.size());
  for (auto& m : mask) m = uint8_t((rng() % 16) != 0);
  std::vector<float> one(img.size()), two(img.size()), plain(img.size());
  ThreadPool pool(2);
  const ValueSums one_sums =
      c_values(img.data(), mask.data(), w, h, window, p, one.data(), nullptr);
  const ValueSums two_sums = c_values(img.data(), mask.data(), w, h, window, p, two.data(), &pool);
  c_values_plain(img.data(), mask.data(), w, h, window, p, plain.data());
  expect_same_bits(one, plain, w, "no pool");
  expect_same_bits(two, plain, w, "pool of 2");
  expect_sums_of(one_sums, plain, "no pool");
  expect_sums_of(two_sums, plain, "pool of 2");
  size_t nonzero = 0;
  for (float v : plain) nonzero += v != 0.0f;
  EXPECT_GT(nonzero, plain.size() / 4);  // the input really exercises the formula
}

TEST(CambiCValues, WidePlaneSplitIntoColumnStripsEqualsDefinition) {
  // Wider than one histogram strip (a few hundred columns for these bands), with runs crossing
  // the strip edges, for the narrow and the widest window.
  ThreadPool pool(2);
  std::mt19937 rng(8);
  for (Eotf eotf : {Eotf::kBt1886, Eotf::kPq})
    for (auto [w, h, window] : {std::array<unsigned, 3>{1100, 40, 17}, {1300, 12, 65}}) {
      const LevelParams p = make_level_params(eotf, 0.019, 2, 0.0);
      auto img = random_image(w, h, rng, std::max(0, p.tvi[0] - p.num_diffs - 6), 8);
      std::vector<uint8_t> mask(img.size());
      for (auto& m : mask) m = uint8_t((rng() % 16) != 0);
      std::vector<float> fast(img.size(), -1.0f), plain(img.size(), -2.0f);
      c_values(img.data(), mask.data(), w, h, window, p, fast.data(), &pool);
      c_values_plain(img.data(), mask.data(), w, h, window, p, plain.data());
      expect_same_bits(fast, plain, w, std::to_string(w) + " wide, ws " + std::to_string(window));
      size_t nonzero = 0;
      for (float v : plain) nonzero += v != 0.0f;
      EXPECT_GT(nonzero, plain.size() / 4);
    }
}

// ---- top-K pooling: exact count against the literal quick-select ------------------------------

std::vector<float> random_c_values(size_t n, std::mt19937& rng, int max_count, double zero_share) {
  // Values of the form f32(w * p0 * pm) * R[p0 + pm], as the c-values are.
  const auto& lut = reciprocal_lut();
  std::uniform_int_distribution<int> count(1, max_count), weight(1, 9);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<float> v(n);
  for (auto& x : v) {
    if (u(rng) < zero_share) {
      x = 0.0f;
      continue;
    }
    int p0 = count(rng), pm = count(rng);
    x = float(weight(rng) * p0 * pm) * lut[size_t(p0 + pm)];
  }
  return v;
}

TEST(CambiTopK, CountOfTheSpec) {
  EXPECT_EQ(top_k_count(0.6, 576 * 324), 111974u);
  EXPECT_EQ(top_k_count(0.6, 72 * 41), 1771u);
  EXPECT_EQ(top_k_count(0.0001, 100), 1u);
  EXPECT_EQ(top_k_count(1.0, 100), 100u);
}

TEST(CambiTopK, ExactCountEqualsQuickSelectBitForBit) {
  std::mt19937 rng(7);
  for (size_t n : {1u, 2u, 7u, 100u, 4097u, 100000u})
    for (double ratio : {0.0001, 0.2, 0.6, 1.0})
      for (double zeros : {0.0, 0.5, 0.99})
        for (int max_count : {3, 60, 2112}) {
          auto v = random_c_values(n, rng, max_count, zeros);
          auto copy = v;
          const size_t k = top_k_count(ratio, n);
          const double fast = top_k_mean(v, k);
          const double literal = top_k_mean_quickselect(copy, k);
          ASSERT_EQ(std::bit_cast<uint64_t>(fast), std::bit_cast<uint64_t>(literal))
              << "n " << n << " ratio " << ratio << " zeros " << zeros << " max " << max_count;
        }
}

TEST(CambiTopK, LargeSumsFallBackToTheQuickSelectOrder) {
  // Top-K sums far above 2^29: the result must still be upstream's rounded sequential sum.
  std::mt19937 rng(8);
  auto v = random_c_values(1000000, rng, 2112, 0.1);
  auto copy = v;
  const size_t k = top_k_count(0.6, v.size());
  double exact_sum = 0;
  for (float x : v) exact_sum += x;
  ASSERT_GT(exact_sum * 0.6, std::ldexp(1.0, 29));
  EXPECT_EQ(std::bit_cast<uint64_t>(top_k_mean(v, k)),
            std::bit_cast<uint64_t>(top_k_mean_quickselect(copy, k)));
  // Fewer non-zero values than K, as in most CAMBI planes, and still a sum above 2^29.
  auto sparse = random_c_values(2000000, rng, 2112, 0.5);
  auto sparse_copy = sparse;
  double sparse_sum = 0;
  for (float x : sparse) sparse_sum += x;
  ASSERT_GT(sparse_sum, std::ldexp(1.0, 29));
  EXPECT_EQ(std::bit_cast<uint64_t>(top_k_mean(sparse, k * 2)),
            std::bit_cast<uint64_t>(top_k_mean_quickselect(sparse_copy, k * 2)));
}

TEST(CambiScore, WeightsScalesAndDividesByTheWindowArea) {
  std::array<double, kNumScales> means = {1, 2, 3, 4, 5};
  EXPECT_EQ(weight_scores(means, 9), (16.0 + 16 + 12 + 8 + 5) / 81.0);
  EXPECT_EQ(weight_scores(means, 65), (16.0 + 16 + 12 + 8 + 5) / 4225.0);
}

}  // namespace
}  // namespace vqx::cambi
