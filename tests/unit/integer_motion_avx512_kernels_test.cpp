// The AVX-512 level of the integer motion kernel table (motion_kernels_avx512.cpp) against the
// plain twin, bit for bit, row by row (each row's total alone), at every width the border rule
// allows up to 130 (the vectorised loops' 512-bit blocks and their tails), 8-16 bit, on the
// seeded patterns and on the planes that give the largest blurred differences (one frame at
// the maximum, the other at 0, and a checkerboard of both). integer_motion_kernels_test sweeps
// every level this host runs as well. Skipped on CPUs without AVX-512 F/BW/DQ/VL.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "metrics/integer_motion/motion_kernels.h"
#include "support/kernel_twins.h"

namespace vqx::test {
namespace {

using integer_motion::MotionKernels;

const MotionKernels& plain() {
  static const MotionKernels k = integer_motion::make_motion_kernels(CpuFeatures{});
  return k;
}

TEST(IntegerMotionAvx512Kernels, EveryEntryIsTheLevelsOwnAndTheHostsOnAvx512Cpus) {
  VQX_REQUIRE_AVX512();
  CpuFeatures avx2 = avx512_features();
  avx2.avx512 = false;
  const MotionKernels below = integer_motion::make_motion_kernels(avx2);
  const MotionKernels k = integer_motion::make_motion_kernels(avx512_features());
  const MotionKernels& host = integer_motion::motion_kernels();
  EXPECT_NE(k.sad_rows_8, below.sad_rows_8);
  EXPECT_NE(k.sad_rows_16, below.sad_rows_16);
  EXPECT_EQ(k.sad_rows_8, host.sad_rows_8);
  EXPECT_EQ(k.sad_rows_16, host.sad_rows_16);
}

template <typename Sample>
void check_rows(const MotionKernels& k, const std::vector<Sample>& prev,
                const std::vector<Sample>& cur, uint32_t w, uint32_t h, unsigned bpc,
                const std::string& what) {
  auto p = plain().sad_rows<Sample>();
  auto f = k.sad_rows<Sample>();
  for (uint32_t i = 0; i < h; ++i)
    ASSERT_EQ(p(prev.data(), cur.data(), w, h, bpc, i, i + 1),
              f(prev.data(), cur.data(), w, h, bpc, i, i + 1))
        << what << " row " << i;
}

// Every sample at `high` or 0: all of one frame (`checker` false) or a checkerboard.
template <typename Sample>
std::vector<Sample> two_level_plane(uint32_t w, uint32_t h, Sample high, bool checker,
                                    bool phase) {
  std::vector<Sample> p(size_t(w) * h);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x)
      p[size_t(y) * w + x] = (checker ? ((x + y) & 1) != phase : phase) ? high : Sample(0);
  return p;
}

template <typename Sample>
void sweep(const MotionKernels& k, unsigned bpc) {
  const Sample high = Sample((uint32_t{1} << bpc) - 1);
  for (uint32_t h : {3u, 6u})
    for (uint32_t w = 3; w <= 130; ++w) {
      for (Pattern pattern : kAllPatterns) {
        const auto prev = test_plane<Sample>(w, h, bpc, 7 + w, pattern);
        const auto cur = test_plane<Sample>(w, h, bpc, 8 + w + h, pattern);
        check_rows(k, prev, cur, w, h, bpc, describe(w, h, bpc, pattern));
        if (::testing::Test::HasFatalFailure()) return;
      }
      for (bool checker : {false, true}) {
        const std::string what = std::to_string(w) + "x" + std::to_string(h) + " " +
                                 std::to_string(bpc) + "-bit two-level " +
                                 (checker ? "checkerboard" : "planes");
        const auto a = two_level_plane<Sample>(w, h, high, checker, true);
        const auto b = two_level_plane<Sample>(w, h, high, checker, false);
        check_rows(k, a, b, w, h, bpc, what);
        check_rows(k, b, a, w, h, bpc, what + " swapped");
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
}

TEST(IntegerMotionAvx512Kernels, SadRowByRowEveryWidthAndDepth) {
  VQX_REQUIRE_AVX512();
  const MotionKernels k = integer_motion::make_motion_kernels(avx512_features());
  sweep<uint8_t>(k, 8);
  for (unsigned bpc = 9; bpc <= 16; ++bpc) sweep<uint16_t>(k, bpc);
}

}  // namespace
}  // namespace vqx::test
