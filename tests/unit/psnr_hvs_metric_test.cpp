// psnr_hvs: Daala's DCT stays within 32 bits up to 12-bit samples, block grid, refused inputs, and
// the scores of identical and of 4:2:2 pictures.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/error.h"
#include "metrics/psnr_hvs/psnr_hvs_math.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

// Blocks of 12-bit samples at the extremes (flat, stripes, checkerboards) and at random: the
// 32-bit DCT upstream runs equals the same lifting in 64 bits, so nothing overflows.
TEST(PsnrHvs, DctNeverOverflows32Bits) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 20000; ++trial) {
    int32_t narrow[64];
    int64_t wide[64];
    for (int k = 0; k < 64; ++k) {
      const int i = k / 8, j = k % 8;
      int32_t v;
      switch (trial % 5) {
        case 0:
          v = 4095;
          break;
        case 1:
          v = ((i + j) & 1) ? 4095 : 0;
          break;
        case 2:
          v = (j & 1) ? 0 : 4095;
          break;
        case 3:
          v = (i < 4) == (j < 4) ? 4095 : 0;
          break;
        default:
          v = int32_t(rng() % 4096);
          break;
      }
      if (trial % 10 >= 5 && trial % 5 != 4) v = 4095 - v;
      narrow[k] = v;
      wide[k] = v;
    }
    psnr_hvs::fdct8x8(narrow);
    psnr_hvs::fdct8x8(wide);
    for (int k = 0; k < 64; ++k)
      ASSERT_EQ(int64_t(narrow[k]), wide[k]) << "trial " << trial << " k " << k;
  }
}

TEST(PsnrHvs, BlocksStartEverySevenSamples) {
  EXPECT_EQ(psnr_hvs::block_grid(8, 8).count(), 1u);
  EXPECT_EQ(psnr_hvs::block_grid(14, 15).columns, 1u);
  EXPECT_EQ(psnr_hvs::block_grid(14, 15).rows, 2u);
  EXPECT_EQ(psnr_hvs::block_grid(576, 324).columns, 82u);  // starts 0..567
  EXPECT_EQ(psnr_hvs::block_grid(576, 324).rows, 46u);     // starts 0..315
}

TEST(PsnrHvs, IdenticalPicturesScoreInfinity) {
  auto pics = make_pictures(make_format(32, 24, ChromaSubsampling::k420, 10), {4});
  auto report = run_on_pictures(pics, pics, {"psnr_hvs"});
  for (const char* name : {"psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs"}) {
    const double v = column(*report, name)[0];
    EXPECT_TRUE(std::isinf(v) && v > 0) << name << " " << v;
  }
}

// Every layout uses the 4:2:0 chroma tables, as upstream: a 4:2:2 pair scores like any other.
TEST(PsnrHvs, ScoresEveryChromaLayout) {
  for (auto s : {ChromaSubsampling::k420, ChromaSubsampling::k422, ChromaSubsampling::k444}) {
    const PictureFormat f = make_format(40, 24, s, 8);
    std::vector<Picture> ref, dis;
    ref.push_back(make_picture(f, 1, 20));
    dis.push_back(make_picture(f, 2, 20));
    auto report = run_on_pictures(ref, dis, {"psnr_hvs"});
    for (const char* name : {"psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs"})
      EXPECT_TRUE(std::isfinite(column(*report, name)[0])) << to_string(s) << " " << name;
  }
}

TEST(PsnrHvs, RefusesWhatUpstreamCannotScore) {
  auto run = [](const PictureFormat& f) {
    auto p = make_pictures(f, {1});
    return run_on_pictures(p, p, {"psnr_hvs"});
  };
  EXPECT_THROW(run(make_format(32, 32, ChromaSubsampling::k400)), InputError);
  EXPECT_THROW(run(make_format(32, 32, ChromaSubsampling::k420, 16)), InputError);
  // Deviation: a plane below 8x8 has no block (upstream reports NaN); chroma of 14x14 4:2:0 is 7x7.
  EXPECT_THROW(run(make_format(14, 14, ChromaSubsampling::k420)), InputError);
  EXPECT_NO_THROW(run(make_format(16, 16, ChromaSubsampling::k420, 12)));
}

}  // namespace
}  // namespace vqx::test
