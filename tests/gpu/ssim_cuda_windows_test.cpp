// The SSIM CUDA window kernel's strips and tile loaders (shared/spec/ms_ssim.md section 10): every
// strip length and loader gives the plain twins' planes and terms and the same per-tile partials.
#include <fmt/format.h>

#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "gpu/gpu_support.h"
#include "gpu/ssim_cuda_support.h"

namespace vqx::test {
namespace {

// Strips of tiles (a block walks vertically adjacent tiles, the horizontal sums of a tile's last
// 10 input rows reused by the tile below) against the plain twins (planes, terms, sums) and
// against one tile per block (the per-tile partials byte for byte: the same tiles, the same sums
// in the same order), for strips of 1, 2, 3 and 8 tiles: raw pyramids with 1..9 tile rows per
// level (43x75: a second tile of one row), and f32 planes with a sample whose sign bit is set in
// the 10 rows two tiles share (both take the signed path; the copied rows carry the sign), in a
// tile's new rows only (a signed tile inside a strip, then a sign-free one after it), or in the
// last, short tile. The lean terms (ScaleJob::cs_only) give the c and s partials of the full ones.
TEST(SsimCudaStages, StripsGiveTheSameBits) {
  VQX_REQUIRE_CUDA();
  Device dev;
  std::mt19937 rng(2026);
  const Size sz{200, 150};  // map 190x140: tiles of 64, 64 and 12 rows
  std::vector<std::tuple<std::string, std::vector<float>, std::vector<float>>> planes;
  auto pos = [&] { return random_plane(sz, rng, 0.0f, 255.0f); };
  {
    auto r = pos(), d = pos();
    d[size_t(sz.width) * 70 + 5] = -3.0f;  // input row 70: tiles 0 and 1 (shared rows)
    planes.emplace_back("shared-row negative", r, d);
  }
  {
    auto r = pos(), d = pos();
    r[size_t(sz.width) * 75 + 100] = -0.0f;  // input row 75: tile 1 only
    planes.emplace_back("tile-1 -0", r, d);
  }
  {
    auto r = pos(), d = pos();
    d[size_t(sz.width) * 131 + 33] = -1e-30f;  // input row 131: tiles 1 and 2
    r[size_t(sz.width) * 149 + 199] = -7.0f;   // last row and column: tile 2 only
    planes.emplace_back("tile-1/2 negatives", r, d);
  }
  planes.emplace_back("sign-free", pos(), pos());
  planes.emplace_back("flat", std::vector<float>(sz.pixels(), 77.0f),
                      std::vector<float>(sz.pixels(), 77.0f));
  // Reference partials (a tile per block) of the f32 planes.
  std::vector<std::vector<sc::PartialSum>> ref_partials;
  std::vector<cuda::DeviceBuffer> keep;
  for (auto& [name, r, d] : planes) {
    keep.push_back(dev.upload(r));
    keep.push_back(dev.upload(d));
    sc::DevicePlane pr{keep[keep.size() - 2].get(), sc::SampleType::kF32, 8, sz};
    sc::DevicePlane pd{keep.back().get(), sc::SampleType::kF32, 8, sz};
    ref_partials.push_back(window_partials(dev, pr, pd, sz, 1));
  }
  for (int strip : {1, 2, 3, 8}) {
    const std::string tag = fmt::format("strip {}: ", strip);
    for (RawCase rc : {RawCase{{43, 75}, 8}, RawCase{{300, 200}, 10}, RawCase{{77, 91}, 16},
                       RawCase{{11, 11}, 8}})
      check_pyramid(dev, rc, tag, strip);
    if (strip == 3)
      check_pyramid(dev, RawCase{{961, 541}, 8}, tag, strip);  // 9, 5, 3, 2, 1 tile rows
    for (size_t k = 0; k < planes.size(); ++k) {
      const auto& [name, r, d] = planes[k];
      sc::DevicePlane pr{keep[2 * k].get(), sc::SampleType::kF32, 8, sz};
      sc::DevicePlane pd{keep[2 * k + 1].get(), sc::SampleType::kF32, 8, sz};
      check_window_scale(dev, pr, pd, r, d, sz, tag + name, strip);
      EXPECT_TRUE(same_partials(ref_partials[k], window_partials(dev, pr, pd, sz, strip)))
          << tag << name << ": partials";
    }
    if (strip == 3) check_signed_flat_tiny(dev, tag, strip);
  }
  // Raw 8-bit 1920x1080 (scale 0 of band1080's size: 17 tile rows) and a 10-bit plane: partials
  // of every strip length identical to those with one tile per block.
  for (RawCase rc : {RawCase{{1920, 1080}, 8}, RawCase{{1283, 731}, 10}}) {
    const auto [ref, dis] = raw_luma_pair(rc, [&](size_t, uint32_t max) {
      const uint32_t a = rng() % (max + 1);
      const uint32_t b = std::min<uint32_t>(max, a + rng() % 9);
      return std::pair{a, b};
    });
    const PictureFormat& f = ref.format();
    cuda::DeviceBuffer raw_r = upload_picture(dev, ref), raw_d = upload_picture(dev, dis);
    const sc::DevicePlane pr = sc::luma_plane(raw_r.get(), f), pd = sc::luma_plane(raw_d.get(), f);
    const auto expected = window_partials(dev, pr, pd, rc.size, 1);
    for (int strip : {1, 2, 4, 5, 17}) {
      EXPECT_TRUE(same_partials(expected, window_partials(dev, pr, pd, rc.size, strip)))
          << rc.size.width << "x" << rc.size.height << " strip " << strip << ": partials";
      // The lean terms (ScaleJob::cs_only): the c and s partials (quantities 1 and 2) byte for
      // byte those of the full terms.
      const auto lean = window_partials(dev, pr, pd, rc.size, strip, true);
      ASSERT_EQ(lean.size(), expected.size());
      size_t differing = 0;
      for (size_t i = 0; i < lean.size(); ++i)
        if (i % sc::kSumQuantities == 1 || i % sc::kSumQuantities == 2)
          differing += std::memcmp(&lean[i], &expected[i], sizeof(sc::PartialSum)) != 0;
      EXPECT_EQ(differing, 0u) << rc.size.width << "x" << rc.size.height << " strip " << strip
                               << ": cs_only partials";
    }
  }
}

// Full-width tiles of 8-bit planes whose rows start on 4-byte boundaries are read by
// words (load_window_words), the others by rows (load_window_rows). The same samples at a 4-byte
// aligned address and at offsets 1..3 (read by rows) give the CPU's planes and terms and the same
// partials byte for byte, with one tile per block and strips of 2. Widths: 76 (the last full
// tile's last word ends at the row's end, two bytes past the tile), 964 (a short last tile
// column, read by rows), 1000 (three tile rows, the last of 12 rows).
TEST(SsimCudaStages, WordAndRowLoadersBitIdentical) {
  VQX_REQUIRE_CUDA();
  Device dev;
  std::mt19937 rng(17);
  for (RawCase rc : {RawCase{{76, 45}, 8}, RawCase{{964, 203}, 8}, RawCase{{1000, 150}, 8}}) {
    const auto [ref, dis] = raw_luma_pair(rc, [&](size_t, uint32_t max) {
      const uint32_t a = rng() % (max + 1);
      const uint32_t b = std::min<uint32_t>(max, a + rng() % 17);
      return std::pair{a, b};
    });
    const size_t n = rc.size.pixels();
    std::vector<float> r(n), d(n);
    ssim::convert_luma(ref, r.data());
    ssim::convert_luma(dis, d.data());
    std::vector<sc::PartialSum> aligned;
    for (int offset : {0, 1, 2, 3}) {
      std::vector<uint8_t> br(size_t(offset), 0), bd(size_t(offset), 0);
      br.insert(br.end(), ref.bytes(), ref.bytes() + n);  // the luma plane comes first
      bd.insert(bd.end(), dis.bytes(), dis.bytes() + n);
      cuda::DeviceBuffer gr = dev.upload(br), gd = dev.upload(bd);
      const sc::DevicePlane pr{static_cast<const uint8_t*>(gr.get()) + offset, sc::SampleType::kU8,
                               8, rc.size};
      const sc::DevicePlane pd{static_cast<const uint8_t*>(gd.get()) + offset, sc::SampleType::kU8,
                               8, rc.size};
      for (int strip : {1, 2}) {
        const std::string what =
            fmt::format("{}x{} offset {} strip {}", rc.size.width, rc.size.height, offset, strip);
        check_window_scale(dev, pr, pd, r, d, rc.size, what, strip);
        const auto partials = window_partials(dev, pr, pd, rc.size, strip);
        if (aligned.empty())
          aligned = partials;
        else
          EXPECT_TRUE(same_partials(aligned, partials)) << what << ": partials";
      }
    }
  }
}

// Full-width tiles of f32 planes (the pyramid's levels) read by 16-byte vectors
// (load_window_vectors: width a multiple of 4, rows on 16-byte boundaries) must see every sign
// bit, the last vector's used half (tile columns 40, 41) included. A plane of positive samples
// with one negative sample or -0 in a tile's columns 0, 39, 40 or 41, in either plane: that tile
// takes the signed path, and the planes and terms are the CPU's. The same planes one float off
// their alignment (the row loader) give the same partials byte for byte.
TEST(SsimCudaStages, VectorAndRowLoadersSeeEverySign) {
  VQX_REQUIRE_CUDA();
  Device dev;
  std::mt19937 rng(18);
  const Size size{1000, 150};
  const int x0 = 5 * 32, y = 70;  // a tile inside the plane: columns x0 .. x0 + 41
  for (float bad : {-1.5f, -0.0f})
    for (int plane : {0, 1})
      for (int col : {0, 39, 40, 41}) {
        std::vector<float> r = random_plane(size, rng, 0.5f, 250.0f),
                           d = random_plane(size, rng, 0.5f, 250.0f);
        (plane == 0 ? r : d)[size_t(y) * size_t(size.width) + size_t(x0 + col)] = bad;
        std::vector<sc::PartialSum> aligned;
        for (int offset : {0, 1}) {
          std::vector<float> br(size_t(offset), 1.0f), bd(size_t(offset), 1.0f);
          br.insert(br.end(), r.begin(), r.end());
          bd.insert(bd.end(), d.begin(), d.end());
          cuda::DeviceBuffer gr = dev.upload(br), gd = dev.upload(bd);
          const sc::DevicePlane pr{static_cast<const float*>(gr.get()) + offset,
                                   sc::SampleType::kF32, 8, size};
          const sc::DevicePlane pd{static_cast<const float*>(gd.get()) + offset,
                                   sc::SampleType::kF32, 8, size};
          for (int strip : {1, 2}) {
            const std::string what = fmt::format("{} in plane {} column {} offset {} strip {}", bad,
                                                 plane, col, offset, strip);
            check_window_scale(dev, pr, pd, r, d, size, what, strip);
            const auto partials = window_partials(dev, pr, pd, size, strip);
            if (aligned.empty())
              aligned = partials;
            else
              EXPECT_TRUE(same_partials(aligned, partials)) << what << ": partials";
          }
        }
      }
}

}  // namespace
}  // namespace vqx::test
