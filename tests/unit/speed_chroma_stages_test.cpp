// speed_chroma stage by stage: the spec's constants and tables (speed.md 4, 5.2, 6.3, 9.1), the
// fused preprocessing and the covariance of every kernel table against their plain twins
// (identical bits), and properties of the f32 solver, entropies and the combination rules.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "metrics/speed_core/speed_covariance.h"
#include "metrics/speed_core/speed_entropy.h"
#include "metrics/speed_core/speed_kernels.h"
#include "metrics/speed_core/speed_pipeline.h"
#include "metrics/speed_core/speed_preprocess.h"
#include "metrics/speed_core/speed_solver.h"
#include "support/kernel_twins.h"

namespace vqx::speed {
namespace {

uint32_t bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
uint64_t bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}
float from_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

TEST(SpeedChromaTables, TapsForKernelScaleOne) {
  // speed.md 6.3 table (f32 bits).
  const SpeedFilters f = make_filters(1.0f);
  const uint32_t antialias[] = {0x3d9aedc6, 0x3dcaf6b8, 0x3df6259e, 0x3e0a2cd8, 0x3e0f9c33,
                                0x3e0a2cd8, 0x3df6259e, 0x3dcaf6b8, 0x3d9aedc6};
  const uint32_t mean[] = {0x3e2a5f21, 0x3f2ad06f, 0x3e2a5f21};
  ASSERT_EQ(f.antialias.size(), 9u);
  ASSERT_EQ(f.mean.size(), 3u);
  for (size_t i = 0; i < 9; ++i) EXPECT_EQ(bits(f.antialias[i]), antialias[i]) << i;
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(bits(f.mean[i]), mean[i]) << i;
  // The same taps from the widths directly: sigma1 = RN32(3.6), sigma2 = RN32(0.6).
  EXPECT_EQ(gaussian_taps(9, from_bits(0x40666666)), f.antialias);
  EXPECT_EQ(gaussian_taps(3, from_bits(0x3f19999a)), f.mean);
}

TEST(SpeedChromaTables, FilterWidthsOfOtherKernelScales) {
  // speed.md 14.2: ks 0.5, 1.5 and 2 give widths 5/3, 15/3 and 19/5.
  const std::pair<float, std::pair<size_t, size_t>> cases[] = {
      {0.5f, {5, 3}}, {1.5f, {15, 3}}, {2.0f, {19, 5}}};
  for (const auto& [ks, w] : cases) {
    const SpeedFilters f = make_filters(ks);
    EXPECT_EQ(f.antialias.size(), w.first) << ks;
    EXPECT_EQ(f.mean.size(), w.second) << ks;
  }
  EXPECT_TRUE(is_valid_kernel_scale(float(360.0 / 97.0)));
  EXPECT_TRUE(is_valid_kernel_scale(0.4444f));
  EXPECT_FALSE(is_valid_kernel_scale(0.8f));
}

TEST(SpeedChromaTables, ThresholdAndConstants) {
  const float sigma = float(0.19), phi = float(0.1);
  EXPECT_EQ(bits(sigma), 0x3e428f5cu);
  EXPECT_EQ(bits(phi), 0x3dcccccdu);
  EXPECT_EQ(bits((1.0f + phi) * sigma), 0x3e560419u);
  EXPECT_EQ(bits(entropy_threshold(sigma, phi)), 0x4237939cu);  // speed.md 9.1
  EXPECT_EQ(bits(kLog2TwoPiE), bits(4.0941911703612822));
}

TEST(SpeedChromaGeometry, FixtureTable) {
  // speed.md 4, chroma planes of the fixtures: w, h, ps -> sw, sh, ow, oh, tw, th, nb, N.
  struct Row {
    uint32_t w, h;
    double ps;
    uint32_t sw, sh, ow, oh, tw, th, nb, n;
  };
  const Row rows[] = {
      {288, 162, 1, 288, 162, 18, 10, 15, 10, 6, 66},
      {288, 162, 0.6, 173, 97, 10, 6, 10, 5, 2, 6},
      {288, 162, 0.5, 144, 81, 9, 5, 5, 5, 1, 1},
      {960, 540, 1, 960, 540, 60, 33, 60, 30, 72, 1456},
      {960, 540, 0.6, 576, 324, 36, 20, 35, 20, 28, 496},
      {960, 540, 0.5, 480, 270, 30, 16, 30, 15, 18, 286},
      {853, 481, 1, 853, 481, 53, 30, 50, 30, 60, 1196},
      {853, 481, 0.6, 512, 289, 32, 18, 30, 15, 18, 286},
      {853, 481, 0.5, 427, 241, 26, 15, 25, 15, 15, 231},
      {640, 360, 0.6, 384, 216, 24, 13, 20, 10, 8, 96},
      {1920, 1080, 1, 1920, 1080, 120, 67, 120, 65, 312, 7076},
      {1920, 1080, 0.6, 1152, 648, 72, 40, 70, 40, 112, 2376},
      {320, 240, 0.6, 192, 144, 12, 9, 10, 5, 2, 6},
  };
  for (const Row& r : rows) {
    const Geometry g = make_geometry(r.w, r.h, r.ps);
    EXPECT_EQ(g.sw, r.sw);
    EXPECT_EQ(g.sh, r.sh);
    EXPECT_EQ(g.ow, r.ow);
    EXPECT_EQ(g.oh, r.oh);
    EXPECT_EQ(g.tw, r.tw);
    EXPECT_EQ(g.th, r.th);
    EXPECT_EQ(g.nb, r.nb);
    EXPECT_EQ(g.n, r.n) << r.w << "x" << r.h << " ps " << r.ps;
    EXPECT_EQ(g.prescale_active, r.ps != 1.0);
  }
  // 5.1 trap: within 1e-3 of 1 the resampler is skipped but the size still changes.
  const Geometry odd = make_geometry(1000, 500, 1.0005);
  EXPECT_FALSE(odd.prescale_active);
  EXPECT_EQ(odd.sw, 1001u);
}

TEST(SpeedChromaPrescale, BilinearAxes) {
  // ps = 0.5 on an even length: r = 2, t = 2k + 0.5, every fraction 1/2.
  const BilinearAxis half = make_bilinear_axis(960, 480);
  for (uint32_t k = 0; k < 480; ++k) {
    EXPECT_EQ(half.i1[k], 2 * k);
    EXPECT_EQ(half.i2[k], 2 * k + 1);
    EXPECT_EQ(half.frac[k], 0.5f);
  }
  // 853 -> 427: r = 1.99765813 and the phase drifts from 0.4988 to 851.5012 (5.2).
  const BilinearAxis odd = make_bilinear_axis(853, 427);
  EXPECT_FLOAT_EQ(float(853) / float(427), 1.99765813f);
  EXPECT_EQ(odd.i1[0], 0u);
  EXPECT_NEAR(odd.frac[0], 0.4988f, 1e-4);
  EXPECT_EQ(odd.i1[426], 851u);
  EXPECT_NEAR(odd.frac[426], 0.5012f, 1e-4);
  // Upscaling (ps = 1.5): a negative position; the fraction is taken from the mirrored floor.
  const BilinearAxis up = make_bilinear_axis(10, 15);
  const float t0 = float((0.5) * double(float(10) / float(15)) - 0.5);
  ASSERT_LT(t0, 0.0f);
  EXPECT_EQ(up.i1[0], 1u);  // M(-1)
  EXPECT_EQ(up.i2[0], 0u);  // M(ceil t0) = M(-0)
  EXPECT_EQ(up.frac[0], t0 - 1.0f);
}

// Random planes for the twin tests.
Picture random_picture(const PictureFormat& f, uint32_t seed) {
  Picture p(f);
  std::mt19937 rng(seed);
  const uint32_t max = (1u << f.bit_depth) - 1;
  const size_t samples = f.frame_bytes() / f.bytes_per_sample();
  for (size_t i = 0; i < samples; ++i) {
    const uint32_t v = (uint32_t(i % 977) * 67 + rng() % 64) % (max + 1);
    if (f.bit_depth > 8)
      reinterpret_cast<uint16_t*>(p.bytes())[i] = uint16_t(v);
    else
      p.bytes()[i] = uint8_t(v);
  }
  return p;
}

PictureFormat format(uint32_t w, uint32_t h, ChromaSubsampling s, uint8_t bpc) {
  PictureFormat f;
  f.width = w;
  f.height = h;
  f.subsampling = s;
  f.bit_depth = bpc;
  return f;
}

void expect_same_image(const Image& a, const Image& b, const std::string& what) {
  ASSERT_EQ(a.w, b.w) << what;
  ASSERT_EQ(a.h, b.h) << what;
  EXPECT_EQ(std::memcmp(a.px.data(), b.px.data(), a.px.size() * sizeof(float)), 0) << what;
}

TEST(SpeedChromaTwins, FusedPreprocessingEqualsStagedPath) {
  struct Case {
    PictureFormat f;
    double ps;
    PrescaleMethod m;
    float ks;
  };
  const Case cases[] = {
      {format(576, 324, ChromaSubsampling::k420, 8), 1.0, PrescaleMethod::kNearest, 1.0f},
      {format(1920, 1080, ChromaSubsampling::k420, 8), 0.6, PrescaleMethod::kBilinear, 1.0f},
      {format(1920, 1080, ChromaSubsampling::k420, 10), 0.5, PrescaleMethod::kBilinear, 1.0f},
      {format(1920, 1080, ChromaSubsampling::k420, 10), 0.5, PrescaleMethod::kNearest, 1.0f},
      {format(853, 481, ChromaSubsampling::k444, 8), 0.5, PrescaleMethod::kBilinear, 1.0f},
      {format(853, 481, ChromaSubsampling::k444, 12), 0.6, PrescaleMethod::kNearest, 1.0f},
      {format(641, 483, ChromaSubsampling::k422, 16), 0.75, PrescaleMethod::kBilinear, 1.0f},
      {format(400, 330, ChromaSubsampling::k420, 8), 1.5, PrescaleMethod::kBilinear, 1.0f},
      {format(511, 257, ChromaSubsampling::k444, 8), 1.0, PrescaleMethod::kNearest, 2.0f},
      {format(513, 255, ChromaSubsampling::k444, 10), 1.0, PrescaleMethod::kNearest, 0.5f},
      {format(960, 640, ChromaSubsampling::k420, 8), 1.0, PrescaleMethod::kNearest, 4.0f / 3.0f},
  };
  PreprocessScratch scratch;  // reused across sizes and methods, as a worker thread does
  for (const Case& c : cases) {
    const Picture pic = random_picture(c.f, 7);
    uint32_t w = c.f.width, h = c.f.height;
    if (c.f.subsampling == ChromaSubsampling::k420) w /= 2, h /= 2;
    if (c.f.subsampling == ChromaSubsampling::k422) w /= 2;
    const Geometry g = make_geometry(w, h, c.ps);
    const SpeedFilters filters = make_filters(c.ks);
    for (unsigned plane : {1u, 2u}) {
      Image staged, fused;
      preprocess_plane_staged(pic, plane, g, c.m, filters, staged);
      preprocess_plane(pic, plane, g, c.m, filters, scratch, fused);
      expect_same_image(fused, staged, c.f.describe() + " ps " + std::to_string(c.ps));
    }
  }
}

Image random_image(uint32_t w, uint32_t h, uint32_t seed) {
  Image e;
  e.resize(w, h);
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.0f, 3.0f);
  for (float& v : e.px) v = nd(rng);
  return e;
}

std::vector<std::pair<std::string, SpeedKernels>> fast_tables() {
  return test::tables_to_check(make_speed_kernels, speed_kernels());
}

// The host's table is built from its CPU: with AVX2 and FMA the covariance is the AVX2 one.
TEST(SpeedChromaTwins, HostTableFollowsTheCpu) {
  const bool fast = host_cpu_features().avx2 && host_cpu_features().fma;
  EXPECT_EQ(speed_kernels().covariance != covariance_plain, fast);
}

TEST(SpeedChromaTwins, CovarianceTablesEqualPlain) {
  const auto tables = fast_tables();
  if (tables.empty()) GTEST_SKIP() << "CPU without AVX2/FMA: only the plain kernel runs";
  for (const auto& [name, fast] : tables) {
    // Every row tail (mw mod 8 = 0..7, with and without the 4-block) and a 4K-sized case.
    for (uint32_t tw : {10u, 15u, 20u, 25u, 30u, 35u, 40u, 45u, 50u, 120u}) {
      const uint32_t th = tw == 120 ? 65 : 15;
      const Image e = random_image(tw + 3, th + 2, tw);
      Geometry g = make_geometry((tw + 3) * 16, (th + 2) * 16, 1.0);
      ASSERT_EQ(g.tw, tw);
      std::vector<double> dev;
      offset_deviations(e, g, offset_means(e, g), dev);
      Matrix25 plain, got;
      covariance_plain(dev, g, plain);
      fast.covariance(dev, g, got);
      EXPECT_EQ(std::memcmp(plain.data(), got.data(), sizeof plain), 0) << name << " tw " << tw;
    }
  }
}

// Deviations drawn directly (normal, with zeros and values of very different magnitudes mixed
// in) for every sub-window width 1..64.
TEST(SpeedChromaTwins, CovarianceTablesEqualPlainAtEveryWidth) {
  std::mt19937 rng(17);
  std::normal_distribution<double> nd(0.0, 40.0);
  for (const auto& [name, fast] : fast_tables())
    for (uint32_t mh : {1u, 2u, 7u})
      for (uint32_t mw = 1; mw <= 64; ++mw) {
        Geometry g;
        g.mw = mw, g.mh = mh, g.n = mw * mh;
        std::vector<double> dev(size_t(kDim) * g.n);
        for (double& v : dev) {
          const uint32_t pick = rng() % 8;
          v = pick == 0 ? 0.0 : pick == 1 ? nd(rng) * 1e6 : pick == 2 ? nd(rng) * 1e-6 : nd(rng);
        }
        Matrix25 plain, got;
        covariance_plain(dev, g, plain);
        fast.covariance(dev, g, got);
        ASSERT_EQ(std::memcmp(plain.data(), got.data(), sizeof plain), 0)
            << name << " mw " << mw << " mh " << mh;
      }
}

TEST(SpeedChromaTwins, CovarianceGroupingIsTheAvx2One) {
  // With mw = 13 each row is one 8-block, one 4-block and a 1-sample tail. Compare one entry
  // with the formula of speed.md 8.3 written out directly.
  const Image e = random_image(20, 20, 3);
  Geometry g = make_geometry(20 * 16, 20 * 16, 1.0);
  g.tw = 17;  // sub-window 13 x 11 (tw, th need not be a multiple of 5 for this check)
  g.th = 15;
  g.mw = 13;
  g.mh = 11;
  g.n = 143;
  const auto mu = offset_means(e, g);
  std::vector<double> dev;
  offset_deviations(e, g, mu, dev);
  Matrix25 k;
  covariance_plain(dev, g, k);
  const int q = 7, p = 3;  // offsets (1,2) and (0,3)
  double lane[8] = {};
  double tail = 0;
  for (uint32_t i = 0; i < g.mh; ++i) {
    auto dx = [&](uint32_t j) { return double(e.at(1 + i, 2 + j)) - double(mu[q]); };
    auto dy = [&](uint32_t j) { return double(e.at(0 + i, 3 + j)) - double(mu[p]); };
    for (uint32_t l = 0; l < 8; ++l) lane[l] = std::fma(dx(l), dy(l), lane[l]);
    for (uint32_t l = 0; l < 4; ++l) lane[l] = std::fma(dx(8 + l), dy(8 + l), lane[l]);
    tail = tail + dx(12) * dy(12);
  }
  const double sum =
      ((((lane[0] + lane[4]) + (lane[1] + lane[5])) + (lane[2] + lane[6])) + (lane[3] + lane[7])) +
      tail;
  EXPECT_EQ(bits(k[q * 25 + p]), bits(float(sum / 143.0)));
  EXPECT_EQ(bits(k[p * 25 + q]), bits(k[q * 25 + p]));
}

TEST(SpeedChromaTwins, InterleavedMeansEqualOneFoldAtATime) {
  for (uint32_t tw : {5u, 13u, 60u}) {
    const Image e = random_image(tw + 2, 24, tw + 100);
    Geometry g = make_geometry((tw + 2) * 16, 24 * 16, 1.0);
    const auto mu = offset_means(e, g);
    for (uint32_t q = 0; q < 25; ++q) {
      float acc = 0.0f;  // speed.md 8.2 literally
      for (uint32_t i = 0; i < g.mh; ++i)
        for (uint32_t j = 0; j < g.mw; ++j) acc = acc + e.at(q / 5 + i, q % 5 + j);
      EXPECT_EQ(bits(mu[q]), bits(acc / float(g.n))) << tw << " " << q;
    }
  }
}

TEST(SpeedChromaTwins, EstimateParamsIsKernelIndependent) {
  const Image e = random_image(60, 33, 11);
  const Geometry g = make_geometry(960, 540, 1.0);
  StatsScratch s1, s2;
  const SpeedKernels plain = make_speed_kernels(CpuFeatures{});
  const ImageEstimate a = estimate_params(e, g, float(0.19), s1, plain);
  const ImageEstimate b = estimate_params(e, g, float(0.19), s2, speed_kernels());
  EXPECT_FALSE(a.stats.failed);
  EXPECT_EQ(a.stats.ent, b.stats.ent);
  EXPECT_EQ(a.stats.var, b.stats.var);
}

// ---- solver ---------------------------------------------------------------------------------

Matrix25 random_spd(uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> nd;
  double m[25][25], a[25][25];
  for (auto& row : m)
    for (double& v : row) v = nd(rng);
  for (int r = 0; r < 25; ++r)
    for (int c = 0; c < 25; ++c) {
      double s = r == c ? 0.5 : 0.0;
      for (int t = 0; t < 25; ++t) s += m[r][t] * m[c][t];
      a[r][c] = s / 25.0;
    }
  Matrix25 k;
  for (int r = 0; r < 25; ++r)
    for (int c = 0; c < 25; ++c) k[size_t(r * 25 + c)] = float(a[r][c]);
  return k;
}

// f64 cyclic Jacobi eigenvalues, sorted, as an independent reference.
std::vector<double> jacobi_eigenvalues(const Matrix25& k) {
  double a[25][25];
  for (int r = 0; r < 25; ++r)
    for (int c = 0; c < 25; ++c) a[r][c] = k[size_t(r * 25 + c)];
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0;
    for (int p = 0; p < 25; ++p)
      for (int q = p + 1; q < 25; ++q) off += a[p][q] * a[p][q];
    if (off < 1e-30) break;
    for (int p = 0; p < 25; ++p)
      for (int q = p + 1; q < 25; ++q) {
        if (a[p][q] == 0) continue;
        const double theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
        const double t = (theta >= 0 ? 1 : -1) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (int r = 0; r < 25; ++r) {
          const double arp = a[r][p], arq = a[r][q];
          a[r][p] = c * arp - s * arq;
          a[r][q] = s * arp + c * arq;
        }
        for (int r = 0; r < 25; ++r) {
          const double apr = a[p][r], aqr = a[q][r];
          a[p][r] = c * apr - s * aqr;
          a[q][r] = s * apr + c * aqr;
        }
      }
  }
  std::vector<double> ev(25);
  for (int i = 0; i < 25; ++i) ev[size_t(i)] = a[i][i];
  std::sort(ev.begin(), ev.end());
  return ev;
}

TEST(SpeedChromaSolver, DiagonalMatrixNeedsNoStep) {
  Matrix25 k{};
  for (int i = 0; i < 25; ++i) k[size_t(i * 26)] = float(i + 1) * 0.5f;
  const Eigenvalues ev = symmetric_eigenvalues(k);
  EXPECT_EQ(ev.qr_steps, 0);
  for (int i = 0; i < 25; ++i) EXPECT_EQ(ev.lambda[size_t(i)], float(i + 1) * 0.5f);  // index order
  EXPECT_FALSE(is_singular(ev));
}

TEST(SpeedChromaSolver, EigenvaluesAgreeWithF64Jacobi) {
  for (uint32_t seed = 1; seed <= 5; ++seed) {
    const Matrix25 k = random_spd(seed);
    const Eigenvalues ev = symmetric_eigenvalues(k);
    EXPECT_GT(ev.qr_steps, 0);
    EXPECT_LT(ev.qr_steps, 500);
    std::vector<double> got(ev.lambda.begin(), ev.lambda.end());
    std::sort(got.begin(), got.end());
    const std::vector<double> want = jacobi_eigenvalues(k);
    for (size_t i = 0; i < 25; ++i)
      EXPECT_NEAR(got[i], want[i], 1e-5 * want[24]) << seed << " " << i;
    EXPECT_FALSE(is_singular(ev));
  }
}

TEST(SpeedChromaSolver, RankDeficientMatrixIsSingular) {
  std::mt19937 rng(5);
  std::normal_distribution<float> nd;
  float v[25], w[25];
  for (int i = 0; i < 25; ++i) v[i] = nd(rng), w[i] = nd(rng);
  Matrix25 k;
  for (int r = 0; r < 25; ++r)
    for (int c = 0; c < 25; ++c) k[size_t(r * 25 + c)] = v[r] * v[c] + w[r] * w[c];  // rank 2
  EXPECT_TRUE(is_singular(symmetric_eigenvalues(k)));
}

TEST(SpeedChromaSolver, GivensAnnihilates) {
  float c, s;
  givens(3.0f, 0.0f, c, s);
  EXPECT_EQ(c, 1.0f);
  EXPECT_EQ(s, 0.0f);
  for (auto [x, z] : {std::pair{3.0f, 4.0f}, {-2.5f, 0.5f}, {1e-3f, -7.0f}}) {
    givens(x, z, c, s);
    EXPECT_NEAR(c * c + s * s, 1.0f, 1e-6f);
    EXPECT_NEAR(s * x + c * z, 0.0f, 1e-5f * std::fabs(z));
  }
}

TEST(SpeedChromaSolver, QrSolveHasSmallResidual) {
  const Matrix25 k = random_spd(9);
  const size_t nb = 7;
  std::vector<float> y(25 * nb), x;
  std::mt19937 rng(2);
  std::normal_distribution<float> nd;
  for (float& v : y) v = nd(rng);
  ASSERT_TRUE(householder_qr_solve(k, y, nb, x));
  for (size_t b = 0; b < nb; ++b)
    for (int r = 0; r < 25; ++r) {
      double s = 0;
      for (int c = 0; c < 25; ++c) s += double(k[size_t(r * 25 + c)]) * x[size_t(c) * nb + b];
      EXPECT_NEAR(s, y[size_t(r) * nb + b], 2e-3) << b << " " << r;
    }
}

TEST(SpeedChromaSolver, MatmulFoldsFromZero) {
  Matrix25 id{}, m;
  for (int i = 0; i < 25; ++i) id[size_t(i * 26)] = 1.0f;
  for (size_t i = 0; i < m.size(); ++i) m[i] = float(i) * 0.25f - 40.0f;
  Matrix25 out;
  matmul25(id.data(), m.data(), 25, out.data());
  EXPECT_EQ(out, m);
}

// ---- entropies and combination --------------------------------------------------------------

TEST(SpeedChromaEntropy, FailedImageEntropyAndClampedEigenvalues) {
  const float sigma = float(0.19);
  Eigenvalues ev;
  for (int k = 0; k < 25; ++k) ev.lambda[size_t(k)] = k % 2 ? -3.0f : 2.0f;
  Eigenvalues clamped = ev;
  for (float& l : clamped.lambda) l = l < 0 ? 0.0f : l;
  std::vector<float> ent1, ent2;
  const std::vector<float> var = {0.0f, 0.75f, 12.5f};
  block_entropies(ev, var, sigma, ent1);
  block_entropies(clamped, var, sigma, ent2);
  EXPECT_EQ(ent1, ent2);
  // A zero variance (failed image, 8.9): every term is log2(sigma) + C, folded into f32.
  float acc = 0.0f;
  for (int k = 0; k < 25; ++k) acc = float(double(acc) + (std::log2(double(sigma)) + kLog2TwoPiE));
  EXPECT_EQ(bits(ent1[0]), bits(acc));
  EXPECT_LT(ent1[0], entropy_threshold(sigma, float(0.1)));
  EXPECT_GT(ent1[2], ent1[1]);
}

TEST(SpeedChromaEntropy, VariancesDivideEachTermFirst) {
  const size_t nb = 2;
  std::vector<float> x(25 * nb), y(25 * nb), var;
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = 0.1f * float(i % 7 + 1), y[i] = 0.3f * float(i % 5 + 1);
  block_variances(x, y, nb, var);
  for (size_t b = 0; b < nb; ++b) {
    float s = (x[b] * y[b]) / 25.0f;
    for (size_t r = 1; r < 25; ++r) s = s + (x[r * nb + b] * y[r * nb + b]) / 25.0f;
    EXPECT_EQ(bits(var[b]), bits(s));
  }
}

TEST(SpeedChromaEntropy, ModeFiveWeighsTheDistortedSideInF64) {
  ImageStats ref, dis;
  ref.ent = {50.0f, 40.0f};  // block 1 is below B0 on both sides: skipped but counted
  dis.ent = {47.0f, 41.0f};
  ref.var = {3.3f, 9.0f};
  dis.var = {1.7f, 9.0f};
  const float b0 = entropy_threshold(float(0.19), float(0.1));
  const float r = float(double(50.0f) * std::log2(double(1.0f + 3.3f)));
  const float d =
      float(double(47.0f) * std::log2(1.0 + (0.75 * double(3.3f) + 0.25 * double(1.7f))));
  const float want = (0.0f + std::fabs(r - d)) / 2.0f;
  EXPECT_EQ(bits(plane_score(ref, dis, b0, 5)), bits(want));
  // Mode 0 uses 1 + V on each side, in f32.
  const float d0 = float(double(47.0f) * std::log2(double(1.0f + 1.7f)));
  EXPECT_EQ(bits(plane_score(ref, dis, b0, 0)), bits((0.0f + std::fabs(r - d0)) / 2.0f));
}

TEST(SpeedChromaEntropy, FailureRulesAndClip) {
  ImageStats ok, failed;
  ok.ent = {50.0f};
  ok.var = {2.0f};
  failed.ent = {42.0f};
  failed.var = {0.0f};
  failed.failed = true;
  const float b0 = entropy_threshold(float(0.19), float(0.1));
  // Exactly one failed image forces 0 and flags the plane (9.3).
  const PlaneResult one = plane_result(ok, failed, b0, 5);
  EXPECT_EQ(one.score, 0.0f);
  EXPECT_TRUE(one.failed);
  const PlaneResult both = plane_result(failed, failed, b0, 5);
  EXPECT_EQ(both.score, 0.0f);
  // uv takes the other plane when one failed, else the half sum (10).
  const PlaneResult good{0.75f, false}, bad{0.0f, true};
  EXPECT_EQ(combine_planes(bad, good, 45).uv, 0.75);
  EXPECT_EQ(combine_planes(good, bad, 45).uv, 0.75);
  EXPECT_EQ(combine_planes(bad, bad, 45).uv, 0.0);
  EXPECT_EQ(combine_planes(good, PlaneResult{0.5f, false}, 45).uv, 0.625);
  // Clip with '<' in f64; NaN becomes the maximum.
  EXPECT_EQ(combine_planes(PlaneResult{50.0f, false}, good, 45).u, 45.0);
  EXPECT_EQ(combine_planes(PlaneResult{std::nanf(""), false}, good, 45).u, 45.0);
}

}  // namespace
}  // namespace vqx::speed
