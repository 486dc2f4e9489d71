// The bit-pattern vectors of shared/spec/ssimulacra2.md for each stage (constants, EOTF, cube root,
// XYB, blur, pooling). The optimised kernels are checked against these twins in
// ssimulacra2_kernels_test.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <vector>

#include "metrics/ssimulacra2/ssimulacra2_core.h"
#include "metrics/ssimulacra2/ssimulacra2_kernels.h"
#include "support/fixtures.h"

namespace vqx::ssimulacra2 {
namespace {

uint32_t bits(float v) { return std::bit_cast<uint32_t>(v); }
float from_bits(uint32_t b) { return std::bit_cast<float>(b); }

TEST(Ssimulacra2Constants, InversePeak) {
  EXPECT_EQ(bits(inverse_peak(8)), 0x3b808081u);
  EXPECT_EQ(bits(inverse_peak(10)), 0x3a802008u);
  EXPECT_EQ(bits(inverse_peak(12)), 0x39800801u);
  EXPECT_EQ(bits(inverse_peak(14)), 0x38800200u);
  EXPECT_EQ(bits(inverse_peak(16)), 0x37800080u);
}

TEST(Ssimulacra2Constants, YuvMatrices) {
  for (int m : {0, 2}) {  // BT.709
    YuvMatrix c = make_yuv_matrix(m);
    EXPECT_EQ(bits(c.cr_r), 0x3fc9930cu);
    EXPECT_EQ(bits(c.cb_b), 0x3fed844du);
    EXPECT_EQ(bits(c.cb_g), 0xbe3fd1eeu);
    EXPECT_EQ(bits(c.cr_g), 0xbeefadfcu);
  }
  for (int m : {1, 3}) {  // BT.601
    YuvMatrix c = make_yuv_matrix(m);
    EXPECT_EQ(bits(c.cr_r), 0x3fb374bcu);
    EXPECT_EQ(bits(c.cb_b), 0x3fe2d0e5u);
    EXPECT_EQ(bits(c.cb_g), 0xbeb032a1u);
    EXPECT_EQ(bits(c.cr_g), 0xbf36d1a2u);
  }
  for (int m : {0, 1}) {  // limited range
    YuvMatrix c = make_yuv_matrix(m);
    EXPECT_EQ(bits(c.y_scale), 0x3f950a85u);
    EXPECT_EQ(bits(c.c_scale), 0x3f91b6dbu);
    EXPECT_EQ(bits(c.y_off), 0x3d808081u);
    EXPECT_EQ(c.c_off, 0.5f);
  }
  for (int m : {2, 3}) {  // full range
    YuvMatrix c = make_yuv_matrix(m);
    EXPECT_EQ(c.y_scale, 1.0f);
    EXPECT_EQ(c.c_scale, 1.0f);
    EXPECT_EQ(c.y_off, 0.0f);
    EXPECT_EQ(c.c_off, 0.5f);
  }
}

TEST(Ssimulacra2Eotf, TableEqualsSpecDataFile) {
  std::ifstream file(test::shared_dir() + "/spec/data/ss2_srgb_eotf_lut.txt");
  if (!file) GTEST_SKIP() << "shared/spec/data not available";
  std::string line;
  size_t count = 0;
  while (std::getline(file, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    size_t index;
    std::string hex;
    fields >> index >> hex;
    ASSERT_LT(index, kEotfLutSize);
    EXPECT_EQ(kEotfLutBits[index], uint32_t(std::stoul(hex, nullptr, 16))) << "entry " << index;
    ++count;
  }
  EXPECT_EQ(count, kEotfLutSize);
}

TEST(Ssimulacra2Eotf, Anchors) {
  EXPECT_EQ(kEotfLutBits[0], 0u);
  EXPECT_EQ(kEotfLutBits[41], 0x3b4b4b65u);
  EXPECT_EQ(kEotfLutBits[42], 0x3b5051c6u);
  EXPECT_EQ(kEotfLutBits[1023], 0x3f800000u);
}

TEST(Ssimulacra2Eotf, SpecVectors) {
  const std::pair<uint32_t, uint32_t> vectors[] = {
      {0x3ca3d70a, 0x3acae5d8}, {0x3d25aee6, 0x3b4d34ab}, {0x3e800000, 0x3d50639e},
      {0x3f000000, 0x3e5b2dac}, {0x3f3ae148, 0x3efbdb03}, {0x3f7fbe77, 0x3f7f6b03}};
  for (auto [in, out] : vectors) EXPECT_EQ(bits(srgb_eotf(from_bits(in))), out) << std::hex << in;
  EXPECT_EQ(srgb_eotf(-0.5f), 0.0f);
  EXPECT_EQ(srgb_eotf(0.0f), 0.0f);
  EXPECT_EQ(srgb_eotf(1.0f), 1.0f);
  EXPECT_EQ(srgb_eotf(7.0f), 1.0f);
}

TEST(Ssimulacra2Xyb, CubeRootVectors) {
  const std::pair<uint32_t, uint32_t> vectors[] = {
      {0x3f800000, 0x3f800001}, {0x3e000000, 0x3f000001}, {0x3c23d70a, 0x3e5c9d37},
      {0x3e99999a, 0x3f2b5ff8}, {0x3f000000, 0x3f4b2fff}, {0x41000000, 0x40000001},
      {0x3b789536, 0x3e1fb27b}};  // the last is cbrt_bias (libm cbrtf would give ...275)
  for (auto [in, out] : vectors) EXPECT_EQ(bits(cbrt_approx(from_bits(in))), out) << std::hex << in;
  EXPECT_EQ(bits(kCbrtBias), 0x3e1fb27bu);
  EXPECT_EQ(cbrt_approx(0.0f), 0.0f);
  EXPECT_EQ(cbrt_approx(-1.0f), 0.0f);
  EXPECT_EQ(cbrt_approx(std::nanf("")), 0.0f);
}

TEST(Ssimulacra2Xyb, SpecVectors) {
  struct V {
    float r, g, b;
    uint32_t x, y, bb;
  };
  const V vectors[] = {{0, 0, 0, 0x3ed70a3d, 0x3c23d70a, 0x3f0ccccd},
                       {0.2f, 0.3f, 0.1f, 0x3ec29977, 0x3efcc1d3, 0x3eed3cb9},
                       {0.5f, 0.5f, 0.5f, 0x3ed70a3d, 0x3f2655ef, 0x3f0ccccd},
                       {1, 1, 1, 0x3ed70a3d, 0x3f5af581, 0x3f0ccccd}};
  for (const V& v : vectors) {
    XybPixel p = linear_rgb_to_xyb(v.r, v.g, v.b);
    EXPECT_EQ(bits(p.x), v.x);
    EXPECT_EQ(bits(p.y), v.y);
    EXPECT_EQ(bits(p.b), v.bb);
  }
}

TEST(Ssimulacra2Blur, CoefficientBits) {
  const BlurCoefficients& c = blur_coefficients();
  EXPECT_EQ(bits(c.n2[0]), 0x3d627d42u);
  EXPECT_EQ(bits(c.n2[1]), 0xbd70febdu);
  EXPECT_EQ(bits(c.n2[2]), 0x3c5444a5u);
  EXPECT_EQ(bits(c.d1[0]), 0xbff37871u);
  EXPECT_EQ(bits(c.d1[1]), 0xbf967918u);
  EXPECT_EQ(bits(c.d1[2]), 0xa50d3132u);
}

TEST(Ssimulacra2Blur, DerivationGivesTheHardCodedBits) {
  double beta_dot_p = 0;
  BlurCoefficients derived = blur_coefficients_derivation(&beta_dot_p);
  const BlurCoefficients& c = blur_coefficients();
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(bits(derived.n2[k]), bits(c.n2[k])) << k;
    EXPECT_EQ(bits(derived.d1[k]), bits(c.d1[k])) << k;
  }
  EXPECT_NEAR(beta_dot_p, 1.0, 1e-12);
}

std::vector<float> blur16(const std::vector<float>& in) {
  std::vector<float> out(16);
  blur_line_reference(in.data(), 1, out.data(), 1, 16);
  return out;
}

void expect_bits(const std::vector<float>& got, const std::vector<uint32_t>& want, size_t from) {
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(bits(got[from + i]), want[i]) << "index " << from + i;
}

TEST(Ssimulacra2Blur, LineVectors) {
  std::vector<float> impulse0(16, 0.0f), impulse8(16, 0.0f), ones(16, 1.0f);
  impulse0[0] = 1.0f;
  impulse8[8] = 1.0f;
  expect_bits(blur16(impulse0),
              {0x3e877c6b, 0x3e5a09f6, 0x3ddfeb41, 0x3d13807c, 0x3c1a3f31, 0x34080000, 0x340c0000,
               0x34024bbc, 0x33d7acc2, 0x3395a570, 0x3309f040, 0xb213abf0, 0xb3502918, 0xb3b38373,
               0xb3ed5fea, 0xb4080000},
              0);
  std::vector<float> out8 = blur16(impulse8);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(bits(out8[size_t(i)]), 0u);
  expect_bits(out8,
              {0x3c1a3eb9, 0x3d138064, 0x3ddfeb39, 0x3e5a09f4, 0x3e877c6b, 0x3e5a09f6, 0x3ddfeb41,
               0x3d13807c, 0x3c1a3f31, 0x34080000, 0x340c0000, 0x34024bbc},
              4);
  expect_bits(blur16(ones),
              {0x3f21df1c, 0x3f58619c, 0x3f745f06, 0x3f7d9710, 0x3f800006, 0x3f800007, 0x3f800008,
               0x3f800009, 0x3f80000a, 0x3f80000b, 0x3f80000c, 0x3f80000d, 0x3f7d9722, 0x3f745f1c,
               0x3f5861b3, 0x3f21df32},
              0);
}

TEST(Ssimulacra2Downsample, BoxWithEdgeRepeat) {
  // 3x3 -> 2x2: the last column and row repeat.
  const float in[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  float out[4];
  downsample_2x2(in, 3, 3, out, 0, 2);
  EXPECT_EQ(out[0], (((0.0f + 1) + 2) + 4 + 5) * 0.25f);
  EXPECT_EQ(out[1], (((0.0f + 3) + 3) + 6 + 6) * 0.25f);
  EXPECT_EQ(out[2], (((0.0f + 7) + 8) + 7 + 8) * 0.25f);
  EXPECT_EQ(out[3], 9.0f);
  // Order of the adds matters in f32: (a + b) + c + d with a tiny value last.
  const float big[4] = {1.0f, 1e-8f, 1e-8f, 1e-8f};
  float o;
  downsample_2x2(big, 2, 2, &o, 0, 1);
  EXPECT_EQ(o, (((1.0f + 1e-8f) + 1e-8f) + 1e-8f) * 0.25f);
}

TEST(Ssimulacra2Terms, IdenticalPixelsGiveZero) {
  // Identical blurred statistics give d = 0 exactly, and equal edges r = 0.
  EXPECT_EQ(ssim_term(0.4f, 0.4f, 0.17f, 0.17f, 0.17f), 0.0);
  EXPECT_EQ(edge_ratio(0.5f, 0.25f, 0.5f, 0.25f), 0.0);
  EXPECT_EQ(edge_ratio_f32_difference(0.5f, 0.25f, 0.5f, 0.25f), 0.0);
  EXPECT_GT(edge_ratio(0.5f, 0.25f, 0.9f, 0.25f), 0.0);  // ringing
  EXPECT_LT(edge_ratio(0.9f, 0.25f, 0.5f, 0.25f), 0.0);  // blurring
}

TEST(Ssimulacra2Terms, EdgeDifferenceModesSplitAtTheLastGroupOf8) {
  // 11 pixels: the first 8 use the f32 difference in kFloatGroupsOf8, the last 3 the f64 one.
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> a(11), ma(11), b(11), mb(11);
  for (size_t i = 0; i < 11; ++i) {
    a[i] = dist(rng), ma[i] = dist(rng), b[i] = dist(rng), mb[i] = dist(rng);
  }
  EXPECT_EQ(f32_difference_count(11, EdgeDifference::kFloatGroupsOf8), 8u);
  EXPECT_EQ(f32_difference_count(11, EdgeDifference::kDouble), 0u);
  const Ssimulacra2Kernels& k = ssimulacra2_kernels();
  ChannelSums groups, exact;
  k.sum_edge_terms(a.data(), ma.data(), b.data(), mb.data(), 11,
                   f32_difference_count(11, EdgeDifference::kFloatGroupsOf8), groups);
  k.sum_edge_terms(a.data(), ma.data(), b.data(), mb.data(), 11,
                   f32_difference_count(11, EdgeDifference::kDouble), exact);
  double a1 = 0, d1 = 0;
  for (size_t i = 0; i < 11; ++i) {
    const double r = i < 8 ? edge_ratio_f32_difference(a[i], ma[i], b[i], mb[i])
                           : edge_ratio(a[i], ma[i], b[i], mb[i]);
    a1 += r > 0 ? r : 0.0;
    d1 += r < 0 ? -r : 0.0;
  }
  EXPECT_EQ(groups.a1, a1);
  EXPECT_EQ(groups.d1, d1);
  EXPECT_NE(groups.a1 + groups.d1, exact.a1 + exact.d1);  // the modes do differ
}

TEST(Ssimulacra2Pooling, ZeroSumsScore100) {
  FrameSums none;
  EXPECT_EQ(pool_score(none), 100.0);  // no scale processed
  FrameSums zeros;
  zeros.scales = kNumScales;
  zeros.pixels.fill(64);
  EXPECT_EQ(pool_score(zeros), 100.0);
}

TEST(Ssimulacra2Pooling, WeightTableIsTheSpecs) {
  EXPECT_EQ(kPoolingWeights.size(), 108u);
  EXPECT_EQ(kPoolingWeights[1], 0.0007376606707406586);
  EXPECT_EQ(kPoolingWeights[48], 225.20515300849274);
  EXPECT_EQ(kPoolingWeights[100], 171.2667255897307);
  EXPECT_EQ(kPoolingWeights[107], 0.00010854057858411537);
}

}  // namespace
}  // namespace vqx::ssimulacra2
