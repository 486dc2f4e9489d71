// The integer motion kernel table (motion_kernels.h): every level this host runs against the
// plain twin, bit for bit, on seeded random and extreme planes of every width the border rule
// allows up to 64, odd sizes and 8-16 bit; and the whole metric on each table.
#include <gtest/gtest.h>

#include "metrics/integer_motion/integer_motion.h"
#include "metrics/integer_motion/motion_kernels.h"
#include "support/fixtures.h"
#include "support/kernel_twins.h"

namespace vqx::test {
namespace {

using integer_motion::MotionKernels;

const MotionKernels& plain() {
  static const MotionKernels k = integer_motion::make_motion_kernels(CpuFeatures{});
  return k;
}

std::vector<std::pair<std::string, MotionKernels>> fast_tables() {
  return tables_to_check(integer_motion::make_motion_kernels, integer_motion::motion_kernels());
}

// The host's table is built from its CPU: with AVX2 every entry is an AVX2 one.
TEST(IntegerMotionKernels, HostTableFollowsTheCpu) {
  const MotionKernels& host = integer_motion::motion_kernels();
  const bool fast = host_cpu_features().avx2;
  EXPECT_EQ(host.sad_rows_8 != plain().sad_rows_8, fast);
  EXPECT_EQ(host.sad_rows_16 != plain().sad_rows_16, fast);
}

// The SAD of the whole plane, of a band of rows, and of identical frames (every row skipped).
template <typename Sample>
void check_sad(uint32_t w, uint32_t h, unsigned bpc, Pattern pattern) {
  const auto prev = test_plane<Sample>(w, h, bpc, 1 + w, pattern);
  const auto cur = test_plane<Sample>(w, h, bpc, 2 + h, pattern);
  auto sads = [&](const MotionKernels& k) {
    auto sad = k.sad_rows<Sample>();
    return std::vector<uint64_t>{sad(prev.data(), cur.data(), w, h, bpc, 0, h),
                                 sad(prev.data(), cur.data(), w, h, bpc, h / 4, h / 2 + 1),
                                 sad(cur.data(), cur.data(), w, h, bpc, 0, h)};
  };
  const std::vector<uint64_t> expected = sads(plain());
  for (const auto& [name, fast] : fast_tables())
    ASSERT_EQ(expected, sads(fast)) << name << " " << describe(w, h, bpc, pattern);
}

TEST(IntegerMotionKernels, SadEveryWidthAndDepth) {
  for (unsigned bpc = 8; bpc <= 16; ++bpc)
    for (Pattern pattern : kAllPatterns)
      for (uint32_t h : {3u, 4u, 9u})
        for (uint32_t w = 3; w <= 64; ++w) {
          if (bpc == 8)
            check_sad<uint8_t>(w, h, bpc, pattern);
          else
            check_sad<uint16_t>(w, h, bpc, pattern);
          if (::testing::Test::HasFailure()) return;
        }
}

TEST(IntegerMotionKernels, SadOnOddSizes) {
  struct Size {
    uint32_t w, h;
    unsigned bpc;
  };
  for (Size c : {Size{97, 61, 8}, Size{321, 97, 8}, Size{127, 65, 10}, Size{256, 129, 12},
                 Size{67, 45, 14}, Size{200, 90, 16}})
    for (Pattern pattern : kAllPatterns) {
      if (c.bpc == 8)
        check_sad<uint8_t>(c.w, c.h, c.bpc, pattern);
      else
        check_sad<uint16_t>(c.w, c.h, c.bpc, pattern);
    }
}

TEST(IntegerMotionKernels, WholeMetricOnEachTable) {
  for (uint8_t bpc : {uint8_t(8), uint8_t(16)}) {
    const PictureFormat format = make_format(97, 61, ChromaSubsampling::k420, bpc);
    const auto ref = make_pictures(format, {1, 2, 3, 4, 5});
    const auto dis = make_pictures(format, {6, 7, 8, 9, 10});
    for (const char* spec : {"motion=debug=true", "motion=motion_five_frame_window=true"}) {
      const OptionValues options = parse_metric_request(spec).options;
      auto reference = make_integer_motion_cpu(options, plain());
      const MetricValues expected = run_cpu_metric(*reference, ref, dis);
      for (const auto& [name, fast] : fast_tables()) {
        auto metric = make_integer_motion_cpu(options, fast);
        expect_same_values(expected, run_cpu_metric(*metric, ref, dis, 2),
                           name + " " + spec + " " + format.describe());
      }
    }
  }
}

}  // namespace
}  // namespace vqx::test
