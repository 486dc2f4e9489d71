// psnr's sum of squared differences: exact against a 64-bit sum on random and extreme planes, at
// the widest rows, and on 16-bit samples above their declared depth (which nothing rejects).
#include <gtest/gtest.h>

#include <random>

#include "metrics/psnr/psnr_math.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

template <typename Sample>
uint64_t naive_sse(const Picture& a, const Picture& b, unsigned plane) {
  const PictureFormat& f = a.format();
  const size_t n = size_t(f.plane_width(plane)) * f.plane_height(plane);
  uint64_t sum = 0;
  for (size_t i = 0; i < n; ++i) {
    const int64_t d = int64_t(a.plane<Sample>(plane)[i]) - int64_t(b.plane<Sample>(plane)[i]);
    sum += uint64_t(d * d);
  }
  return sum;
}

template <typename Sample>
void fill(Picture& p, uint32_t max_value, uint32_t seed) {
  std::mt19937 rng(seed);
  Sample* s = p.plane<Sample>(0);
  const size_t n = p.size_bytes() / sizeof(Sample);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t pick = rng() % 4;
    s[i] = Sample(pick == 0 ? 0 : pick == 1 ? max_value : rng() % (max_value + 1));
  }
}

TEST(PsnrSse, EqualsA64BitSumOnRandomAndExtremePlanes) {
  for (const PictureFormat& f : {make_format(37, 5, ChromaSubsampling::k420, 8),
                                 make_format(65536, 2, ChromaSubsampling::k444, 8),
                                 make_format(33, 7, ChromaSubsampling::k422, 10),
                                 make_format(64, 3, ChromaSubsampling::k420, 16)}) {
    Picture a(f), b(f);
    const uint32_t max_value = (1u << f.bit_depth) - 1;
    for (uint32_t seed = 1; seed <= 3; ++seed) {
      if (f.bytes_per_sample() == 1) {
        fill<uint8_t>(a, max_value, seed), fill<uint8_t>(b, max_value, seed + 10);
        for (unsigned p = 0; p < 3; ++p)
          EXPECT_EQ(psnr::plane_sse(a, b, p), naive_sse<uint8_t>(a, b, p)) << f.describe();
      } else {
        fill<uint16_t>(a, max_value, seed), fill<uint16_t>(b, max_value, seed + 10);
        for (unsigned p = 0; p < 3; ++p)
          EXPECT_EQ(psnr::plane_sse(a, b, p), naive_sse<uint16_t>(a, b, p)) << f.describe();
      }
    }
  }
}

TEST(PsnrSse, WidestEightBitRowsAtFullContrastDoNotWrap) {
  const PictureFormat f = make_format(65536, 2, ChromaSubsampling::k444, 8);
  Picture a(f), b(f);
  std::fill_n(a.bytes(), a.size_bytes(), uint8_t(255));
  std::fill_n(b.bytes(), b.size_bytes(), uint8_t(0));
  EXPECT_EQ(psnr::plane_sse(a, b, 0), uint64_t{2} * 65536 * 255 * 255);
}

TEST(PsnrSse, SamplesAboveTheDeclaredDepthStayExact) {
  const PictureFormat f = make_format(40, 4, ChromaSubsampling::k420, 10);
  Picture a(f), b(f);
  uint16_t* pa = a.plane<uint16_t>(0);
  uint16_t* pb = b.plane<uint16_t>(0);
  for (size_t i = 0; i < 160; ++i) pa[i] = 65535, pb[i] = 0;
  EXPECT_EQ(psnr::plane_sse(a, b, 0), uint64_t{160} * 65535 * 65535);
}

}  // namespace
}  // namespace vqx::test
