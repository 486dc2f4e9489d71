// Every optimised MS-SSIM stage against its plain twin (ssim_stages.h), bit for bit, on seeded
// random planes at edge sizes, with the plain kernel table and this host's (ssim_kernels.h) and for
// 0, 1 and 2 pool workers; the host table's entries against the plain table's, row by row.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "metrics/ssim_core/ssim_kernels.h"
#include "metrics/ssim_core/ssim_stages.h"

namespace vqx::ssim {
namespace {

struct Table {
  std::string name;
  SsimKernels kernels;
};

// The plain table and this host's (the same entries on a CPU without AVX2).
std::vector<Table> tables() {
  return {{"plain", make_ssim_kernels(CpuFeatures{})},
          {"host (" + host_cpu_features().describe() + ")", ssim_kernels()}};
}

// Plane content kinds: 8-bit integers, 10-bit quarters, arbitrary floats (as in decimated levels),
// and a flat plane (zero variance: exercises the clamps and the flat-region fix).
enum class Content { kInteger8, kQuarter10, kReal, kFlat };

std::vector<float> random_plane(Size size, Content content, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> p(size.pixels());
  for (float& v : p) {
    switch (content) {
      case Content::kInteger8:
        v = float(rng() % 256);
        break;
      case Content::kQuarter10:
        v = float(rng() % 1024) / 4.0f;
        break;
      case Content::kReal:
        v = std::uniform_real_distribution<float>(-3.0f, 258.0f)(rng);
        break;
      case Content::kFlat:
        v = 117.0f;
        break;
    }
  }
  return p;
}

// Nearby content for the distorted plane: the reference plus small noise (keeps l, c, s away from
// trivial values), or exactly the reference for kFlat.
std::vector<float> distort(const std::vector<float>& ref, Content content, uint32_t seed) {
  if (content == Content::kFlat) return ref;
  std::mt19937 rng(seed);
  std::vector<float> d(ref);
  for (float& v : d) v += float(int(rng() % 9) - 4);
  return d;
}

template <typename T>
void expect_same_bits(const std::vector<T>& a, const std::vector<T>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) {
      ADD_FAILURE() << what << ": first difference at index " << i << ": " << a[i] << " vs "
                    << b[i];
      return;
    }
}

const Size kSizes[] = {{11, 11}, {12, 11}, {11, 14}, {13, 17}, {14, 12}, {25, 19}, {26, 30},
                       {27, 31}, {31, 12}, {33, 40}, {40, 33}, {47, 23}, {64, 20}, {75, 26}};
const Content kContents[] = {Content::kInteger8, Content::kQuarter10, Content::kReal,
                             Content::kFlat};

std::string label(Size s, Content c, const Table& table) {
  return std::to_string(s.width) + "x" + std::to_string(s.height) + " content " +
         std::to_string(int(c)) + " " + table.name;
}

TEST(FloatMsSsimKernels, ConstantsMatchSpecBits) {
  const uint32_t gaussian[kWindowTaps] = {0x3a86bdf5, 0x3bf90108, 0x3d1375c9, 0x3ddff8a9,
                                          0x3e5a1e3f, 0x3e8832ba, 0x3e5a1e3f, 0x3ddff8a9,
                                          0x3d1375c9, 0x3bf90108, 0x3a86bdf5};
  for (int t = 0; t < kWindowTaps; ++t)
    EXPECT_EQ(std::bit_cast<uint32_t>(kGaussian[t]), gaussian[t]) << t;
  const uint32_t beta[kScales] = {0x3d378034, 0x3e923a2a, 0x3e99a6b5, 0x3e71f8a1, 0x3e087fcc};
  for (int k = 0; k < kScales; ++k) EXPECT_EQ(std::bit_cast<uint32_t>(kBeta[k]), beta[k]) << k;
  EXPECT_EQ(double(kBeta[0]), 0.04479999840259552);
  // The 2-D table is symmetric and sums to 1.0000050 (spec 3.2).
  double sum = 0;
  for (int v = 0; v < kLpfTaps; ++v)
    for (int u = 0; u < kLpfTaps; ++u) {
      EXPECT_EQ(kLpf[v][u], kLpf[u][v]);
      EXPECT_EQ(kLpf[v][u], kLpf[kLpfTaps - 1 - v][u]);
      sum += kLpf[v][u];
    }
  EXPECT_NEAR(sum, 1.0000050, 5e-7);
}

TEST(FloatMsSsimKernels, DecimatePlainIsTheSpecFormula) {
  // An independent transcription of spec 3.3 for one pixel near each corner and one inside.
  const Size size{13, 12};
  const std::vector<float> in = random_plane(size, Content::kReal, 7);
  std::vector<float> out(half_size(size).pixels());
  decimate_plain(in.data(), size, out.data());
  auto sym = [](int i, int n) { return i < 0 ? -1 - i : (i >= n ? 2 * n - 1 - i : i); };
  const Size half = half_size(size);
  EXPECT_EQ(half, (Size{7, 6}));
  for (auto [x, y] : {std::pair{0, 0}, {6, 0}, {0, 5}, {6, 5}, {3, 2}}) {
    double sum = 0.0;
    for (int v = -4; v <= 4; ++v)
      for (int u = -4; u <= 4; ++u) {
        const float p = in[size_t(sym(2 * y + v, 12)) * 13 + size_t(sym(2 * x + u, 13))];
        const float prod = p * kLpf[v + 4][u + 4];
        sum = sum + double(prod);
      }
    EXPECT_EQ(std::bit_cast<uint32_t>(out[size_t(y) * half.width + size_t(x)]),
              std::bit_cast<uint32_t>(float(sum)))
        << x << "," << y;
  }
}

TEST(FloatMsSsimKernels, WindowConvolvePlainIsTheSpecFormula) {
  const Size size{15, 13};
  const std::vector<float> in = random_plane(size, Content::kReal, 9);
  const Size map = map_size(size);
  std::vector<float> out(map.pixels());
  window_convolve_plain(in.data(), size, out.data());
  for (auto [x, y] : {std::pair{0, 0}, {4, 0}, {0, 2}, {4, 2}, {2, 1}}) {
    float tmp[kWindowTaps];
    for (int t = 0; t < kWindowTaps; ++t) {
      double acc = 0.0;
      for (int u = 0; u < kWindowTaps; ++u)
        acc = acc + double(in[size_t(y + t) * 15 + size_t(x + u)] * kGaussian[u]);
      tmp[t] = float(acc);
    }
    double acc = 0.0;
    for (int t = 0; t < kWindowTaps; ++t) acc = acc + double(tmp[t] * kGaussian[t]);
    EXPECT_EQ(std::bit_cast<uint32_t>(out[size_t(y) * map.width + size_t(x)]),
              std::bit_cast<uint32_t>(float(acc)));
  }
}

TEST(FloatMsSsimKernels, DecimateMatchesPlainTwin) {
  ThreadPool pool1(1), pool2(2);
  ThreadPool* pools[] = {nullptr, &pool1, &pool2};
  uint32_t seed = 1;
  for (Size size : kSizes)
    for (Content content : kContents) {
      const std::vector<float> in = random_plane(size, content, seed++);
      std::vector<float> plain(half_size(size).pixels());
      decimate_plain(in.data(), size, plain.data());
      for (const Table& table : tables())
        for (ThreadPool* pool : pools) {
          std::vector<float> fast(plain.size(), -1.0f);
          decimate(in.data(), size, fast.data(), pool, table.kernels);
          expect_same_bits(fast, plain, "decimate " + label(size, content, table));
        }
    }
}

// One decimation row of every width 1..64 and a few wider ones, straight through each table's
// decimate_row entry, from 9 even and 9 odd split rows that are each their own heap block of
// exactly out_width + kSplitPad samples: any read past a row lands outside its block
// (AddressSanitizer builds report it). Each output is checked against the spec 3.3 sum over the
// split rows.
TEST(FloatMsSsimKernels, DecimateRowReadsOnlyItsSplitRows) {
  std::mt19937 rng(85);
  std::uniform_real_distribution<float> sample(-3.0f, 258.0f);
  std::vector<int> widths;
  for (int w = 1; w <= 64; ++w) widths.push_back(w);
  for (int w : {79, 96, 127, 288, 427}) widths.push_back(w);
  for (const Table& table : tables()) {
    for (int width : widths) {
      std::vector<std::vector<float>> rows(2 * kLpfTaps,
                                           std::vector<float>(size_t(width + kSplitPad)));
      const float* even[kLpfTaps];
      const float* odd[kLpfTaps];
      for (int v = 0; v < kLpfTaps; ++v) {
        for (auto* row : {&rows[size_t(v)], &rows[size_t(kLpfTaps + v)]})
          for (float& s : *row) s = sample(rng);
        even[v] = rows[size_t(v)].data();
        odd[v] = rows[size_t(kLpfTaps + v)].data();
      }
      std::vector<float> out(size_t(width), -1.0f);
      table.kernels.decimate_row(even, odd, width, out.data());
      for (int x = 0; x < width; ++x) {
        double sum = 0.0;
        for (int v = 0; v < kLpfTaps; ++v)
          for (int u = 0; u < kLpfTaps; ++u) {
            const float* row = (u % 2 == 1) ? odd[v] : even[v];
            const float prod = row[x + u / 2] * kLpf[v][u];
            sum = sum + double(prod);
          }
        ASSERT_EQ(std::bit_cast<uint32_t>(out[size_t(x)]), std::bit_cast<uint32_t>(float(sum)))
            << "width " << width << " x " << x << " " << table.name;
      }
    }
  }
}

// Random window rows of samples on the scale of bpc-bit luma (k / 2^(bpc-8)), of arbitrary
// floats and of a flat row, every map width 1..64 and a few wider ones.
std::vector<float> window_row(int width, int kind, std::mt19937& rng) {
  std::vector<float> row(static_cast<size_t>(width));
  const int bpc = 8 + kind % 9;
  for (float& v : row) {
    if (kind == 9)
      v = std::uniform_real_distribution<float>(-3.0f, 258.0f)(rng);
    else if (kind == 10)
      v = 117.0f;
    else
      v = float(rng() % (1u << bpc)) / float(1u << (bpc - 8));
  }
  return row;
}

// The host table's window entries against the plain table's, row by row, bit for bit.
TEST(FloatMsSsimKernels, HostWindowEntriesMatchPlainEntries) {
  const SsimKernels plain = make_ssim_kernels(CpuFeatures{});
  const SsimKernels& host = ssim_kernels();
  std::mt19937 rng(64);
  std::vector<int> widths;
  for (int w = 1; w <= 64; ++w) widths.push_back(w);
  for (int w : {79, 96, 127, 286, 417}) widths.push_back(w);
  for (int width : widths)
    for (int kind = 0; kind < 11; ++kind) {
      const std::string what = "width " + std::to_string(width) + " kind " + std::to_string(kind);
      // Horizontal pass of one input row.
      const std::vector<float> ref = window_row(width + kWindowMargin, kind, rng);
      std::vector<float> dis = ref;
      for (float& v : dis) v += float(int(rng() % 9) - 4) * (kind == 10 ? 0.0f : 0.25f);
      std::vector<std::vector<float>> a(kQuantities, std::vector<float>(size_t(width), -1.0f)),
          b = a;
      float* out_a[kQuantities];
      float* out_b[kQuantities];
      for (int q = 0; q < kQuantities; ++q) {
        out_a[q] = a[size_t(q)].data();
        out_b[q] = b[size_t(q)].data();
      }
      plain.window_h_row(ref.data(), dis.data(), width, out_a);
      host.window_h_row(ref.data(), dis.data(), width, out_b);
      for (int q = 0; q < kQuantities; ++q)
        expect_same_bits(b[size_t(q)], a[size_t(q)], "window_h_row " + what);
      // Vertical pass and terms of one map row from 11 horizontal rows per quantity: means and
      // sums of squares of one window, so that variances are near zero, positive and negative.
      std::vector<std::vector<float>> h(kQuantities * kWindowTaps);
      const float* rows[kQuantities][kWindowTaps];
      for (int t = 0; t < kWindowTaps; ++t) {
        const std::vector<float> mu_r = window_row(width, kind, rng),
                                 mu_d = window_row(width, kind, rng);
        for (int q = 0; q < kQuantities; ++q) {
          std::vector<float>& row = h[size_t(q * kWindowTaps + t)];
          row.resize(size_t(width));
          for (int x = 0; x < width; ++x) {
            const float r = mu_r[size_t(x)], d = mu_d[size_t(x)];
            const float jitter = float(int(rng() % 5) - 2);
            row[size_t(x)] = q == 0   ? r
                             : q == 1 ? d
                             : q == 2 ? r * r + jitter
                             : q == 3 ? d * d + jitter
                                      : r * d + jitter;
          }
          rows[q][t] = row.data();
        }
      }
      std::vector<double> la(size_t(width), -1), ca(size_t(width), -1), lb = la, cb = ca;
      std::vector<float> sa(size_t(width), -1), sb = sa;
      plain.window_v_terms_row(rows, width, la.data(), ca.data(), sa.data());
      host.window_v_terms_row(rows, width, lb.data(), cb.data(), sb.data());
      expect_same_bits(lb, la, "window_v_terms_row l " + what);
      expect_same_bits(cb, ca, "window_v_terms_row c " + what);
      expect_same_bits(sb, sa, "window_v_terms_row s " + what);
    }
}

TEST(FloatMsSsimKernels, LcsRowsMatchPlainTwin) {
  uint32_t seed = 100;
  for (Size size : kSizes)
    for (Content content : kContents) {
      const std::vector<float> ref = random_plane(size, content, seed++);
      const std::vector<float> dis = distort(ref, content, seed++);
      const WindowStatistics stats = window_statistics_plain(ref.data(), dis.data(), size);
      const size_t m = stats.size.pixels();
      std::vector<double> l(m), c(m);
      std::vector<float> s(m);
      lcs_terms_plain(stats, l.data(), c.data(), s.data());
      for (const Table& table : tables()) {
        std::vector<double> fl(m, -1), fc(m, -1);
        std::vector<float> fs(m, -1);
        // Whole map, then the same map in two row ranges (a strip boundary).
        lcs_rows(ref.data(), dis.data(), size, 0, stats.size.height, fl.data(), fc.data(),
                 fs.data(), table.kernels);
        expect_same_bits(fl, l, "l " + label(size, content, table));
        expect_same_bits(fc, c, "c " + label(size, content, table));
        expect_same_bits(fs, s, "s " + label(size, content, table));
        const int cut = stats.size.height / 2;
        const size_t offset = size_t(cut) * size_t(stats.size.width);
        std::fill(fl.begin(), fl.end(), -1);
        lcs_rows(ref.data(), dis.data(), size, 0, cut, fl.data(), fc.data(), fs.data(),
                 table.kernels);
        lcs_rows(ref.data(), dis.data(), size, cut, stats.size.height, fl.data() + offset,
                 fc.data() + offset, fs.data() + offset, table.kernels);
        expect_same_bits(fl, l, "l split " + label(size, content, table));
      }
    }
}

TEST(FloatMsSsimKernels, FlatIdenticalPlanesGiveExactlyOne) {
  // Identical inputs: l = c = s = 1 everywhere thanks to the clamp and the flat-region fix.
  const Size size{23, 17};
  const std::vector<float> p = random_plane(size, Content::kFlat, 1);
  const ScaleMeans m = ssim_scale_plain(p.data(), p.data(), size);
  EXPECT_EQ(m.l, 1.0f);
  EXPECT_EQ(m.c, 1.0f);
  EXPECT_EQ(m.s, 1.0f);
  EXPECT_EQ(m.ssim, 1.0f);
}

TEST(FloatMsSsimKernels, ScaleMeansMatchPlainTwinForAnyThreadCount) {
  ThreadPool pool1(1), pool2(2);
  ThreadPool* pools[] = {nullptr, &pool1, &pool2};
  // Tall enough for several strips and waves of the parallel driver, wide enough for its tiles.
  const Size sizes[] = {{37, 300}, {203, 41}, {600, 150}, {11, 11}};
  uint32_t seed = 500;
  for (Size size : sizes)
    for (Content content : {Content::kInteger8, Content::kReal}) {
      const std::vector<float> ref = random_plane(size, content, seed++);
      const std::vector<float> dis = distort(ref, content, seed++);
      const ScaleMeans plain = ssim_scale_plain(ref.data(), dis.data(), size);
      for (const Table& table : tables())
        for (ThreadPool* pool : pools) {
          const ScaleMeans fast = ssim_scale(ref.data(), dis.data(), size, pool, table.kernels);
          const std::string what = label(size, content, table);
          EXPECT_EQ(std::bit_cast<uint32_t>(fast.l), std::bit_cast<uint32_t>(plain.l)) << what;
          EXPECT_EQ(std::bit_cast<uint32_t>(fast.c), std::bit_cast<uint32_t>(plain.c)) << what;
          EXPECT_EQ(std::bit_cast<uint32_t>(fast.s), std::bit_cast<uint32_t>(plain.s)) << what;
          EXPECT_EQ(std::bit_cast<uint32_t>(fast.ssim), std::bit_cast<uint32_t>(plain.ssim))
              << what;
        }
    }
}

TEST(FloatMsSsimKernels, SqrtOfF32ProductEqualsDoubleRoundedSqrt) {
  // The vector kernels use sqrtf-equivalent instructions; upstream rounds sqrt(double) to float.
  std::mt19937 rng(3);
  for (int i = 0; i < 1000000; ++i) {
    const float p = std::bit_cast<float>(uint32_t(rng() % 0x7f800000u));  // any finite non-negative
    ASSERT_EQ(std::bit_cast<uint32_t>(std::sqrt(p)),
              std::bit_cast<uint32_t>(float(std::sqrt(double(p)))))
        << p;
  }
}

TEST(FloatMsSsimKernels, DbConversionFollowsUpstream) {
  EXPECT_EQ(max_db(false, 8, 1920, 1080), INFINITY);
  EXPECT_EQ(max_db(true, 8, 1920, 1080), 115.0);  // spec section 6 example
  EXPECT_EQ(max_db(true, 16, 1920, 1080),
            std::ceil(10. * std::log10(4294836225.0 / (0.5 / 2073600.0))));
  EXPECT_EQ(to_db(1.0, INFINITY), INFINITY);
  EXPECT_EQ(to_db(1.0, 115.0), 115.0);
  EXPECT_EQ(to_db(0.9, INFINITY), -10. * std::log10(1 - 0.9));
  EXPECT_EQ(to_db(NAN, 60.0), 60.0);  // upstream's MIN picks max_db for NaN
}

}  // namespace
}  // namespace vqx::ssim
