// Percentile pooling: numpy's linear definition (output/percentiles.h) on cases worked by hand,
// its properties, and the --percentiles syntax.
#include "output/percentiles.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/error.h"

namespace vqx {
namespace {

TEST(Percentiles, WorkedCases) {
  const std::vector<double> four = {4, 1, 3, 2};  // sorted 1 2 3 4, h = 3p/100
  EXPECT_EQ(percentiles_of(four, {0, 25, 50, 75, 100}), (std::vector<double>{1, 1.75, 2.5, 3.25, 4}));
  const std::vector<double> five = {10, 50, 20, 40, 30};  // h = 4p/100
  EXPECT_EQ(percentiles_of(five, {50, 10, 90}), (std::vector<double>{30, 14, 46}));
  EXPECT_EQ(percentiles_of({7.5}, {0, 1, 50, 100}), (std::vector<double>{7.5, 7.5, 7.5, 7.5}));
}

// numpy's _lerp takes the upper end for g >= 0.5: b - (b - a) * (1 - g). For a = 0.43, b = 1.19
// at g = 0.5 (p50 of two values) that gives 0.8099999999999999 where a + (b - a) * g gives 0.81.
TEST(Percentiles, UpperHalfInterpolatesFromTheUpperValue) {
  const double a = 0.43, b = 1.19;
  const double from_upper = b - (b - a) * (1.0 - 0.5), from_lower = a + (b - a) * 0.5;
  ASSERT_NE(from_upper, from_lower);
  EXPECT_EQ(percentile_of_sorted({a, b}, 50), from_upper);
  EXPECT_EQ(percentile_of_sorted({a, b}, 25), a + (b - a) * 0.25);
}

TEST(Percentiles, MonotonicAndBetweenMinAndMax) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> score(0, 100);
  for (size_t n : {1u, 2u, 3u, 10u, 101u}) {
    std::vector<double> values(n);
    for (double& v : values) v = score(rng);
    std::vector<double> ps;
    for (int p = 0; p <= 1000; ++p) ps.push_back(p / 10.0);
    const std::vector<double> out = percentiles_of(values, ps);
    const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    EXPECT_EQ(out.front(), *lo);
    EXPECT_EQ(out.back(), *hi);
    for (size_t k = 1; k < out.size(); ++k) EXPECT_LE(out[k - 1], out[k]) << "n=" << n << " p=" << ps[k];
  }
}

TEST(Percentiles, NanPropagates) {
  EXPECT_TRUE(std::isnan(percentiles_of({1, NAN, 3}, {50})[0]));
}

TEST(Percentiles, ParsesTheFlag) {
  EXPECT_EQ(parse_percentiles("1,5,50,95"), (std::vector<double>{1, 5, 50, 95}));
  EXPECT_EQ(parse_percentiles("99.9,0,100"), (std::vector<double>{99.9, 0, 100}));
  for (const char* bad : {"", "5,", ",5", "abc", "101", "-1", "5,5", "1;5", "nan"})
    EXPECT_THROW(parse_percentiles(bad), UsageError) << bad;
}

TEST(Percentiles, KeysAreShort) {
  EXPECT_EQ(percentile_key(5), "p5");
  EXPECT_EQ(percentile_key(50), "p50");
  EXPECT_EQ(percentile_key(99.9), "p99.9");
  EXPECT_EQ(percentile_key(0), "p0");
}

}  // namespace
}  // namespace vqx
