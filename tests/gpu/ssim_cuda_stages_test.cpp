// The SSIM CUDA stages (shared/spec/ms_ssim.md section 10) read back and compared bit for bit
// with their plain CPU twins: conversion of 8-16 bit samples, the 9x9 decimation (whole pyramids,
// every decimation kernel where enqueue_decimate picks it), float_ssim's box decimation, the five
// convolved window planes and the per-pixel l, c, s; on random, signed, flat and edge-size planes;
// the tile/tree sums against the CPU's sequential sums (rounding only).
#include <fmt/format.h>

#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "gpu/gpu_support.h"
#include "gpu/ssim_cuda_support.h"
#include "metrics/float_ssim/cuda/box_decimate_cuda.h"
#include "metrics/float_ssim/float_ssim.h"

namespace vqx::test {
namespace {

class SsimCudaPyramid : public ::testing::TestWithParam<RawCase> {};

TEST_P(SsimCudaPyramid, EveryStageBitIdenticalToThePlainTwins) {
  VQX_REQUIRE_CUDA();
  Device dev;
  check_pyramid(dev, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Sizes, SsimCudaPyramid,
                         ::testing::Values(RawCase{{11, 11}, 8}, RawCase{{12, 13}, 8},
                                           RawCase{{43, 75}, 8}, RawCase{{42, 74}, 8},
                                           RawCase{{65, 63}, 8}, RawCase{{97, 203}, 8},
                                           RawCase{{176, 176}, 8}, RawCase{{853, 481}, 8},
                                           RawCase{{300, 200}, 10}, RawCase{{129, 65}, 12},
                                           RawCase{{77, 91}, 16}, RawCase{{51, 33}, 9},
                                           RawCase{{961, 541}, 8}, RawCase{{1920, 1080}, 8}),
                         [](const ::testing::TestParamInfo<RawCase>& info) {
                           return fmt::format("w{}h{}d{}", info.param.size.width,
                                              info.param.size.height, int(info.param.bit_depth));
                         });

TEST(SsimCudaStages, SignedFlatAndTinyPlanesBitIdentical) {
  VQX_REQUIRE_CUDA();
  Device dev;
  check_signed_flat_tiny(dev);
}

// The decimation levels 1-4 of raw 8..16-bit planes against the plain twins, one enqueue_decimate
// per level (the kernel enqueue_decimate picks by size and sample type at each level).
void check_decimation_levels(Device& dev, const RawCase& rc) {
  std::mt19937 rng(rc.size.width * 131u + rc.size.height * 7u + rc.bit_depth);
  const auto [ref, dis] = raw_luma_pair(rc, [&](size_t i, uint32_t max) {
    // Full range, with runs of zeros and of the maximum (products of 0, the largest sums).
    uint32_t a = rng() % (max + 1);
    uint32_t b = rng() % (max + 1);
    if ((i / 97) % 7 == 0) a = 0;
    if ((i / 89) % 11 == 0) b = max;
    return std::pair{a, b};
  });
  RawPair raw = upload_pair(dev, ref, dis);
  sc::DevicePlane pr = raw.ref_plane, pd = raw.dis_plane;
  Size size = rc.size;
  std::vector<cuda::DeviceBuffer> keep;
  for (int level = 1; level < ssim::kScales; ++level) {
    const std::string what = fmt::format("{}x{} {}-bit level {}", rc.size.width, rc.size.height,
                                         int(rc.bit_depth), level);
    decimate_and_check(dev, pr, pd, raw.ref, raw.dis, size, keep, what);
    if (ssim::half_size(size).width < ssim::kWindowTaps ||
        ssim::half_size(size).height < ssim::kWindowTaps)
      break;
  }
}

// One decimation of large f32 planes (the sweep's interior tiles on f32 input, as 4K's level 2):
// signed, sign-free with a -0 in one tile, tiny.
void check_large_f32_decimation(Device& dev) {
  std::mt19937 rng(99);
  const Size size{2000, 1100};
  std::vector<std::pair<std::vector<float>, std::vector<float>>> cases;
  cases.emplace_back(random_plane(size, rng, -40.0f, 300.0f),
                     random_plane(size, rng, 0.0f, 255.0f));
  auto one_neg = random_plane(size, rng, 0.0f, 255.0f);
  one_neg[size_t(size.width) * 500 + 700] = -0.0f;
  cases.emplace_back(one_neg, random_plane(size, rng, 0.0f, 1e-19f));
  for (size_t k = 0; k < cases.size(); ++k) {
    const auto& [r, d] = cases[k];
    cuda::DeviceBuffer gr = dev.upload(r), gd = dev.upload(d);
    const Size half = ssim::half_size(size);
    std::vector<float> hr(half.pixels()), hd(half.pixels());
    ssim::decimate_plain(r.data(), size, hr.data());
    ssim::decimate_plain(d.data(), size, hd.data());
    cuda::DeviceBuffer or_ = dev.filled(half.pixels() * 4), od = dev.filled(half.pixels() * 4);
    sc::enqueue_decimate({gr.get(), sc::SampleType::kF32, 8, size},
                         {gd.get(), sc::SampleType::kF32, 8, size}, or_.get<float>(),
                         od.get<float>(), dev.stream.get());
    const auto got_r = dev.download<float>(or_, half.pixels()),
               got_d = dev.download<float>(od, half.pixels());
    EXPECT_TRUE(same_bytes(hr, got_r))
        << "large f32 case " << k << " ref: " << first_mismatch(hr, got_r, half);
    EXPECT_TRUE(same_bytes(hd, got_d))
        << "large f32 case " << k << " dis: " << first_mismatch(hd, got_d, half);
  }
}

// Every decimation kernel against the plain twins, each where enqueue_decimate picks it
// (decimate_kernel below 2e6 samples, decimate_sweep_kernel from there, and for raw luma from
// 3000x2000 samples decimate_row_runs_kernel): raw 8..16-bit planes with runs of zeros and of the
// maximum (the exactness bound's largest sums), widths and heights that are and are not multiples
// of the blocks (32x8, 64x32, 128x32), 1080p (the sweep at level 1) and 4K (the row runs at level
// 1, the sweep at level 2; 3001x2001 16-bit and 3070x2000 8-bit: the row runs on widths that are
// not multiples of their runs or blocks); large f32 planes (the sweep's interior tiles on f32
// input, signed and sign-free); the signed, flat and tiny planes.
TEST(SsimCudaStages, DecimationBitIdenticalAtEverySize) {
  VQX_REQUIRE_CUDA();
  Device dev;
  for (RawCase rc : {RawCase{{97, 203}, 8}, RawCase{{300, 200}, 10}, RawCase{{77, 91}, 16},
                     RawCase{{11, 11}, 8}, RawCase{{176, 176}, 8}})
    check_pyramid(dev, rc);
  for (RawCase rc : {RawCase{{1920, 1080}, 8}, RawCase{{1921, 1081}, 16}, RawCase{{2001, 1000}, 12},
                     RawCase{{853, 481}, 9}, RawCase{{130, 67}, 8}, RawCase{{512, 256}, 10},
                     RawCase{{3840, 2160}, 8}, RawCase{{3001, 2001}, 16}, RawCase{{3070, 2000}, 8}})
    check_decimation_levels(dev, rc);
  check_large_f32_decimation(dev);
  check_signed_flat_tiny(dev);
}

// float_ssim's box decimation from raw samples (every conversion) and from f32, odd sizes.
TEST(SsimCudaStages, BoxDecimationBitIdentical) {
  VQX_REQUIRE_CUDA();
  Device dev;
  std::mt19937 rng(777);
  for (uint8_t depth : {uint8_t(8), uint8_t(10), uint8_t(16)})
    for (Size size : {Size{853, 481}, Size{64, 37}, Size{1920, 1080}})
      for (int factor : {2, 3, 4, 8}) {
        PictureFormat f;
        f.width = uint32_t(size.width);
        f.height = uint32_t(size.height);
        f.bit_depth = depth;
        f.subsampling = ChromaSubsampling::k400;
        Picture pic(f);
        const uint32_t max = (1u << depth) - 1;
        for (size_t i = 0; i < size.pixels(); ++i) {
          if (depth > 8)
            pic.plane<uint16_t>(0)[i] = uint16_t(rng() % (max + 1));
          else
            pic.plane<uint8_t>(0)[i] = uint8_t(rng() % (max + 1));
        }
        std::vector<float> in(size.pixels());
        ssim::convert_luma(pic, in.data());
        const Size small = ssim::box_decimated_size(size, factor);
        std::vector<float> expected(small.pixels());
        ssim::box_decimate(in.data(), size, factor, expected.data(), nullptr);
        std::vector<uint8_t> bytes(pic.bytes(), pic.bytes() + pic.size_bytes());
        cuda::DeviceBuffer raw = dev.upload(bytes), out = dev.filled(small.pixels() * 4);
        sc::enqueue_box_decimate(sc::luma_plane(raw.get(), f), factor, out.get<float>(),
                                 dev.stream.get());
        const auto got = dev.download<float>(out, small.pixels());
        EXPECT_TRUE(same_bytes(expected, got))
            << fmt::format("{}x{} {}-bit factor {}: ", size.width, size.height, int(depth), factor)
            << first_mismatch(expected, got, small);
      }
}

}  // namespace
}  // namespace vqx::test
