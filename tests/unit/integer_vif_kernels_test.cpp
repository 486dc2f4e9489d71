// The integer VIF kernel tables (vif_kernels.h): every level this host runs against the plain
// twins, bit for bit, entry by entry on seeded random and extreme planes of every width the
// border rule allows up to 64, odd sizes and 8-16 bit; and the whole metric on each table.
#include <gtest/gtest.h>

#include "metrics/integer_vif/integer_vif.h"
#include "metrics/integer_vif/vif_kernels.h"
#include "support/fixtures.h"
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

std::vector<std::pair<std::string, VifKernels>> fast_tables() {
  return tables_to_check(integer_vif::make_vif_kernels, integer_vif::vif_kernels());
}

void expect_same(const VifAccumulators& a, const VifAccumulators& b, const std::string& what) {
  EXPECT_EQ(a.num_log, b.num_log) << what;
  EXPECT_EQ(a.den_log, b.den_log) << what;
  EXPECT_EQ(a.num_flat, b.num_flat) << what;
  EXPECT_EQ(a.den_flat, b.den_flat) << what;
}

// The host's table is built from its CPU: with AVX2 every entry is an AVX2 one.
TEST(IntegerVifKernels, HostTableFollowsTheCpu) {
  const VifKernels& host = integer_vif::vif_kernels();
  const bool fast = host_cpu_features().avx2;
  EXPECT_EQ(host.u8.statistic_rows != plain().u8.statistic_rows, fast);
  EXPECT_EQ(host.u8.downsample_rows != plain().u8.downsample_rows, fast);
  EXPECT_EQ(host.u16.statistic_rows != plain().u16.statistic_rows, fast);
  EXPECT_EQ(host.u16.downsample_rows != plain().u16.downsample_rows, fast);
}

// One scale's statistic (two gain limits, the whole plane and a band of rows as the parallel
// split calls it) and the downsampling to the next scale, on one table against the plain one.
template <typename Sample>
void check_scale(const VifKernels& fast, const std::vector<Sample>& ref,
                 const std::vector<Sample>& dis, uint32_t w, uint32_t h, int scale, unsigned bpc,
                 const std::string& what) {
  const auto& p = plain().of<Sample>();
  const auto& f = fast.of<Sample>();
  for (double egl : {100.0, 1.0}) {
    const std::string label = what + " scale " + std::to_string(scale) + " egl " +
                              std::to_string(egl);
    expect_same(p.statistic_rows(ref.data(), dis.data(), w, h, scale, bpc, egl, 0, h),
                f.statistic_rows(ref.data(), dis.data(), w, h, scale, bpc, egl, 0, h), label);
  }
  expect_same(p.statistic_rows(ref.data(), dis.data(), w, h, scale, bpc, 100.0, h / 3, h / 2 + 1),
              f.statistic_rows(ref.data(), dis.data(), w, h, scale, bpc, 100.0, h / 3, h / 2 + 1),
              what + " band");
  if (scale + 1 >= kScales || w / 2 == 0 || h / 2 == 0) return;
  const uint32_t r = uint32_t(kFilterRadius[scale + 1]);
  if (w <= r || h <= r) return;  // the next filter's border rule needs more than r samples
  std::vector<uint16_t> a(size_t(w / 2) * (h / 2), 1), b(a.size(), 2);
  p.downsample_rows(ref.data(), w, h, scale, bpc, a.data(), 0, h / 2);
  f.downsample_rows(ref.data(), w, h, scale, bpc, b.data(), 0, h / 2);
  EXPECT_EQ(a, b) << what << " downsample from scale " << scale;
}

template <typename Sample>
void sweep_scale0(const VifKernels& fast, unsigned bpc, std::initializer_list<Pattern> patterns) {
  const uint32_t first = uint32_t(kFilterRadius[0]) + 1;
  for (Pattern pattern : patterns)
    for (uint32_t h : {first, 20u})
      for (uint32_t w = first; w <= 64; ++w) {
        const auto ref = test_plane<Sample>(w, h, bpc, 1 + w, pattern);
        const auto dis = test_plane<Sample>(w, h, bpc, 2 + w, pattern);
        check_scale(fast, ref, dis, w, h, 0, bpc, describe(w, h, bpc, pattern));
        if (::testing::Test::HasFailure()) return;
      }
}

TEST(IntegerVifKernels, Scale0EveryWidthAndDepth) {
  for (const auto& [name, fast] : fast_tables()) {
    SCOPED_TRACE(name);
    sweep_scale0<uint8_t>(fast, 8, {Pattern::kNatural, Pattern::kExtreme, Pattern::kBlocks,
                                    Pattern::kNoise});
    for (unsigned bpc = 9; bpc <= 16; ++bpc) {
      if (bpc == 10 || bpc == 16)
        sweep_scale0<uint16_t>(fast, bpc, {Pattern::kNatural, Pattern::kExtreme,
                                           Pattern::kBlocks, Pattern::kNoise});
      else
        sweep_scale0<uint16_t>(fast, bpc, {Pattern::kExtreme, Pattern::kNoise});
    }
  }
}

// Scales 1-3 read the uint16 Q8 samples of the downsampling, anywhere in [0, 65535].
TEST(IntegerVifKernels, Scales1To3EveryWidthOnFullRangeSamples) {
  for (const auto& [name, fast] : fast_tables()) {
    SCOPED_TRACE(name);
    for (int scale = 1; scale < kScales; ++scale) {
      const uint32_t first = uint32_t(kFilterRadius[scale]) + 1;
      for (Pattern pattern : kAllPatterns)
        for (uint32_t h : {first, 11u})
          for (uint32_t w = first; w <= 64; ++w) {
            const auto ref = test_plane<uint16_t>(w, h, 16, 3 + w, pattern);
            const auto dis = test_plane<uint16_t>(w, h, 16, 4 + w, pattern);
            check_scale(fast, ref, dis, w, h, scale, 8, describe(w, h, 16, pattern));
            if (::testing::Test::HasFailure()) return;
          }
    }
  }
}

// The whole pyramid as the metric runs it, on odd and larger sizes.
template <typename Sample>
void check_pyramid(const VifKernels& fast, uint32_t w, uint32_t h, unsigned bpc, Pattern pattern) {
  const std::string what = describe(w, h, bpc, pattern);
  const auto ref = test_plane<Sample>(w, h, bpc, 1, pattern);
  const auto dis = test_plane<Sample>(w, h, bpc, 2, pattern);
  check_scale(fast, ref, dis, w, h, 0, bpc, what);
  std::vector<uint16_t> r(size_t(w / 2) * (h / 2)), d(r.size());
  plain().of<Sample>().downsample_rows(ref.data(), w, h, 0, bpc, r.data(), 0, h / 2);
  plain().of<Sample>().downsample_rows(dis.data(), w, h, 0, bpc, d.data(), 0, h / 2);
  w /= 2, h /= 2;
  for (int s = 1; s < kScales; ++s) {
    check_scale(fast, r, d, w, h, s, bpc, what);
    if (s + 1 == kScales) break;
    std::vector<uint16_t> r2(size_t(w / 2) * (h / 2)), d2(r2.size());
    plain().u16.downsample_rows(r.data(), w, h, s, bpc, r2.data(), 0, h / 2);
    plain().u16.downsample_rows(d.data(), w, h, s, bpc, d2.data(), 0, h / 2);
    r.swap(r2), d.swap(d2);
    w /= 2, h /= 2;
  }
}

TEST(IntegerVifKernels, PyramidOnOddSizes) {
  struct Size {
    uint32_t w, h;
    unsigned bpc;
  };
  for (const auto& [name, fast] : fast_tables()) {
    SCOPED_TRACE(name);
    for (Size c : {Size{33, 33, 8}, Size{35, 37, 8}, Size{97, 61, 8}, Size{321, 97, 8},
                   Size{127, 65, 9}, Size{127, 65, 10}, Size{256, 129, 12}, Size{67, 45, 14},
                   Size{200, 90, 16}})
      for (Pattern pattern : kAllPatterns) {
        if (c.bpc == 8)
          check_pyramid<uint8_t>(fast, c.w, c.h, c.bpc, pattern);
        else
          check_pyramid<uint16_t>(fast, c.w, c.h, c.bpc, pattern);
      }
  }
}

TEST(IntegerVifKernels, WholeMetricOnEachTable) {
  for (uint8_t bpc : {uint8_t(8), uint8_t(10)}) {
    const PictureFormat format = make_format(97, 61, ChromaSubsampling::k420, bpc);
    const auto ref = make_pictures(format, {1, 2});
    const auto dis = make_pictures(format, {3, 4});
    const OptionValues options =
        parse_metric_request("vif=debug=true:vif_enhn_gain_limit=1.5").options;
    auto reference = make_integer_vif_cpu(options, plain());
    const MetricValues expected = run_cpu_metric(*reference, ref, dis);
    for (const auto& [name, fast] : fast_tables()) {
      auto metric = make_integer_vif_cpu(options, fast);
      expect_same_values(expected, run_cpu_metric(*metric, ref, dis, 2),
                         name + " " + format.describe());
    }
  }
}

}  // namespace
}  // namespace vqx::test
