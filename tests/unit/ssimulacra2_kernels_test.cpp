// The CPU kernel tables (ssimulacra2_kernels.h) against the plain twins of ssimulacra2_core.h, bit
// for bit: every entry of the plain table and of each table this host runs, on seeded random
// planes of edge sizes (widths 1 to 64 and around the lane, block and strip sizes), split row and
// column ranges, streamed rings, and both edge-difference modes.
#include "metrics/ssimulacra2/ssimulacra2_kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "support/kernel_twins.h"

namespace vqx::ssimulacra2 {
namespace {

struct Table {
  std::string name;
  Ssimulacra2Kernels kernels;
};

// The plain table and every distinct one this host runs (each level, the host's own).
std::vector<Table> tables() {
  std::vector<Table> out = {{"plain", make_ssimulacra2_kernels(CpuFeatures{})}};
  for (const auto& [name, k] :
       vqx::test::tables_to_check(make_ssimulacra2_kernels, ssimulacra2_kernels()))
    out.push_back({name, k});
  return out;
}

std::vector<float> random_plane(uint32_t w, uint32_t h, uint32_t seed, float lo = -0.2f,
                                float hi = 1.3f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> p(size_t{w} * h);
  for (float& v : p) v = dist(rng);
  return p;
}

void expect_same_bits(const std::vector<float>& got, const std::vector<float>& want, uint32_t w,
                      const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(std::bit_cast<uint32_t>(got[i]), std::bit_cast<uint32_t>(want[i]))
        << what << " at x=" << i % w << " y=" << i / w;
}

void expect_same_bits(double got, double want, const std::string& what) {
  EXPECT_EQ(std::bit_cast<uint64_t>(got), std::bit_cast<uint64_t>(want)) << what;
}

struct Size {
  uint32_t w, h;
};
std::vector<Size> sizes() {
  std::vector<Size> s = {{1, 1},   {1, 17},   {17, 1},   {2, 3},   {7, 7},   {8, 8},
                         {9, 9},   {15, 16},  {16, 15},  {31, 33}, {64, 64}, {65, 7},
                         {100, 3}, {257, 19}, {300, 41}, {3, 300}};
  for (uint32_t w = 1; w <= 64; ++w) s.push_back({w, 9});
  return s;
}

std::string name_of(const Table& t, const Size& s) {
  return t.name + " " + std::to_string(s.w) + "x" + std::to_string(s.h);
}

// Random linear RGB (exact 0 and 1 every 13th sample, a few negative mixes) at lengths that
// exercise the lane tail.
TEST(Ssimulacra2Kernels, XybPlanesMatchScalarTwin) {
  std::vector<size_t> lengths = {255, 256, 257, 1000};
  for (size_t n = 1; n <= 64; ++n) lengths.push_back(n);
  for (const Table& t : tables()) {
    for (size_t n : lengths) {
      std::vector<float> in = random_plane(uint32_t(3 * n), 1, uint32_t(7 + n), -0.05f, 1.0f);
      for (size_t i = 0; i < in.size(); i += 13) in[i] = float(i % 2);
      std::vector<float> out(3 * n);
      ConstRgbPlanes src{{in.data(), in.data() + n, in.data() + 2 * n}, uint32_t(n), 1};
      RgbPlanes dst{{out.data(), out.data() + n, out.data() + 2 * n}, uint32_t(n), 1};
      t.kernels.xyb_planes(src, dst, 0, n);
      for (size_t i = 0; i < n; ++i) {
        const XybPixel p = linear_rgb_to_xyb(in[i], in[n + i], in[2 * n + i]);
        ASSERT_EQ(std::bit_cast<uint32_t>(out[i]), std::bit_cast<uint32_t>(p.x))
            << t.name << " " << n << " " << i;
        ASSERT_EQ(std::bit_cast<uint32_t>(out[n + i]), std::bit_cast<uint32_t>(p.y))
            << t.name << " " << n << " " << i;
        ASSERT_EQ(std::bit_cast<uint32_t>(out[2 * n + i]), std::bit_cast<uint32_t>(p.b))
            << t.name << " " << n << " " << i;
      }
    }
  }
}

TEST(Ssimulacra2Kernels, BlurPlaneMatchesPlainTwin) {
  for (const Table& t : tables()) {
    for (const Size& s : sizes()) {
      const std::string what = name_of(t, s);
      std::vector<float> in = random_plane(s.w, s.h, s.w * 131 + s.h);
      std::vector<float> temp(in.size()), want(in.size());
      blur_plane_reference(in.data(), temp.data(), want.data(), s.w, s.h);

      std::vector<float> fast = in;
      t.kernels.blur_rows(fast.data(), nullptr, fast.data(), s.w, 0, s.h);
      expect_same_bits(fast, temp, s.w, what + " rows");
      t.kernels.blur_columns(fast.data(), s.w, s.h, 0, s.w);
      expect_same_bits(fast, want, s.w, what + " plane");
    }
  }
}

TEST(Ssimulacra2Kernels, SplitRangesGiveTheSameBits) {
  // The pipeline hands row blocks and column chunks to different threads: any split must agree.
  const uint32_t w = 203, h = 77;
  std::vector<float> in = random_plane(w, h, 11);
  std::vector<float> temp(in.size()), want(in.size());
  blur_plane_reference(in.data(), temp.data(), want.data(), w, h);
  for (const Table& t : tables()) {
    std::vector<float> fast = in;
    for (uint32_t y = 0; y < h; y += 13)
      t.kernels.blur_rows(fast.data(), nullptr, fast.data(), w, y, std::min(h, y + 13));
    for (uint32_t x = 0; x < w; x += 70)
      t.kernels.blur_columns(fast.data(), w, h, x, std::min(w, x + 70));
    expect_same_bits(fast, want, w, t.name + " split");
  }
}

TEST(Ssimulacra2Kernels, FusedProductMatchesProductThenBlur) {
  for (const Table& t : tables()) {
    for (const Size& s : sizes()) {
      const std::string what = name_of(t, s);
      std::vector<float> a = random_plane(s.w, s.h, 5), b = random_plane(s.w, s.h, 6);
      std::vector<float> product(a.size()), temp(a.size()), want(a.size());
      multiply_planes(a.data(), b.data(), product.data(), 0, a.size());
      blur_plane_reference(product.data(), temp.data(), want.data(), s.w, s.h);

      std::vector<float> fast(a.size());
      t.kernels.blur_rows(a.data(), b.data(), fast.data(), s.w, 0, s.h);
      t.kernels.blur_columns(fast.data(), s.w, s.h, 0, s.w);
      expect_same_bits(fast, want, s.w, what + " a*b");

      std::vector<float> plain_want(a.size());
      blur_plane_reference(a.data(), temp.data(), plain_want.data(), s.w, s.h);
      t.kernels.blur_rows(a.data(), nullptr, fast.data(), s.w, 0, s.h);
      t.kernels.blur_columns(fast.data(), s.w, s.h, 0, s.w);
      expect_same_bits(fast, plain_want, s.w, what + " a");
    }
  }
}

// The streamed vertical pass (strips of rows through a ring, state carried per column) against
// the plain twin's vertical pass, for several strip and ring sizes.
TEST(Ssimulacra2Kernels, StreamedColumnsMatchPlainTwin) {
  struct Ring {
    uint32_t strip, rows;
  };
  for (const Table& t : tables()) {
    for (const Size& s : sizes()) {
      const std::vector<float> in = random_plane(s.w, s.h, 7 + s.w * 31 + s.h);
      std::vector<float> temp(in.size()), want(in.size());
      blur_plane_reference(in.data(), temp.data(), want.data(), s.w, s.h);
      for (const Ring r : {Ring{8, 24}, Ring{16, 32}, Ring{8, 32}}) {
        const std::string what =
            name_of(t, s) + " strip " + std::to_string(r.strip) + " ring " + std::to_string(r.rows);
        std::vector<float> ring(size_t{r.rows} * s.w, 1e30f);  // garbage that must not leak in
        std::vector<float> state(column_state_floats(s.w), 0.0f);
        std::vector<float> got(in.size(), -1.0f);
        for (uint32_t y0 = 0; y0 < s.h; y0 += r.strip) {
          const uint32_t y1 = std::min(s.h, y0 + r.strip);
          for (uint32_t y = y0; y < y1; ++y)  // the horizontal pass's rows, from the plain twin
            std::memcpy(ring.data() + size_t{y % r.rows} * s.w, temp.data() + size_t{y} * s.w,
                        s.w * sizeof(float));
          const long t0 = long(y0) - 4, t1 = y1 == s.h ? long(s.h) : long(y1) - 4;
          t.kernels.blur_columns_steps(ring.data(), r.rows, s.w, s.h, t0, t1, state.data());
          for (long y = std::max(t0, 0L); y < t1; ++y)
            std::memcpy(got.data() + size_t(y) * s.w,
                        ring.data() + size_t((y + r.rows - 6) % r.rows) * s.w, s.w * sizeof(float));
        }
        expect_same_bits(got, want, s.w, what);
      }
    }
  }
}

// Blurred statistics that look like the pipeline's: means in [0, 1], second moments near the
// squared means (so that the SSIM denominators are small and the clamp at 0 is reached).
struct TermPlanes {
  std::vector<float> img1, img2, mu1, mu2, s11, s22, s12;
};
TermPlanes term_planes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f), jitter(-0.02f, 0.02f);
  TermPlanes p;
  for (size_t i = 0; i < n; ++i) {
    const float m1 = unit(rng), m2 = i % 17 == 0 ? m1 : unit(rng);
    p.mu1.push_back(m1);
    p.mu2.push_back(m2);
    p.s11.push_back(m1 * m1 + std::abs(jitter(rng)));
    p.s22.push_back(m2 * m2 + std::abs(jitter(rng)));
    p.s12.push_back(m1 * m2 + jitter(rng));
    p.img1.push_back(i % 11 == 0 ? m1 : m1 + 10.0f * jitter(rng));
    p.img2.push_back(i % 13 == 0 ? m2 : m2 + 10.0f * jitter(rng));
  }
  return p;
}

// The sums in raster order, one pixel at a time: the plain twin of both term kernels.
ChannelSums plain_sums(const TermPlanes& p, size_t n, size_t f32_count) {
  ChannelSums s;
  for (size_t i = 0; i < n; ++i) {
    const double d = ssim_term(p.mu1[i], p.mu2[i], p.s11[i], p.s22[i], p.s12[i]);
    s.s1 += d;
    s.s4 += quartic(d);
    const double r = i < f32_count
                         ? edge_ratio_f32_difference(p.img1[i], p.mu1[i], p.img2[i], p.mu2[i])
                         : edge_ratio(p.img1[i], p.mu1[i], p.img2[i], p.mu2[i]);
    const double art = r > 0.0 ? r : 0.0, det = r < 0.0 ? -r : 0.0;
    s.a1 += art;
    s.a4 += quartic(art);
    s.d1 += det;
    s.d4 += quartic(det);
  }
  return s;
}

void expect_same_sums(const ChannelSums& got, const ChannelSums& want, const std::string& what) {
  expect_same_bits(got.s1, want.s1, what + " S1");
  expect_same_bits(got.s4, want.s4, what + " S4");
  expect_same_bits(got.a1, want.a1, what + " A1");
  expect_same_bits(got.a4, want.a4, what + " A4");
  expect_same_bits(got.d1, want.d1, what + " D1");
  expect_same_bits(got.d4, want.d4, what + " D4");
}

// Both term kernels against the plain twin, whole and split into runs (as the streamed pipeline
// calls them row by row), with every f32/f64 split of the edge difference that matters.
TEST(Ssimulacra2Kernels, TermSumsMatchPlainTwin) {
  std::vector<size_t> lengths = {255, 256, 257, 1000, 4097};
  for (size_t n = 1; n <= 64; ++n) lengths.push_back(n);
  for (const Table& t : tables()) {
    for (size_t n : lengths) {
      const TermPlanes p = term_planes(n, uint32_t(n));
      for (size_t f32_count : {size_t{0}, n - n % 8, n / 2, n}) {
        const std::string what =
            t.name + " n " + std::to_string(n) + " f32 " + std::to_string(f32_count);
        const ChannelSums want = plain_sums(p, n, f32_count);
        ChannelSums whole;
        t.kernels.sum_ssim_terms(p.mu1.data(), p.mu2.data(), p.s11.data(), p.s22.data(),
                                 p.s12.data(), n, whole);
        t.kernels.sum_edge_terms(p.img1.data(), p.mu1.data(), p.img2.data(), p.mu2.data(), n,
                                 f32_count, whole);
        expect_same_sums(whole, want, what);
        ChannelSums runs;
        for (size_t b = 0; b < n; b += 37) {
          const size_t e = std::min(n, b + 37);
          const size_t f32_in_run = f32_count > b ? std::min(e, f32_count) - b : 0;
          t.kernels.sum_ssim_terms(p.mu1.data() + b, p.mu2.data() + b, p.s11.data() + b,
                                   p.s22.data() + b, p.s12.data() + b, e - b, runs);
          t.kernels.sum_edge_terms(p.img1.data() + b, p.mu1.data() + b, p.img2.data() + b,
                                   p.mu2.data() + b, e - b, f32_in_run, runs);
        }
        expect_same_sums(runs, want, what + " in runs");
      }
    }
  }
}

}  // namespace
}  // namespace vqx::ssimulacra2
