// The per-thread arithmetic of the MS-SSIM window kernel (metrics/float_ms_ssim/cuda/ssim_tile.h),
// run on the host: the same register-blocked runs the device executes (a run of 4 outputs of the
// horizontal pass, a run of 8 outputs of the vertical pass, symmetric taps sharing one product),
// compared bit for bit with the plain twins of ssim_stages.h. Needs no device, so it also runs
// where only the CUDA build (not the GPU) exists. float_ms_ssim_cuda_test checks the device.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "metrics/float_ms_ssim/cuda/ssim_tile.h"
#include "metrics/float_ms_ssim/ssim_stages.h"

namespace vqx::test {
namespace {

using ssim::Size;
namespace tile = ssim::cuda::tile;

struct HostGaussian {
  static float g(int t) { return ssim::kGaussian[t]; }
};

constexpr int kRunH = 8, kRunV = 8;  // as window_kernel

TEST(SsimTile, GaussianTableIsSymmetricBitForBit) {
  for (int t = 0; t < ssim::kWindowTaps; ++t)
    EXPECT_EQ(std::bit_cast<uint32_t>(ssim::kGaussian[t]),
              std::bit_cast<uint32_t>(ssim::kGaussian[ssim::kWindowMargin - t]))
        << t;
}

// f32(sqrt_f64(f64(x))) == sqrt_f32(x) for every non-negative f32 (sampled: every 61st pattern,
// every subnormal and the first patterns of every binade).
TEST(SsimTile, F32SquareRootEqualsRoundedF64SquareRoot) {
  size_t checked = 0, bad = 0;
  auto check = [&](uint32_t u) {
    const float x = std::bit_cast<float>(u);
    const float a = tile::fsqrt(x), b = float(std::sqrt(double(x)));
    ++checked;
    if (std::bit_cast<uint32_t>(a) != std::bit_cast<uint32_t>(b) && ++bad < 5) ADD_FAILURE() << std::hexfloat << x;
  };
  for (uint32_t u = 0; u < 0x7f800000u; u += 61) check(u);
  for (uint32_t u = 0; u < 0x00800000u; u += 7) check(u);
  for (uint32_t e = 0; e < 255; ++e)
    for (uint32_t m = 0; m < 4096; ++m) check((e << 23) | m), check((e << 23) | (0x7fffffu - m));
  check(0x80000000u);  // -0
  EXPECT_EQ(bad, 0u) << checked;
}

// The map planes as the kernel forms them: horizontal runs of kRunH outputs (padded input), then
// vertical runs of kRunV outputs, then the terms.
struct Emulated {
  std::vector<float> mu_r, mu_d, rr, dd, rd, s;
  std::vector<double> l, c;
};

Emulated emulate(const std::vector<float>& ref, const std::vector<float>& dis, Size size) {
  const Size map = ssim::map_size(size);
  const int runs_h = (map.width + kRunH - 1) / kRunH, runs_v = (map.height + kRunV - 1) / kRunV;
  const int pw = runs_h * kRunH, ph = runs_v * kRunV;  // padded pass width, map height
  // Padded input: past the plane the kernel reads unrelated words; here a value that would show.
  const int iw = pw + ssim::kWindowMargin;
  std::vector<float> r(size_t(iw) * size.height, 1e30f), d(size_t(iw) * size.height, -7.0f);
  for (int y = 0; y < size.height; ++y)
    for (int x = 0; x < size.width; ++x) {
      r[size_t(y) * iw + x] = ref[size_t(y) * size.width + x];
      d[size_t(y) * iw + x] = dis[size_t(y) * size.width + x];
    }
  const int prow = ph + ssim::kWindowMargin;
  std::vector<float> pass[5];
  for (auto& p : pass) p.assign(size_t(pw) * prow, 3.0f);
  for (int y = 0; y < size.height; ++y)
    for (int x = 0; x < pw; x += kRunH) {
      float out[5][kRunH];
      tile::horizontal_run<kRunH, HostGaussian>(&r[size_t(y) * iw + x], &d[size_t(y) * iw + x], out);
      for (int q = 0; q < 5; ++q)
        for (int j = 0; j < kRunH; ++j) pass[q][size_t(y) * pw + x + j] = out[q][j];
    }
  Emulated e;
  const size_t m = map.pixels();
  std::vector<float>* planes[5] = {&e.mu_r, &e.mu_d, &e.rr, &e.dd, &e.rd};
  for (auto* p : planes) p->resize(m);
  e.s.resize(m);
  e.l.resize(m);
  e.c.resize(m);
  for (int x = 0; x < map.width; ++x)
    for (int y = 0; y < map.height; y += kRunV) {
      float stat[5][kRunV];
      for (int q = 0; q < 5; ++q) {
        float col[kRunV + ssim::kWindowMargin];
        for (int i = 0; i < kRunV + ssim::kWindowMargin; ++i) col[i] = pass[q][size_t(y + i) * pw + x];
        switch (q) {
          case 0: tile::convolve_run<kRunV, tile::kQuantityWiden[0], HostGaussian>(col, stat[0]); break;
          case 1: tile::convolve_run<kRunV, tile::kQuantityWiden[1], HostGaussian>(col, stat[1]); break;
          case 2: tile::convolve_run<kRunV, tile::kQuantityWiden[2], HostGaussian>(col, stat[2]); break;
          case 3: tile::convolve_run<kRunV, tile::kQuantityWiden[3], HostGaussian>(col, stat[3]); break;
          default: tile::convolve_run<kRunV, tile::kQuantityWiden[4], HostGaussian>(col, stat[4]); break;
        }
      }
      for (int j = 0; j < kRunV && y + j < map.height; ++j) {
        const size_t o = size_t(y + j) * map.width + x;
        for (int q = 0; q < 5; ++q) (*planes[q])[o] = stat[q][j];
        const tile::Terms t = tile::lcs_terms(stat[0][j], stat[1][j], stat[2][j], stat[3][j], stat[4][j]);
        e.l[o] = t.l;
        e.c[o] = t.c;
        e.s[o] = t.s;
      }
    }
  return e;
}

template <class T>
size_t count_diff(const std::vector<T>& a, const std::vector<T>& b) {
  EXPECT_EQ(a.size(), b.size());
  size_t n = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) n += std::memcmp(&a[i], &b[i], sizeof(T)) != 0;
  return n;
}

enum class Kind { kBytes, kF32, kSigned, kTiny, kFlat, kZero };

std::vector<float> make_plane(Kind kind, Size size, std::mt19937& rng) {
  std::vector<float> p(size.pixels());
  std::uniform_real_distribution<float> u01(0.0f, 1.0f);
  for (size_t i = 0; i < p.size(); ++i) {
    switch (kind) {
      case Kind::kBytes: p[i] = float(rng() % 256); break;
      case Kind::kF32: p[i] = 255.0f * u01(rng); break;
      case Kind::kSigned: p[i] = 40.0f * (u01(rng) - 0.5f); break;
      case Kind::kTiny: p[i] = std::ldexp(u01(rng) - 0.3f, -60 - int(rng() % 70)); break;
      case Kind::kFlat: p[i] = 117.25f; break;
      case Kind::kZero: p[i] = (rng() & 1) ? 0.0f : -0.0f; break;
    }
  }
  return p;
}

class SsimTileRuns : public ::testing::TestWithParam<std::tuple<int, int, int>> {};

TEST_P(SsimTileRuns, BitIdenticalToThePlainTwins) {
  const auto [w, h, kind_index] = GetParam();
  const Size size{w, h};
  std::mt19937 rng(uint32_t(w * 131 + h * 7 + kind_index));
  const Kind kinds[][2] = {{Kind::kBytes, Kind::kBytes}, {Kind::kF32, Kind::kF32},
                           {Kind::kSigned, Kind::kF32},  {Kind::kTiny, Kind::kTiny},
                           {Kind::kFlat, Kind::kBytes},  {Kind::kZero, Kind::kSigned}};
  const auto ref = make_plane(kinds[kind_index][0], size, rng);
  const auto dis = make_plane(kinds[kind_index][1], size, rng);
  const Emulated e = emulate(ref, dis, size);

  const Size map = ssim::map_size(size);
  const size_t n = size.pixels(), m = map.pixels();
  std::vector<float> rr(n), dd(n), rd(n);
  for (size_t i = 0; i < n; ++i) rr[i] = ref[i] * ref[i], dd[i] = dis[i] * dis[i], rd[i] = ref[i] * dis[i];
  std::vector<float> want(m);
  const std::vector<float>* inputs[5] = {&ref, &dis, &rr, &dd, &rd};
  const std::vector<float>* got[5] = {&e.mu_r, &e.mu_d, &e.rr, &e.dd, &e.rd};
  for (int q = 0; q < 5; ++q) {
    ssim::window_convolve_plain(inputs[q]->data(), size, want.data());
    EXPECT_EQ(count_diff(*got[q], want), 0u) << "quantity " << q;
  }
  const ssim::WindowStatistics st = ssim::window_statistics_plain(ref.data(), dis.data(), size);
  std::vector<double> l(m), c(m);
  std::vector<float> s(m);
  ssim::lcs_terms_plain(st, l.data(), c.data(), s.data());
  EXPECT_EQ(count_diff(e.l, l), 0u);
  EXPECT_EQ(count_diff(e.c, c), 0u);
  EXPECT_EQ(count_diff(e.s, s), 0u);
}

INSTANTIATE_TEST_SUITE_P(Sizes, SsimTileRuns,
                         ::testing::Combine(::testing::Values(11, 12, 19, 43, 77, 300),
                                            ::testing::Values(11, 18, 27, 91),
                                            ::testing::Values(0, 1, 2, 3, 4, 5)));

}  // namespace
}  // namespace vqx::test
