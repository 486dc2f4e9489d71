// The AVX-512 levels of the integer VIF kernel table (vif_kernels_avx512.cpp and, with VNNI,
// vif_kernels_avx512_vnni.cpp) against the plain twins, bit for bit, row by row (each row's
// accumulators alone, so that no error can hide in a plane's sum), at every width the border rule
// allows up to 96: no 512-bit block, one or two blocks of 32 with AVX2 blocks of 16 and scalar
// columns after them; 8-16 bit samples, the extreme and flat patterns, and the gain limits at
// both ends. integer_vif_kernels_test sweeps every level this host runs as well. Skipped on CPUs
// without AVX-512 F/BW/DQ/VL (the VNNI cases on CPUs without VNNI).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "metrics/integer_vif/vif_kernels.h"
#include "support/kernel_twins.h"

namespace vqx::test {
namespace {

using integer_vif::VifAccumulators;
using integer_vif::VifKernels;
using integer_vif::kFilterRadius;
using integer_vif::kScales;

const VifKernels& plain() {
  static const VifKernels k = integer_vif::make_vif_kernels(CpuFeatures{});
  return k;
}

TEST(IntegerVifAvx512Kernels, EveryEntryIsTheLevelsOwnAndTheHostsOnAvx512Cpus) {
  VQX_REQUIRE_AVX512();
  CpuFeatures avx2 = avx512_features();
  avx2.avx512 = false;
  const VifKernels below = integer_vif::make_vif_kernels(avx2);
  const VifKernels k = integer_vif::make_vif_kernels(avx512_features());
  const VifKernels& host = integer_vif::vif_kernels();
  EXPECT_NE(k.u8.statistic_rows, below.u8.statistic_rows);
  EXPECT_NE(k.u8.downsample_rows, below.u8.downsample_rows);
  EXPECT_NE(k.u16.statistic_rows, below.u16.statistic_rows);
  EXPECT_NE(k.u16.downsample_rows, below.u16.downsample_rows);
  if (host_cpu_features().avx512_vnni) return;
  EXPECT_EQ(k.u8.statistic_rows, host.u8.statistic_rows);
  EXPECT_EQ(k.u16.statistic_rows, host.u16.statistic_rows);
}

TEST(IntegerVifAvx512Kernels, VnniEntriesAreTheirOwnAndTheHostsOnVnniCpus) {
  VQX_REQUIRE_AVX512_VNNI();
  const VifKernels below = integer_vif::make_vif_kernels(avx512_features());
  const VifKernels k = integer_vif::make_vif_kernels(avx512_vnni_features());
  const VifKernels& host = integer_vif::vif_kernels();
  EXPECT_NE(k.u8.statistic_rows, below.u8.statistic_rows);
  EXPECT_NE(k.u8.downsample_rows, below.u8.downsample_rows);
  EXPECT_NE(k.u16.statistic_rows, below.u16.statistic_rows);
  EXPECT_NE(k.u16.downsample_rows, below.u16.downsample_rows);
  EXPECT_EQ(k.u8.statistic_rows, host.u8.statistic_rows);
  EXPECT_EQ(k.u16.statistic_rows, host.u16.statistic_rows);
}

// Every row's statistic at two gain limits, then the downsampling to the next scale.
template <typename Sample>
void check_rows(const VifKernels& k, const std::vector<Sample>& ref,
                const std::vector<Sample>& dis, uint32_t w, uint32_t h, int scale, unsigned bpc,
                const std::string& what) {
  const auto& p = plain().of<Sample>();
  const auto& f = k.of<Sample>();
  for (double egl : {1.0, 100.0})
    for (uint32_t i = 0; i < h; ++i) {
      const VifAccumulators a = p.statistic_rows(ref.data(), dis.data(), w, h, scale, bpc, egl,
                                                 i, i + 1);
      const VifAccumulators b = f.statistic_rows(ref.data(), dis.data(), w, h, scale, bpc, egl,
                                                 i, i + 1);
      ASSERT_EQ(a.num_log, b.num_log) << what << " row " << i << " egl " << egl;
      ASSERT_EQ(a.den_log, b.den_log) << what << " row " << i << " egl " << egl;
      ASSERT_EQ(a.num_flat, b.num_flat) << what << " row " << i << " egl " << egl;
      ASSERT_EQ(a.den_flat, b.den_flat) << what << " row " << i << " egl " << egl;
    }
  if (scale + 1 >= kScales) return;
  const uint32_t r = uint32_t(kFilterRadius[scale + 1]);
  if (w <= r || h <= r) return;  // the next filter's border rule needs more than r samples
  std::vector<uint16_t> a(size_t(w / 2) * (h / 2), 1), b(a.size(), 2);
  p.downsample_rows(ref.data(), w, h, scale, bpc, a.data(), 0, h / 2);
  f.downsample_rows(ref.data(), w, h, scale, bpc, b.data(), 0, h / 2);
  ASSERT_EQ(a, b) << what << " downsample";
}

template <typename Sample>
void sweep(const VifKernels& k, int scale, unsigned bpc, unsigned sample_bits) {
  const uint32_t first = uint32_t(kFilterRadius[scale]) + 1;
  for (Pattern pattern : kAllPatterns)
    for (uint32_t h : {first, first + 3})
      for (uint32_t w = first; w <= 96; ++w) {
        const auto ref = test_plane<Sample>(w, h, sample_bits, 5 + w, pattern);
        const auto dis = test_plane<Sample>(w, h, sample_bits, 6 + w + h, pattern);
        check_rows(k, ref, dis, w, h, scale, bpc,
                   "scale " + std::to_string(scale) + " " + describe(w, h, sample_bits, pattern));
        if (::testing::Test::HasFatalFailure()) return;
      }
}

TEST(IntegerVifAvx512Kernels, Scale0RowByRowEveryWidthAndDepth) {
  VQX_REQUIRE_AVX512();
  const VifKernels k = integer_vif::make_vif_kernels(avx512_features());
  sweep<uint8_t>(k, 0, 8, 8);
  for (unsigned bpc = 9; bpc <= 16; ++bpc) sweep<uint16_t>(k, 0, bpc, bpc);
}

// Scales 1-3 read the uint16 Q8 samples of the downsampling, anywhere in [0, 65535].
TEST(IntegerVifAvx512Kernels, Scales1To3RowByRowOnFullRangeSamples) {
  VQX_REQUIRE_AVX512();
  const VifKernels k = integer_vif::make_vif_kernels(avx512_features());
  for (int scale = 1; scale < kScales; ++scale) sweep<uint16_t>(k, scale, 8, 16);
}

TEST(IntegerVifAvx512Kernels, VnniScale0RowByRowEveryWidthAndDepth) {
  VQX_REQUIRE_AVX512_VNNI();
  const VifKernels k = integer_vif::make_vif_kernels(avx512_vnni_features());
  sweep<uint8_t>(k, 0, 8, 8);
  for (unsigned bpc = 9; bpc <= 16; ++bpc) sweep<uint16_t>(k, 0, bpc, bpc);
}

TEST(IntegerVifAvx512Kernels, VnniScales1To3RowByRowOnFullRangeSamples) {
  VQX_REQUIRE_AVX512_VNNI();
  const VifKernels k = integer_vif::make_vif_kernels(avx512_vnni_features());
  for (int scale = 1; scale < kScales; ++scale) sweep<uint16_t>(k, scale, 8, 16);
}

}  // namespace
}  // namespace vqx::test
