// The fast blur kernels (eight lines per vector, in place) against the plain twin of spec 6.2/6.3,
// bit for bit, on random planes of edge sizes and on split row/column ranges.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <random>
#include <vector>

#include "metrics/ssimulacra2/ssimulacra2_core.h"

namespace vqx::ssimulacra2 {
namespace {

std::vector<float> random_plane(uint32_t w, uint32_t h, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-0.2f, 1.3f);
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

struct Size {
  uint32_t w, h;
};
const Size kSizes[] = {{1, 1},  {1, 17}, {17, 1},  {2, 3},   {7, 7},   {8, 8},    {9, 9},
                       {15, 16}, {16, 15}, {31, 33}, {64, 64}, {65, 7},  {100, 3},  {257, 19},
                       {300, 41}, {3, 300}};

TEST(Ssimulacra2Blur, FastPlaneMatchesPlainTwin) {
  for (const Size& s : kSizes) {
    const std::string what = std::to_string(s.w) + "x" + std::to_string(s.h);
    std::vector<float> in = random_plane(s.w, s.h, s.w * 131 + s.h);
    std::vector<float> temp(in.size()), want(in.size());
    blur_plane_reference(in.data(), temp.data(), want.data(), s.w, s.h);

    std::vector<float> fast = in;
    blur_rows_in_place(fast.data(), s.w, s.h, 0, s.h);
    expect_same_bits(fast, temp, s.w, what + " rows");
    blur_columns_in_place(fast.data(), s.w, s.h, 0, s.w);
    expect_same_bits(fast, want, s.w, what + " plane");
  }
}

TEST(Ssimulacra2Blur, SplitRangesGiveTheSameBits) {
  // The pipeline hands row blocks and column chunks to different threads: any split must agree.
  const uint32_t w = 203, h = 77;
  std::vector<float> in = random_plane(w, h, 11);
  std::vector<float> temp(in.size()), want(in.size());
  blur_plane_reference(in.data(), temp.data(), want.data(), w, h);
  std::vector<float> fast = in;
  for (uint32_t y = 0; y < h; y += 13) blur_rows_in_place(fast.data(), w, h, y, std::min(h, y + 13));
  for (uint32_t x = 0; x < w; x += 70) blur_columns_in_place(fast.data(), w, h, x, std::min(w, x + 70));
  expect_same_bits(fast, want, w, "split");
}

TEST(Ssimulacra2Blur, FusedProductMatchesProductThenBlur) {
  for (const Size& s : kSizes) {
    const std::string what = std::to_string(s.w) + "x" + std::to_string(s.h);
    std::vector<float> a = random_plane(s.w, s.h, 5), b = random_plane(s.w, s.h, 6);
    std::vector<float> product(a.size()), temp(a.size()), want(a.size());
    multiply_planes(a.data(), b.data(), product.data(), 0, a.size());
    blur_plane_reference(product.data(), temp.data(), want.data(), s.w, s.h);

    std::vector<float> fast(a.size());
    blur_rows_of_product(a.data(), b.data(), fast.data(), s.w, 0, s.h);
    blur_columns_in_place(fast.data(), s.w, s.h, 0, s.w);
    expect_same_bits(fast, want, s.w, what + " a*b");

    std::vector<float> plain_want(a.size());
    blur_plane_reference(a.data(), temp.data(), plain_want.data(), s.w, s.h);
    blur_rows_of_product(a.data(), nullptr, fast.data(), s.w, 0, s.h);
    blur_columns_in_place(fast.data(), s.w, s.h, 0, s.w);
    expect_same_bits(fast, plain_want, s.w, what + " a");
  }
}

// The streamed vertical pass (strips of rows through a ring, state carried per column) against
// the plain twin's vertical pass, for several strip and ring sizes.
TEST(Ssimulacra2Blur, StreamedColumnsMatchPlainTwin) {
  struct Ring {
    uint32_t strip, rows;
  };
  for (const Size& s : kSizes) {
    const std::vector<float> in = random_plane(s.w, s.h, 7 + s.w * 31 + s.h);
    std::vector<float> temp(in.size()), want(in.size());
    blur_plane_reference(in.data(), temp.data(), want.data(), s.w, s.h);
    for (const Ring r : {Ring{8, 24}, Ring{16, 32}, Ring{8, 32}}) {
      const std::string what = std::to_string(s.w) + "x" + std::to_string(s.h) + " strip " +
                               std::to_string(r.strip) + " ring " + std::to_string(r.rows);
      std::vector<float> ring(size_t{r.rows} * s.w, 1e30f);  // garbage that must not leak in
      std::vector<float> state(column_state_floats(s.w), 0.0f);
      std::vector<float> got(in.size(), -1.0f);
      for (uint32_t y0 = 0; y0 < s.h; y0 += r.strip) {
        const uint32_t y1 = std::min(s.h, y0 + r.strip);
        for (uint32_t y = y0; y < y1; ++y)  // the horizontal pass's rows, from the plain twin
          std::memcpy(ring.data() + size_t{y % r.rows} * s.w, temp.data() + size_t{y} * s.w,
                      s.w * sizeof(float));
        const long t0 = long(y0) - 4, t1 = y1 == s.h ? long(s.h) : long(y1) - 4;
        blur_columns_steps(ring.data(), r.rows, s.w, s.h, t0, t1, state.data());
        for (long t = std::max(t0, 0L); t < t1; ++t)
          std::memcpy(got.data() + size_t(t) * s.w,
                      ring.data() + size_t((t + r.rows - 6) % r.rows) * s.w, s.w * sizeof(float));
      }
      expect_same_bits(got, want, s.w, what);
    }
  }
}

}  // namespace
}  // namespace vqx::ssimulacra2
