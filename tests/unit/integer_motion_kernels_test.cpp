// The integer motion kernel table (motion_kernels.h): every level this host runs against the
// plain twin, bit for bit, on seeded random and extreme planes of every width the border rule
// allows up to 64, odd sizes and 8-16 bit, on planes whose blurred differences straddle the
// int16 range and on small differences with one full-scale one; and the whole metric on each
// table.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "metrics/integer_motion/integer_motion.h"
#include "metrics/integer_motion/motion_kernels.h"
#include "support/fixtures.h"
#include "support/kernel_twins.h"

namespace vqx::test {
namespace {

using integer_motion::MotionKernels;

const MotionKernels& plain() {
  static const MotionKernels k = integer_motion::make_motion_kernels(CpuFeatures{});
  return k;
}

std::vector<std::pair<std::string, MotionKernels>> fast_tables() {
  return tables_to_check(integer_motion::make_motion_kernels, integer_motion::motion_kernels());
}

// The host's table is built from its CPU: with AVX2 every entry is an AVX2 one.
TEST(IntegerMotionKernels, HostTableFollowsTheCpu) {
  const MotionKernels& host = integer_motion::motion_kernels();
  const bool fast = host_cpu_features().avx2;
  EXPECT_EQ(host.sad_rows_8 != plain().sad_rows_8, fast);
  EXPECT_EQ(host.sad_rows_16 != plain().sad_rows_16, fast);
}

// The SAD of the whole plane, of a band of rows, and of identical frames (every row skipped).
template <typename Sample>
void check_sad(uint32_t w, uint32_t h, unsigned bpc, Pattern pattern) {
  const auto prev = test_plane<Sample>(w, h, bpc, 1 + w, pattern);
  const auto cur = test_plane<Sample>(w, h, bpc, 2 + h, pattern);
  auto sads = [&](const MotionKernels& k) {
    auto sad = k.sad_rows<Sample>();
    return std::vector<uint64_t>{sad(prev.data(), cur.data(), w, h, bpc, 0, h),
                                 sad(prev.data(), cur.data(), w, h, bpc, h / 4, h / 2 + 1),
                                 sad(cur.data(), cur.data(), w, h, bpc, 0, h)};
  };
  const std::vector<uint64_t> expected = sads(plain());
  for (const auto& [name, fast] : fast_tables())
    ASSERT_EQ(expected, sads(fast)) << name << " " << describe(w, h, bpc, pattern);
}

TEST(IntegerMotionKernels, SadEveryWidthAndDepth) {
  for (unsigned bpc = 8; bpc <= 16; ++bpc)
    for (Pattern pattern : kAllPatterns)
      for (uint32_t h : {3u, 4u, 9u})
        for (uint32_t w = 3; w <= 64; ++w) {
          if (bpc == 8)
            check_sad<uint8_t>(w, h, bpc, pattern);
          else
            check_sad<uint16_t>(w, h, bpc, pattern);
          if (::testing::Test::HasFailure()) return;
        }
}

TEST(IntegerMotionKernels, SadOnOddSizes) {
  struct Size {
    uint32_t w, h;
    unsigned bpc;
  };
  for (Size c : {Size{97, 61, 8}, Size{321, 97, 8}, Size{127, 65, 10}, Size{256, 129, 12},
                 Size{67, 45, 14}, Size{200, 90, 16}})
    for (Pattern pattern : kAllPatterns) {
      if (c.bpc == 8)
        check_sad<uint8_t>(c.w, c.h, c.bpc, pattern);
      else
        check_sad<uint16_t>(c.w, c.h, c.bpc, pattern);
    }
}

// Each row's total alone and the whole band, on every table.
template <typename Sample>
void check_rows(const std::vector<Sample>& prev, const std::vector<Sample>& cur, uint32_t w,
                uint32_t h, unsigned bpc, const std::string& what) {
  auto p = plain().sad_rows<Sample>();
  for (const auto& [name, fast] : fast_tables()) {
    auto f = fast.template sad_rows<Sample>();
    for (uint32_t i = 0; i < h; ++i)
      ASSERT_EQ(p(prev.data(), cur.data(), w, h, bpc, i, i + 1),
                f(prev.data(), cur.data(), w, h, bpc, i, i + 1))
          << name << " " << what << " row " << i;
    ASSERT_EQ(p(prev.data(), cur.data(), w, h, bpc, 0, h),
              f(prev.data(), cur.data(), w, h, bpc, 0, h))
        << name << " " << what;
  }
}

// Planes with prev - cur = diff + noise, noise uniform in [-noise, noise], and optionally a
// full-scale difference (prev at the maximum, cur at 0, or the reverse) down column sx.
template <typename Sample>
std::pair<std::vector<Sample>, std::vector<Sample>> difference_planes(uint32_t w, uint32_t h,
                                                                      unsigned bpc, uint32_t seed,
                                                                      int32_t diff, int32_t noise,
                                                                      int64_t sx = -1,
                                                                      bool spike_up = true) {
  std::mt19937 rng(seed);
  const int32_t mx = int32_t((uint32_t{1} << bpc) - 1);
  const int32_t lo = std::max(0, noise - diff), hi = std::min(mx, mx - diff - noise);
  std::vector<Sample> prev(size_t(w) * h), cur(size_t(w) * h);
  for (size_t k = 0; k < prev.size(); ++k) {
    const int32_t c = lo + int32_t(rng() % uint32_t(hi - lo + 1));
    const int32_t e = int32_t(rng() % uint32_t(2 * noise + 1)) - noise;
    cur[k] = Sample(c);
    prev[k] = Sample(c + diff + e);
  }
  for (uint32_t y = 0; sx >= 0 && y < h; ++y) {
    const size_t k = size_t(y) * w + size_t(sx);
    prev[k] = Sample(spike_up ? mx : 0);
    cur[k] = Sample(spike_up ? 0 : mx);
  }
  return {prev, cur};
}

template <typename Sample>
void check_differences(uint32_t w, uint32_t h, unsigned bpc, int32_t diff, int32_t noise,
                       int64_t sx = -1, bool spike_up = true) {
  const auto [prev, cur] =
      difference_planes<Sample>(w, h, bpc, w * 31 + h + uint32_t(diff), diff, noise, sx, spike_up);
  check_rows(prev, cur, w, h, bpc,
             std::to_string(w) + "x" + std::to_string(h) + " " + std::to_string(bpc) +
                 "-bit difference " + std::to_string(diff) + " +- " + std::to_string(noise) +
                 (sx >= 0 ? " spike at " + std::to_string(sx) : ""));
}

// A difference of 2^(bpc-1) on the input scale gives blurred values Y about +-32768: both sides
// of the int16 range the vector levels keep Y in, every width up to 70 (two 32-column blocks
// and a tail), and the largest differences of either sign.
TEST(IntegerMotionKernels, SadAroundTheInt16RangeOfTheBlurredRow) {
  for (unsigned bpc : {8u, 9u, 10u, 11u, 12u, 16u})
    for (uint32_t w = 3; w <= 70; ++w) {
      const int32_t half = int32_t(1) << (bpc - 1), mx = (int32_t(1) << bpc) - 1;
      for (int32_t diff : {half - 1, half, half + 1, -half + 1, -half, -half - 1})
        for (int32_t noise : {0, 1, 2}) {
          if (bpc == 8)
            check_differences<uint8_t>(w, 6, bpc, diff, noise);
          else
            check_differences<uint16_t>(w, 6, bpc, diff, noise);
        }
      for (int32_t diff : {mx, -mx}) {
        if (bpc == 8)
          check_differences<uint8_t>(w, 5, bpc, diff, 0);
        else
          check_differences<uint16_t>(w, 5, bpc, diff, 0);
      }
      if (::testing::Test::HasFatalFailure()) return;
    }
}

// Small differences (every blurred value inside int16) with a full-scale difference down one
// column, each column in turn, of either sign: that column alone leaves int16, so the vector
// levels' test for which 32-column blocks need the high parts must see it from every block
// whose outputs it reaches.
TEST(IntegerMotionKernels, SadWithOneLargeDifferenceAtEachColumn) {
  for (unsigned bpc : {8u, 10u, 12u})
    for (uint32_t w : {3u, 31u, 33u, 64u, 70u, 100u})
      for (uint32_t sx = 0; sx < w; ++sx)
        for (bool up : {true, false}) {
          const int32_t noise = int32_t(1) << (bpc - 7);
          if (bpc == 8)
            check_differences<uint8_t>(w, 5, bpc, 0, noise, sx, up);
          else
            check_differences<uint16_t>(w, 5, bpc, 0, noise, sx, up);
          if (::testing::Test::HasFatalFailure()) return;
        }
}

TEST(IntegerMotionKernels, WholeMetricOnEachTable) {
  for (uint8_t bpc : {uint8_t(8), uint8_t(16)}) {
    const PictureFormat format = make_format(97, 61, ChromaSubsampling::k420, bpc);
    const auto ref = make_pictures(format, {1, 2, 3, 4, 5});
    const auto dis = make_pictures(format, {6, 7, 8, 9, 10});
    for (const char* spec : {"motion=debug=true", "motion=motion_five_frame_window=true"}) {
      const OptionValues options = parse_metric_request(spec).options;
      auto reference = make_integer_motion_cpu(options, plain());
      const MetricValues expected = run_cpu_metric(*reference, ref, dis);
      for (const auto& [name, fast] : fast_tables()) {
        auto metric = make_integer_motion_cpu(options, fast);
        expect_same_values(expected, run_cpu_metric(*metric, ref, dis, 2),
                           name + " " + spec + " " + format.describe());
      }
    }
  }
}

}  // namespace
}  // namespace vqx::test
