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
using cambi::StripHistogram;

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
  EXPECT_EQ(host.replace_row != plain().replace_row, fast);
  EXPECT_EQ(host.evaluate_row != plain().evaluate_row, fast);
  EXPECT_EQ(host.count_and_sum != plain().count_and_sum, fast);
  EXPECT_EQ(host.counted_levels != plain().counted_levels, fast);
  EXPECT_EQ(host.mode3 != plain().mode3, fast);
  EXPECT_EQ(host.flat_row != plain().flat_row, fast);
  EXPECT_EQ(host.flat_count_row != plain().flat_count_row, fast);
}

// A strip histogram of `band` + 1 rows over [x0, x1), aligned and padded as StripHistogram asks,
// its counts drawn from [0, limit] (wrapping ones too when limit is 0xFFFF), row `band` zero.
struct TestHistogram {
  std::vector<uint16_t> storage;
  StripHistogram hist;
  TestHistogram(int band, int x0, int x1, int pad, unsigned limit, std::mt19937& rng) {
    const int stride = (x1 - x0 + 31) & ~31;
    storage.assign(size_t(stride) * size_t(band + 1) + 32, 0);
    uint16_t* cells = storage.data() + (-(reinterpret_cast<uintptr_t>(storage.data()) / 2) & 31);
    hist = {cells, stride, band, x0, x1, pad};
    for (int l = 0; l < band; ++l)
      for (int j = 0; j < x1 - x0; ++j)
        cells[size_t(l) * size_t(stride) + size_t(j)] = uint16_t(rng() % (limit + 1));
  }
  // The counts of the strip's columns (not the scratch padding), level by level.
  std::vector<uint16_t> counts() const {
    std::vector<uint16_t> v;
    for (int l = 0; l <= hist.band; ++l)
      for (int j = 0; j < hist.x1 - hist.x0; ++j)
        v.push_back(hist.cells[size_t(l) * size_t(hist.stride) + size_t(j)]);
    return v;
  }
};

// Levels of a row in [0, band) or kNotCounted, from the row shapes.
std::vector<uint16_t> counted_row(int n, uint32_t seed, const RowShape& shape, int band) {
  auto row = level_row(n, seed, shape.levels, shape.max_run);
  std::mt19937 rng(seed);
  for (auto& v : row)
    if (v != cambi::kNotCounted)
      v = rng() % 8 == 0 ? cambi::kNotCounted : uint16_t(v % unsigned(band));
  return row;
}

// Row replacements on strips of every width 1..64 (and 100, 255) at strip starts 0, 3 and 37,
// windows 1..65 (pad 0..32), bands of 1, 7 and 300 levels: rows that mostly agree, rows that do
// not, whole rows entering or leaving (against kNotCounted), and counts that wrap.
TEST(CambiKernels, ReplaceRowEveryStripWidthAndWindow) {
  std::mt19937 rng(3);
  std::vector<int> widths;
  for (int n = 1; n <= 64; ++n) widths.push_back(n);
  widths.push_back(100);
  widths.push_back(255);
  for (int pad : {0, 1, 5, 16, 32})
    for (int x0 : {0, 3, 37})
      for (int sw : widths)
        for (int band : {1, 7, 300}) {
          const RowShape& shape = kShapes[rng() % std::size(kShapes)];
          const int x1 = x0 + sw, w = x1 + int(rng() % unsigned(pad + 3));
          const int s0 = std::max(0, x0 - pad), s1 = std::min(w, x1 + pad);
          const auto out = counted_row(w, rng(), shape, band);
          auto in = out;
          for (auto& v : in)
            if (rng() % 4 == 0)
              v = rng() % 5 == 0 ? cambi::kNotCounted : uint16_t(rng() % unsigned(band));
          const auto other = counted_row(w, rng(), shape, band);
          const std::vector<uint16_t> none(size_t(w), cambi::kNotCounted);
          const unsigned limit = rng() % 3 == 0 ? 0xFFFFu : 4225u;
          const std::pair<const std::vector<uint16_t>*, const std::vector<uint16_t>*> pairs[] = {
              {&out, &in}, {&out, &other}, {&none, &in}, {&out, &none}, {&out, &out}};
          for (const auto& [leaving, entering] : pairs) {
            const uint32_t seed = rng();
            std::mt19937 fill(seed);
            TestHistogram expected(band, x0, x1, pad, limit, fill);
            plain().replace_row(expected.hist, leaving->data(), entering->data(), s0, s1);
            for (const auto& [name, fast] : fast_tables()) {
              fill.seed(seed);
              TestHistogram got(band, x0, x1, pad, limit, fill);
              fast.replace_row(got.hist, leaving->data(), entering->data(), s0, s1);
              ASSERT_EQ(expected.counts(), got.counts())
                  << name << " pad " << pad << " x0 " << x0 << " width " << sw << " band " << band;
            }
          }
        }
}

// Rows of c-values on strips of every width 1..64 (and 100, 255) at strip starts 0, 3 and 37,
// levels at both ends of the band, 0..32 contrasts per level (none at some), counts up to 2112
// each (p0 + pm reaches the table's last entries) or small, all-zero strips included; nothing
// outside [x0, x1) may be written, and the values' sums must be those of count_and_sum.
TEST(CambiKernels, EvaluateRowEveryStripWidthAndContrastSet) {
  const float* lut = cambi::reciprocal_lut().data();
  std::mt19937 rng(11);
  std::vector<int> widths;
  for (int n = 1; n <= 64; ++n) widths.push_back(n);
  widths.push_back(100);
  widths.push_back(255);
  int weights[cambi::kMaxNumDiffs];
  for (int d = 0; d < cambi::kMaxNumDiffs; ++d) weights[d] = 1 + d % 9;
  for (int x0 : {0, 3, 37})
    for (int sw : widths)
      for (int band : {1, 7, 40})
        for (unsigned limit : {0u, 8u, 2112u}) {
          const RowShape& shape = kShapes[rng() % std::size(kShapes)];
          const int x1 = x0 + sw, w = x1 + 5;
          std::vector<uint32_t> contrasts(static_cast<size_t>(band), 0u);
          for (auto& c : contrasts) {
            const unsigned kind = rng() % 4;
            c = kind == 0 ? 0u : kind == 1 ? 0xFFFFFFFFu : kind == 2 ? 0xFu : uint32_t(rng());
          }
          const cambi::LevelTable table{contrasts.data(), weights, lut};
          TestHistogram hist(band, x0, x1, 0, limit, rng);
          const auto levels = counted_row(w, rng(), shape, band);
          std::vector<float> expected(size_t(w), -1.0f);
          cambi::ValueSums expected_sums{3, 5, true};  // added to, not replaced
          plain().evaluate_row(hist.hist, levels.data(), table, expected.data(), &expected_sums);
          size_t row_nonzero = 0;
          uint64_t row_units = 0;
          ASSERT_TRUE(
              plain().count_and_sum(expected.data() + x0, size_t(sw), &row_nonzero, &row_units));
          ASSERT_EQ(expected_sums.nonzero, 3 + row_nonzero);
          ASSERT_EQ(expected_sums.units, 5 + row_units);
          for (const auto& [name, fast] : fast_tables()) {
            std::vector<float> got(size_t(w), -1.0f);
            cambi::ValueSums got_sums{3, 5, true};
            fast.evaluate_row(hist.hist, levels.data(), table, got.data(), &got_sums);
            for (int j = 0; j < w; ++j)
              ASSERT_EQ(std::bit_cast<uint32_t>(expected[size_t(j)]),
                        std::bit_cast<uint32_t>(got[size_t(j)]))
                  << name << " x0 " << x0 << " width " << sw << " band " << band << " limit "
                  << limit << " j " << j;
            ASSERT_EQ(expected_sums.nonzero, got_sums.nonzero) << name << " width " << sw;
            ASSERT_EQ(expected_sums.units, got_sums.units) << name << " width " << sw;
            ASSERT_EQ(expected_sums.representable, got_sums.representable)
                << name << " width " << sw;
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
