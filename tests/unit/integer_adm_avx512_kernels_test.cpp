// The AVX-512 level of the integer ADM kernel table (adm_kernels_avx512.cpp, adm_dwt_avx512.cpp)
// against the plain twins, bit for bit, on the inputs that reach the edges of its intrinsics: the
// scale-0 horizontal DWT pass (blocks of 16 outputs and their tails) and the decoupling at scales
// 1-3 (eight int64 lanes: the exponent-derived shift, the division, the capped values), at every
// width 1..64 with int32 coefficients up to the int32 limits. integer_adm_kernels_test sweeps the
// level's other entries with every level this host runs, and the decoupling over every entry of
// the division table. Skipped on CPUs without AVX-512 F/BW/DQ/VL.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "metrics/integer_adm/adm_kernels.h"
#include "metrics/integer_adm/adm_math.h"
#include "support/kernel_twins.h"

namespace vqx::test {
namespace {

using namespace integer_adm;

const AdmKernels& plain() {
  static const AdmKernels k = make_adm_kernels(CpuFeatures{});
  return k;
}

TEST(IntegerAdmAvx512Kernels, EveryEntryIsTheLevelsOwnAndTheHostsOnAvx512Cpus) {
  VQX_REQUIRE_AVX512();
  CpuFeatures avx2 = avx512_features();
  avx2.avx512 = false;
  const AdmKernels below = make_adm_kernels(avx2);
  const AdmKernels k = make_adm_kernels(avx512_features());
  const AdmKernels& host = adm_kernels();
  auto check = [&](auto entry, const char* name) {
    EXPECT_NE(k.*entry, below.*entry) << name;
    EXPECT_EQ(k.*entry, host.*entry) << name;
  };
  check(&AdmKernels::dwt0_rows_8, "dwt0_rows_8");
  check(&AdmKernels::dwt0_rows_16, "dwt0_rows_16");
  check(&AdmKernels::dwt_rows_from_scale0, "dwt_rows_from_scale0");
  check(&AdmKernels::dwt_rows, "dwt_rows");
  // The scales 1-3 DWT entries are adm_dwt_avx512.cpp's.
  AdmKernels dwt_unit = below;
  install_avx512_dwt_kernels(dwt_unit);
  EXPECT_EQ(k.dwt_rows_from_scale0, dwt_unit.dwt_rows_from_scale0);
  EXPECT_EQ(k.dwt_rows, dwt_unit.dwt_rows);
  auto check_stages = [&](const auto& ks, const auto& bs, const auto& hs, const char* name) {
    EXPECT_NE(ks.decouple_rows, bs.decouple_rows) << name;
    EXPECT_NE(ks.csf_rows, bs.csf_rows) << name;
    EXPECT_NE(ks.cm_rows, bs.cm_rows) << name;
    EXPECT_NE(ks.den_rows, bs.den_rows) << name;
    EXPECT_EQ(ks.decouple_rows, hs.decouple_rows) << name;
    EXPECT_EQ(ks.cm_rows, hs.cm_rows) << name;
  };
  check_stages(k.scale0, below.scale0, host.scale0, "scale 0");
  check_stages(k.scales123, below.scales123, host.scales123, "scales 1-3");
}

template <typename Sample>
std::vector<int64_t> dwt0_bands(const AdmKernels& k, const std::vector<Sample>& luma, uint32_t w,
                                uint32_t h, unsigned bpc, bool lowpass_only) {
  AdmBands<int16_t> b;
  b.resize((w + 1) / 2, (h + 1) / 2, !lowpass_only);
  k.dwt0<Sample>()(luma.data(), w, h, bpc, lowpass_only, b, 0, b.h);
  std::vector<int64_t> out(b.a.begin(), b.a.end());
  if (!lowpass_only)
    for (const auto& d : b.detail) out.insert(out.end(), d.begin(), d.end());
  return out;
}

// Widths 2..64 (the pass needs two samples) give band widths 1..32: no block, one block of 16
// with and without a tail, two blocks.
TEST(IntegerAdmAvx512Kernels, Dwt0EveryWidthAndDepth) {
  VQX_REQUIRE_AVX512();
  const AdmKernels k = make_adm_kernels(avx512_features());
  for (unsigned bpc = 8; bpc <= 16; ++bpc)
    for (Pattern pattern : kAllPatterns)
      for (uint32_t h : {2u, 5u})
        for (uint32_t w = 2; w <= 64; ++w)
          for (bool lowpass_only : {false, true}) {
            const std::string what = describe(w, h, bpc, pattern);
            if (bpc == 8) {
              const auto luma = test_plane<uint8_t>(w, h, bpc, w * h, pattern);
              ASSERT_EQ(dwt0_bands(plain(), luma, w, h, bpc, lowpass_only),
                        dwt0_bands(k, luma, w, h, bpc, lowpass_only))
                  << what;
            } else {
              const auto luma = test_plane<uint16_t>(w, h, bpc, w * h, pattern);
              ASSERT_EQ(dwt0_bands(plain(), luma, w, h, bpc, lowpass_only),
                        dwt0_bands(k, luma, w, h, bpc, lowpass_only))
                  << what;
            }
          }
}

// Coefficients at the edges of the wide decoupling: 0, +-1, the ends of the exponent steps
// (2^15 - 1, 2^15, 2^15 + 1, 2^16 - 1, 2^16, ...), the int32 limits and random magnitudes.
// INT32_MIN only where the angle test's int64 sums of squares cannot overflow (the d band).
int32_t edge_value(std::mt19937& rng, bool allow_min) {
  static const int64_t kEdges[] = {0,       1,       2,          32767,      32768,
                                   32769,   65535,   65536,      98303,      1 << 20,
                                   (1 << 22) - 1,    1 << 30,    2147483647, 1073741823};
  const uint32_t pick = rng() % 4;
  int64_t v;
  if (pick == 0) {
    v = kEdges[rng() % std::size(kEdges)];
  } else {
    const int bits = int(rng() % 32);
    v = int64_t(rng() % (uint64_t{1} << bits));
  }
  if (rng() & 1) v = -v;
  if (allow_min && rng() % 16 == 0) v = std::numeric_limits<int32_t>::min();
  return int32_t(v);
}

AdmBands<int32_t> edge_bands(uint32_t w, uint32_t h, std::mt19937& rng) {
  AdmBands<int32_t> b;
  b.resize(w, h);
  for (int o = 0; o < 3; ++o)
    for (auto& x : b.detail[o]) x = edge_value(rng, o == kD);
  return b;
}

template <typename Coef>
std::vector<int64_t> decoupled(const AdmKernels& k, int scale, const AdmBands<Coef>& r,
                               const AdmBands<Coef>& d, double gain_limit) {
  AdmDetail<Coef> rs, as;
  rs.resize(r.w, r.h);
  as.resize(r.w, r.h);
  const AdmRect all{0, 0, int(r.w), int(r.h)};
  k.stages<Coef>().decouple_rows(scale, r, d, gain_limit, all, rs, as, 0, int(r.h));
  std::vector<int64_t> out;
  for (int b = 0; b < 3; ++b) {
    out.insert(out.end(), rs.band[b].begin(), rs.band[b].end());
    out.insert(out.end(), as.band[b].begin(), as.band[b].end());
  }
  return out;
}

TEST(IntegerAdmAvx512Kernels, WideDecouplingEveryWidthOnEdgeValues) {
  VQX_REQUIRE_AVX512();
  const AdmKernels k = make_adm_kernels(avx512_features());
  std::mt19937 rng(11);
  for (int scale = 1; scale <= 3; ++scale)
    for (uint32_t h : {1u, 3u})
      for (uint32_t w = 1; w <= 64; ++w) {
        const AdmBands<int32_t> r = edge_bands(w, h, rng);
        AdmBands<int32_t> d = edge_bands(w, h, rng);
        // Half the distorted pixels near the reference ones, so that the angle test passes and
        // the gain cap applies.
        for (int b = 0; b < 3; ++b)
          for (size_t i = 0; i < d.detail[b].size(); i += 2)
            d.detail[b][i] = int32_t(int64_t(r.detail[b][i]) / 2 + int64_t(rng() % 3) - 1);
        for (double gain_limit : {1.0, 1.7, 100.0})
          ASSERT_EQ(decoupled(plain(), scale, r, d, gain_limit),
                    decoupled(k, scale, r, d, gain_limit))
              << "scale " << scale << ", " << w << "x" << h << ", gain limit " << gain_limit;
      }
}

TEST(IntegerAdmAvx512Kernels, Scale0DecouplingEveryWidthOnFullRangeBands) {
  VQX_REQUIRE_AVX512();
  const AdmKernels k = make_adm_kernels(avx512_features());
  std::mt19937 rng(13);
  auto value = [&] {
    const uint32_t pick = rng() % 8;
    if (pick == 0) return int16_t(-32768);
    if (pick == 1) return int16_t(32767);
    if (pick == 2) return int16_t(0);
    return int16_t(int32_t(rng() % 65536) - 32768);
  };
  for (uint32_t h : {1u, 2u})
    for (uint32_t w = 1; w <= 64; ++w) {
      AdmBands<int16_t> r, d;
      r.resize(w, h);
      d.resize(w, h);
      for (int b = 0; b < 3; ++b) {
        for (auto& x : r.detail[b]) x = value();
        for (size_t i = 0; i < d.detail[b].size(); ++i)
          d.detail[b][i] = i % 2 ? value() : int16_t(r.detail[b][i] / 2);
      }
      for (double gain_limit : {1.0, 100.0})
        ASSERT_EQ(decoupled(plain(), 0, r, d, gain_limit), decoupled(k, 0, r, d, gain_limit))
            << w << "x" << h << ", gain limit " << gain_limit;
    }
}

// 3.7 at scales 1-3 on edge values with INT32_MIN in every band, under weights across the int32
// sign of `fixed` (the 2^32 correction of the products) and the model's own.
TEST(IntegerAdmAvx512Kernels, WideCsfEveryWidthOnEdgeValues) {
  VQX_REQUIRE_AVX512();
  const AdmKernels k = make_adm_kernels(avx512_features());
  std::mt19937 rng(17);
  auto csf = [](const AdmKernels& table, int scale, const AdmDetail<int32_t>& in,
                const AdmScaleWeights& weights) {
    AdmDetail<int32_t> c, m;
    c.resize(in.w, in.h);
    m.resize(in.w, in.h);
    const AdmRect all{0, 0, int(in.w), int(in.h)};
    table.scales123.csf_rows(scale, in, weights, all, c, m, 0, int(in.h));
    std::vector<int64_t> out;
    for (int b = 0; b < 3; ++b) {
      out.insert(out.end(), c.band[b].begin(), c.band[b].end());
      out.insert(out.end(), m.band[b].begin(), m.band[b].end());
    }
    return out;
  };
  const AdmWeights model = adm_weights(0, 3.0, 1080);
  for (int scale = 1; scale <= 3; ++scale)
    for (uint32_t fixed : {0u, 1u, 0x7fffffffu, 0x80000000u, 0xffffffffu, model[scale].fixed_hv,
                           model[scale].fixed_d})
      for (uint32_t w = 1; w <= 64; ++w) {
        AdmDetail<int32_t> in;
        in.resize(w, 3);
        for (auto& band : in.band)
          for (auto& x : band) x = edge_value(rng, true);
        AdmScaleWeights weights = model[scale];
        weights.fixed_hv = fixed;
        weights.fixed_d = ~fixed;
        ASSERT_EQ(csf(plain(), scale, in, weights), csf(k, scale, in, weights))
            << "scale " << scale << ", fixed " << fixed << ", width " << w;
      }
}

}  // namespace
}  // namespace vqx::test
