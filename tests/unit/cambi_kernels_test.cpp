// The CAMBI c-value kernel table (cambi_kernels.h): every level this host runs against the plain
// twin, bit for bit, at every length 1..64 and every start offset 0..3, on seeded rows of few
// levels (long runs), of many (short runs) and of the extremes 0 and 0xFFFF (kNotCounted).
#include <gtest/gtest.h>

#include <bit>
#include <random>
#include <vector>

#include "metrics/cambi/cambi_kernels.h"
#include "metrics/cambi/cambi_stages.h"
#include "support/kernel_twins.h"

namespace vqx::test {
namespace {

using cambi::CambiKernels;
using cambi::ContrastRows;

const CambiKernels& plain() {
  static const CambiKernels k = cambi::make_cambi_kernels(CpuFeatures{});
  return k;
}

std::vector<std::pair<std::string, CambiKernels>> fast_tables() {
  return tables_to_check(cambi::make_cambi_kernels, cambi::cambi_kernels());
}

// A row of `n` values drawn from `levels` distinct ones, each repeated for a random run length.
std::vector<uint16_t> level_row(int n, uint32_t seed, int levels, int max_run) {
  std::mt19937 rng(seed);
  std::vector<uint16_t> row(size_t(n) + 64);
  for (size_t i = 0; i < row.size();) {
    const uint16_t v = levels == 2 ? ((rng() & 1) ? 0xFFFF : 0) : uint16_t(rng() % unsigned(levels));
    for (int r = 1 + int(rng() % unsigned(max_run)); r > 0 && i < row.size(); --r) row[i++] = v;
  }
  return row;
}

struct RowShape {
  int levels, max_run;
};
constexpr RowShape kShapes[] = {{3, 20}, {3, 1}, {200, 3}, {2, 5}};

TEST(CambiKernels, HostTableFollowsTheCpu) {
  const CambiKernels& host = cambi::cambi_kernels();
  const bool fast = host_cpu_features().avx2;
  EXPECT_EQ(host.first_difference != plain().first_difference, fast);
  EXPECT_EQ(host.first_agreement != plain().first_agreement, fast);
  EXPECT_EQ(host.run_end != plain().run_end, fast);
  EXPECT_EQ(host.add_linear != plain().add_linear, fast);
  EXPECT_EQ(host.evaluate_run != plain().evaluate_run, fast);
  EXPECT_EQ(host.count_and_sum != plain().count_and_sum, fast);
  EXPECT_EQ(host.counted_levels != plain().counted_levels, fast);
  EXPECT_EQ(host.mode3 != plain().mode3, fast);
  EXPECT_EQ(host.flat_row != plain().flat_row, fast);
  EXPECT_EQ(host.flat_count_row != plain().flat_count_row, fast);
}

// Every scan from every start c of [offset, offset + n), on pairs of rows that mostly agree.
TEST(CambiKernels, ScansEveryLengthAndStart) {
  uint32_t seed = 1;
  for (const RowShape& shape : kShapes)
    for (int offset = 0; offset < 4; ++offset)
      for (int n = 1; n <= 64; ++n) {
        const auto a = level_row(offset + n, ++seed, shape.levels, shape.max_run);
        auto b = a;
        std::mt19937 rng(seed);
        for (auto& v : b)
          if (rng() % 4 == 0) v = uint16_t(v + 1);
        const int end = offset + n;
        for (const auto& [name, fast] : fast_tables())
          for (int c = offset; c < end; ++c) {
            ASSERT_EQ(plain().first_difference(a.data(), b.data(), c, end),
                      fast.first_difference(a.data(), b.data(), c, end))
                << name << " n " << n << " c " << c;
            ASSERT_EQ(plain().first_agreement(a.data(), b.data(), c, end),
                      fast.first_agreement(a.data(), b.data(), c, end))
                << name << " n " << n << " c " << c;
            ASSERT_EQ(plain().run_end(a.data(), c, end), fast.run_end(a.data(), c, end))
                << name << " n " << n << " c " << c;
          }
        // Identical rows: no difference anywhere, agreement at once.
        for (const auto& [name, fast] : fast_tables()) {
          ASSERT_EQ(end, fast.first_difference(a.data(), a.data(), offset, end)) << name;
          ASSERT_EQ(offset, fast.first_agreement(a.data(), a.data(), offset, end)) << name;
        }
      }
}

// Linear updates of every length and start with rising, flat and falling slopes, and bases that
// wrap the 16-bit counts; the columns around [lo, hi) must stay as they were.
TEST(CambiKernels, AddLinearEveryLengthAndStart) {
  std::mt19937 rng(7);
  for (int lo = 0; lo < 4; ++lo)
    for (int n = 0; n <= 64; ++n)
      for (int slope : {-1, 0, 1})
        for (int base : {0, 1, 33, -65, 4225, -4225, 70000}) {
          std::vector<uint16_t> start(size_t(lo + n) + 40);
          for (auto& v : start) v = uint16_t(rng());
          auto expected = start;
          plain().add_linear(expected.data(), lo, lo + n, base, slope);
          for (const auto& [name, fast] : fast_tables()) {
            auto got = start;
            fast.add_linear(got.data(), lo, lo + n, base, slope);
            ASSERT_EQ(expected, got) << name << " lo " << lo << " n " << n << " base " << base
                                     << " slope " << slope;
          }
        }
}

// c-values of runs of every length and start, with 1..4 and 32 contrasts, counts up to the
// largest window's 65^2 (every entry of the reciprocal table reachable), all-zero rows included.
TEST(CambiKernels, EvaluateRunEveryLengthAndContrastCount) {
  const float* lut = cambi::reciprocal_lut().data();
  std::mt19937 rng(11);
  const int w = 64 + 4 + 16;
  for (int count : {1, 2, 3, 4, 32})
    for (int max_count : {1, 8, 4225}) {
      // p0 + pm stays below the table's size: p0 + pm <= the window's pixel count.
      auto counts = [&](int limit) {
        std::vector<uint16_t> v(static_cast<size_t>(w));
        for (auto& x : v) x = uint16_t(rng() % unsigned(limit + 1));
        if (rng() % 4 == 0) std::fill(v.begin(), v.end(), uint16_t{0});
        return v;
      };
      const auto p0s = counts(max_count / 2);
      std::vector<std::vector<uint16_t>> ups, downs;
      std::vector<ContrastRows> rows;
      for (int r = 0; r < count; ++r) {
        ups.push_back(counts(max_count - max_count / 2));
        downs.push_back(counts(max_count - max_count / 2));
      }
      for (int r = 0; r < count; ++r)
        rows.push_back({ups[size_t(r)].data(), downs[size_t(r)].data(), 1 + r % 9});
      for (int a = 0; a < 4; ++a)
        for (int n = 0; n <= 64; ++n) {
          std::vector<float> expected(size_t(w), -1.0f);
          plain().evaluate_run(p0s.data(), rows.data(), count, lut, a, a + n, expected.data());
          for (const auto& [name, fast] : fast_tables()) {
            std::vector<float> got(size_t(w), -1.0f);
            fast.evaluate_run(p0s.data(), rows.data(), count, lut, a, a + n, got.data());
            for (int j = 0; j < w; ++j)
              ASSERT_EQ(std::bit_cast<uint32_t>(expected[size_t(j)]),
                        std::bit_cast<uint32_t>(got[size_t(j)]))
                  << name << " contrasts " << count << " a " << a << " n " << n << " j " << j;
          }
        }
    }
}

// The pooling's count and exact sum on c-values of every length 0..64 and start 0..3, mostly
// zero or not, and with one value outside the representable set (negative, -0, below 0.5, 2^14
// and above, NaN) at every position.
TEST(CambiKernels, CountAndSumEveryLengthAndBadValue) {
  const float* lut = cambi::reciprocal_lut().data();
  std::mt19937 rng(13);
  auto c_value = [&] {
    const int p0 = 1 + int(rng() % 2112), pm = 1 + int(rng() % 2112);
    return float(int(1 + rng() % 9) * p0 * pm) * lut[p0 + pm];
  };
  const float bad[] = {-1.0f, -0.0f, 0.25f, 16384.0f, 1e30f, std::bit_cast<float>(0x7FC00000u)};
  auto check = [&](const std::vector<float>& v, int a, int n, const std::string& what) {
    size_t nonzero = 0;
    uint64_t sum = 0;
    const bool ok = plain().count_and_sum(v.data() + a, size_t(n), &nonzero, &sum);
    for (const auto& [name, fast] : fast_tables()) {
      size_t fast_nonzero = 1;
      uint64_t fast_sum = 1;
      ASSERT_EQ(ok, fast.count_and_sum(v.data() + a, size_t(n), &fast_nonzero, &fast_sum))
          << name << " " << what;
      if (!ok) continue;
      ASSERT_EQ(nonzero, fast_nonzero) << name << " " << what;
      ASSERT_EQ(sum, fast_sum) << name << " " << what;
    }
  };
  for (double zeros : {0.0, 0.9})
    for (int a = 0; a < 4; ++a)
      for (int n = 0; n <= 64; ++n) {
        std::vector<float> v(size_t(a + n));
        for (auto& x : v) x = (rng() % 1000 < zeros * 1000) ? 0.0f : c_value();
        check(v, a, n, "n " + std::to_string(n));
        for (int at = 0; at < n; ++at)
          for (float b : bad) {
            auto with_bad = v;
            with_bad[size_t(a + at)] = b;
            check(with_bad, a, n, "n " + std::to_string(n) + " bad at " + std::to_string(at));
          }
      }
  // A plane's worth: sums far above 2^32 units.
  std::vector<float> large(2000000);
  for (auto& x : large) x = c_value();
  check(large, 0, int(large.size()), "2M values");
}

// The image stages' row loops at every length 1..64 and start 0..3, on 10-bit codes from small
// alphabets (ties and flat stretches) and from the whole range, with bands at both ends.
TEST(CambiKernels, ImageRowsEveryLengthAndStart) {
  std::mt19937 rng(17);
  for (const RowShape& shape : kShapes)
    for (int a = 0; a < 4; ++a)
      for (int n = 1; n <= 64; ++n) {
        auto codes = [&](uint32_t seed) {
          auto row = level_row(a + n + 1, seed, shape.levels, shape.max_run);
          for (auto& v : row) v = uint16_t(shape.levels == 200 ? rng() % 1024 : v % 1024);
          return row;
        };
        const auto x = codes(rng()), y = codes(rng()), z = codes(rng());
        std::vector<uint8_t> mask(x.size());
        for (auto& m : mask) m = uint8_t(rng() % 4 != 0);
        const std::string what = "n " + std::to_string(n) + " start " + std::to_string(a);
        for (auto [base, band] : {std::pair{0, 564}, {1, 2}, {500, 524}, {0, 1024}, {1023, 1}}) {
          std::vector<uint16_t> expected(x.size(), 7), got(x.size(), 7);
          plain().counted_levels(x.data() + a, mask.data() + a, size_t(n), base, band,
                                 expected.data() + a);
          for (const auto& [name, fast] : fast_tables()) {
            std::fill(got.begin(), got.end(), uint16_t{7});
            fast.counted_levels(x.data() + a, mask.data() + a, size_t(n), base, band, got.data() + a);
            ASSERT_EQ(expected, got) << name << " counted_levels " << what << " base " << base;
          }
        }
        {
          std::vector<uint16_t> expected(x.size(), 7), got(x.size(), 7);
          plain().mode3(x.data() + a, y.data() + a, z.data() + a, size_t(n), expected.data() + a);
          for (const auto& [name, fast] : fast_tables()) {
            std::fill(got.begin(), got.end(), uint16_t{7});
            fast.mode3(x.data() + a, y.data() + a, z.data() + a, size_t(n), got.data() + a);
            ASSERT_EQ(expected, got) << name << " mode3 " << what;
          }
        }
        {
          // row[i + 1] is read up to i = n - 1: the rows hold a + n + 1 codes.
          std::vector<uint8_t> expected(x.size(), 7), got(x.size(), 7);
          plain().flat_row(x.data() + a, y.data() + a, size_t(n), expected.data() + a);
          for (const auto& [name, fast] : fast_tables()) {
            std::fill(got.begin(), got.end(), uint8_t{7});
            fast.flat_row(x.data() + a, y.data() + a, size_t(n), got.data() + a);
            ASSERT_EQ(expected, got) << name << " flat_row " << what;
          }
          // Identical rows: flat wherever the row repeats itself.
          plain().flat_row(x.data() + a, x.data() + a, size_t(n), expected.data() + a);
          for (const auto& [name, fast] : fast_tables()) {
            fast.flat_row(x.data() + a, x.data() + a, size_t(n), got.data() + a);
            ASSERT_EQ(expected, got) << name << " flat_row on itself " << what;
          }
        }
      }
}

// The 7-wide flat count at every length 1..64 and start 0..3, column sums 0..7 (all 7 included,
// the largest count), thresholds across the whole count range and outside it.
TEST(CambiKernels, FlatCountEveryLengthAndThreshold) {
  std::mt19937 rng(19);
  for (int a = 0; a < 4; ++a)
    for (int n = 1; n <= 64; ++n)
      for (unsigned top : {1u, 7u}) {
        std::vector<uint8_t> sums(size_t(a + n + 6));
        for (auto& v : sums) v = uint8_t(rng() % 4 == 0 ? top : rng() % (top + 1));
        for (int threshold : {-1, 0, 7, 17, 24, 30, 48, 49, 126, 127, 300}) {
          std::vector<uint8_t> expected(sums.size(), 7), got(sums.size(), 7);
          plain().flat_count_row(sums.data() + a, size_t(n), threshold, expected.data() + a);
          for (const auto& [name, fast] : fast_tables()) {
            std::fill(got.begin(), got.end(), uint8_t{7});
            fast.flat_count_row(sums.data() + a, size_t(n), threshold, got.data() + a);
            ASSERT_EQ(expected, got) << name << " n " << n << " start " << a << " threshold "
                                     << threshold;
          }
        }
      }
}

}  // namespace
}  // namespace vqx::test
