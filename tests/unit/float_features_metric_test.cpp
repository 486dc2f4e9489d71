// float_psnr, float_ansnr and float_moment: closed-form values on flat pictures, the bit depths
// each accepts (9-16 bits convert as v / 2^(bpc-8), a documented deviation), refused sizes.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

Picture flat(const PictureFormat& f, uint16_t value) {
  Picture p(f);
  for (unsigned plane = 0; plane < f.plane_count(); ++plane) {
    const size_t n = size_t(f.plane_width(plane)) * f.plane_height(plane);
    for (size_t i = 0; i < n; ++i) {
      if (f.bytes_per_sample() == 1)
        p.plane<uint8_t>(plane)[i] = uint8_t(value);
      else
        p.plane<uint16_t>(plane)[i] = value;
    }
  }
  return p;
}

std::unique_ptr<RunReport> run_flat(const PictureFormat& f, uint16_t ref, uint16_t dis,
                                    const std::string& feature) {
  std::vector<Picture> r, d;
  r.push_back(flat(f, ref));
  d.push_back(flat(f, dis));
  return run_on_pictures(r, d, {feature});
}

TEST(FloatPsnr, FlatPicturesGiveTheClosedForm) {
  auto report = run_flat(make_format(16, 8), 100, 110, "float_psnr");
  EXPECT_DOUBLE_EQ(column(*report, "float_psnr")[0], 10 * std::log10(255.0 * 255.0 / 100.0));
  // 10-bit: samples are divided by 4, the peak is 1023 / 4.
  report = run_flat(make_format(16, 8, ChromaSubsampling::k420, 10), 400, 440, "float_psnr");
  EXPECT_DOUBLE_EQ(column(*report, "float_psnr")[0], 10 * std::log10(255.75 * 255.75 / 100.0));
  report = run_flat(make_format(16, 8), 7, 7, "float_psnr");
  EXPECT_EQ(column(*report, "float_psnr")[0], 60.0);  // capped
}

TEST(FloatPsnr, AnsnrRefuseDepthsWithoutAPeak) {
  for (const char* feature : {"float_psnr", "float_ansnr"}) {
    EXPECT_THROW(run_flat(make_format(16, 8, ChromaSubsampling::k420, 9), 1, 2, feature),
                 InputError);
    EXPECT_THROW(run_flat(make_format(16, 8, ChromaSubsampling::k420, 14), 1, 2, feature),
                 InputError);
    EXPECT_NO_THROW(run_flat(make_format(16, 8, ChromaSubsampling::k420, 16), 1, 2, feature));
  }
}

TEST(FloatAnsnr, FlatPicturesGiveTheClosedForm) {
  // The 3x3 kernel sums to 1 exactly, so the filtered reference stays flat at 100 - 128; the
  // distorted kernel (k / 571 in f32) keeps a flat plane within an ulp or so of 110 - 128.
  auto report = run_flat(make_format(16, 8), 100, 110, "float_ansnr");
  EXPECT_NEAR(column(*report, "float_ansnr")[0], 10 * std::log10(28.0 * 28.0 / 100.0), 1e-4);
  EXPECT_NEAR(column(*report, "float_anpsnr")[0], 10 * std::log10(255.0 * 255.0 / 100.0), 1e-4);
  report = run_flat(make_format(16, 8), 100, 100, "float_ansnr");
  EXPECT_LE(column(*report, "float_anpsnr")[0], 60.0);
}

TEST(FloatAnsnr, RefusesPicturesBelow3x3) {
  EXPECT_THROW(run_flat(make_format(2, 8, ChromaSubsampling::k444), 1, 2, "float_ansnr"),
               InputError);
  EXPECT_NO_THROW(run_flat(make_format(3, 3, ChromaSubsampling::k444), 1, 2, "float_ansnr"));
}

TEST(FloatMoment, EveryDepthConvertsToTheEightBitScale) {
  for (uint8_t bits = 8; bits <= 16; ++bits) {
    const uint16_t ref = uint16_t(3u << (bits - 8)), dis = uint16_t(5u << (bits - 8));
    auto report =
        run_flat(make_format(12, 6, ChromaSubsampling::k420, bits), ref, dis, "float_moment");
    EXPECT_EQ(column(*report, "float_moment_ref1st")[0], 3.0) << int(bits);
    EXPECT_EQ(column(*report, "float_moment_dis1st")[0], 5.0) << int(bits);
    EXPECT_EQ(column(*report, "float_moment_ref2nd")[0], 9.0) << int(bits);
    EXPECT_EQ(column(*report, "float_moment_dis2nd")[0], 25.0) << int(bits);
  }
}

}  // namespace
}  // namespace vqx::test
