// The CUDA twins of float_ms_ssim and float_ssim (shared/spec/ms_ssim.md section 10):
// - every device stage read back and compared bit for bit with its plain CPU twin: conversion of
//   8-16 bit samples, the 9x9 decimation (a whole pyramid), the box decimation, the five convolved
//   window planes, the per-pixel l, c, s; on random, signed, flat and edge-size planes;
// - the tile/tree sums against the CPU's sequential sums (rounding only);
// - the spec's golden vectors through the engine, bit-exact;
// - on every fixture frame: the 15 (float_ssim: 4) f32 means identical to the CPU, or a named
//   one-ulp difference of a single mean (the CPU's sequential rounding straddling an f32
//   boundary), the score within 1e-7 and identical whenever the means are; max |diff| printed;
// - the same bits on repeated runs; the size rules.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <tuple>
#include <utility>

#include "engine/cuda/cuda_check.h"
#include "engine/cuda/device_context.h"
#include "core/error.h"
#include "gpu/gpu_support.h"
#include "metrics/float_ms_ssim/cuda/ssim_cuda.h"
#include "metrics/float_ms_ssim/ssim_stages.h"
#include "metrics/float_ssim/float_ssim.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

using ssim::Size;
namespace sc = ssim::cuda;
using cuda::check;

// ---- Device helpers ----------------------------------------------------------------------------

// The stage kernels run on `stream`, a non-blocking stream, which does not wait for cudaMemset or
// cudaMemcpy on the legacy stream (both may return before the device has done them): every
// upload or fill waits for the device before a kernel may read or overwrite the buffer.
struct Device {
  cuda::DeviceContext context{0};
  cuda::Stream stream;
  Device() { sc::prepare_device(); }
  static void settle() { check(cudaDeviceSynchronize(), "settle"); }

  template <typename T>
  cuda::DeviceBuffer upload(const std::vector<T>& host) {
    cuda::DeviceBuffer b(context, host.size() * sizeof(T), "test");
    check(cudaMemcpy(b.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "upload");
    settle();
    return b;
  }
  cuda::DeviceBuffer filled(size_t bytes) {
    cuda::DeviceBuffer b(context, bytes, "test");
    check(cudaMemset(b.get(), 0xff, bytes), "fill");  // NaN-like garbage: every value must be written
    settle();
    return b;
  }
  template <typename T>
  std::vector<T> download(const cuda::DeviceBuffer& b, size_t count) {
    check(cudaStreamSynchronize(stream.get()), "sync");
    std::vector<T> host(count);
    check(cudaMemcpy(host.data(), b.get(), count * sizeof(T), cudaMemcpyDeviceToHost), "download");
    return host;
  }
};

template <typename T>
bool same_bytes(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

template <typename T>
std::string first_mismatch(const std::vector<T>& a, const std::vector<T>& b, Size size) {
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0)
      return fmt::format("first mismatch at ({}, {}): cpu {:.17g} cuda {:.17g}", int(i % size.width),
                         int(i / size.width), double(a[i]), double(b[i]));
  return "sizes differ";
}

// The CPU's plane of one quantity (sample-wise products as window_statistics_plain forms them).
std::vector<float> products(const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<float> out(a.size());
  for (size_t i = 0; i < a.size(); ++i) out[i] = a[i] * b[i];
  return out;
}

// Runs the window stage of one scale with every tap on, compares the planes with the plain twins
// and the sums with the CPU's sequential sums. Returns how many f32 means differ (by one ulp).
int check_window_scale(Device& dev, const sc::DevicePlane& ref_plane, const sc::DevicePlane& dis_plane,
                       const std::vector<float>& ref, const std::vector<float>& dis, Size size,
                       const std::string& what) {
  const Size map = ssim::map_size(size);
  const size_t m = map.pixels();
  cuda::DeviceBuffer planes[5], l = dev.filled(m * 8), c = dev.filled(m * 8), s = dev.filled(m * 4);
  for (auto& p : planes) p = dev.filled(m * 4);
  sc::ScaleJob job;
  job.ref = ref_plane;
  job.dis = dis_plane;
  job.taps = {planes[0].get<float>(), planes[1].get<float>(), planes[2].get<float>(),
              planes[3].get<float>(), planes[4].get<float>(), l.get<double>(), c.get<double>(),
              s.get<float>()};
  cuda::DeviceBuffer partials = dev.filled(sc::partial_count(size) * sc::kSumQuantities * sizeof(sc::PartialSum));
  cuda::DeviceBuffer sums = dev.filled(sc::kSumQuantities * sizeof(double));
  sc::PartialSum* pp = partials.get<sc::PartialSum>();
  sc::enqueue_windows(&job, 1, &pp, dev.stream.get());
  sc::enqueue_reduce(&size, 1, &pp, sums.get<double>(), dev.stream.get());

  // Plain twins.
  const std::vector<float> inputs[5] = {ref, dis, products(ref, ref), products(dis, dis), products(ref, dis)};
  const char* names[5] = {"mu_r", "mu_d", "sum_rr", "sum_dd", "sum_rd"};
  for (int q = 0; q < 5; ++q) {
    std::vector<float> expected(m);
    ssim::window_convolve_plain(inputs[q].data(), size, expected.data());
    const auto got = dev.download<float>(planes[q], m);
    EXPECT_TRUE(same_bytes(expected, got)) << what << " " << names[q] << ": " << first_mismatch(expected, got, map);
  }
  const ssim::WindowStatistics st = ssim::window_statistics_plain(ref.data(), dis.data(), size);
  std::vector<double> el(m), ec(m);
  std::vector<float> es(m);
  ssim::lcs_terms_plain(st, el.data(), ec.data(), es.data());
  const auto gl = dev.download<double>(l, m), gc = dev.download<double>(c, m);
  const auto gs = dev.download<float>(s, m);
  EXPECT_TRUE(same_bytes(el, gl)) << what << " l: " << first_mismatch(el, gl, map);
  EXPECT_TRUE(same_bytes(ec, gc)) << what << " c: " << first_mismatch(ec, gc, map);
  EXPECT_TRUE(same_bytes(es, gs)) << what << " s: " << first_mismatch(es, gs, map);

  // Sums: the same numbers up to the CPU's sequential rounding.
  ssim::ScaleSums cpu;
  cpu.add(el.data(), ec.data(), es.data(), m);
  const auto got = dev.download<double>(sums, sc::kSumQuantities);
  const double cpu_sums[4] = {cpu.l, cpu.c, cpu.s, cpu.ssim};
  for (int q = 0; q < 4; ++q)
    EXPECT_LE(std::fabs(got[q] - cpu_sums[q]), 1e-12 * std::max(1.0, std::fabs(cpu_sums[q])))
        << what << " sum " << q << fmt::format(": cpu {:.17g} cuda {:.17g}", cpu_sums[q], got[q]);
  ssim::ScaleSums gpu;
  gpu.l = got[0];
  gpu.c = got[1];
  gpu.s = got[2];
  gpu.ssim = got[3];
  const ssim::ScaleMeans a = cpu.means(map), b = gpu.means(map);
  int differing = 0;
  for (auto [x, y] : {std::pair{a.l, b.l}, {a.c, b.c}, {a.s, b.s}, {a.ssim, b.ssim}})
    if (x != y) {
      ++differing;
      EXPECT_EQ(std::nextafter(x, y), y) << what << " a mean differs by more than one ulp";
    }
  return differing;
}

std::vector<float> random_plane(Size size, std::mt19937& rng, float lo, float hi) {
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> p(size.pixels());
  for (float& v : p) v = u(rng);
  return p;
}

// ---- Stage tests -------------------------------------------------------------------------------

struct RawCase {
  Size size;
  uint8_t bit_depth;
};

class SsimCudaPyramid : public ::testing::TestWithParam<RawCase> {};

// A 4:0:0 pair of rc's size and bit depth; gen(i, max) gives sample i's reference and distorted
// values (called in index order).
template <typename Gen>
std::pair<Picture, Picture> raw_luma_pair(const RawCase& rc, Gen gen) {
  PictureFormat f;
  f.width = uint32_t(rc.size.width);
  f.height = uint32_t(rc.size.height);
  f.bit_depth = rc.bit_depth;
  f.subsampling = ChromaSubsampling::k400;
  Picture ref(f), dis(f);
  const uint32_t max = (1u << rc.bit_depth) - 1;
  for (size_t i = 0; i < rc.size.pixels(); ++i) {
    const auto [a, b] = gen(i, max);
    if (rc.bit_depth > 8) {
      ref.plane<uint16_t>(0)[i] = uint16_t(a);
      dis.plane<uint16_t>(0)[i] = uint16_t(b);
    } else {
      ref.plane<uint8_t>(0)[i] = uint8_t(a);
      dis.plane<uint8_t>(0)[i] = uint8_t(b);
    }
  }
  return {std::move(ref), std::move(dis)};
}

// A picture's bytes (its luma plane first) on the device.
cuda::DeviceBuffer upload_picture(Device& dev, const Picture& p) {
  return dev.upload(std::vector<uint8_t>(p.bytes(), p.bytes() + p.size_bytes()));
}

// Raw samples -> conversion -> the whole pyramid -> windows and terms at every level, each
// compared with the plain CPU stages. Sizes: the 11x11 minimum, odd, 2^n +- 1, tiles with one
// column or row, 176 (every level down to 11).
void check_pyramid(Device& dev, const RawCase& rc, const std::string& tag = {}) {
  std::mt19937 rng(rc.size.width * 7919u + rc.size.height + rc.bit_depth);
  const auto [ref, dis] = raw_luma_pair(rc, [&](size_t, uint32_t max) {
    const uint32_t a = rng() % (max + 1);
    const uint32_t b = std::min<uint32_t>(max, a + rng() % (max / 8 + 1));  // correlated
    return std::pair{a, b};
  });
  const PictureFormat& f = ref.format();
  const size_t n = rc.size.pixels();
  std::vector<float> r(n), d(n);
  ssim::convert_luma(ref, r.data());
  ssim::convert_luma(dis, d.data());
  cuda::DeviceBuffer raw_r = upload_picture(dev, ref), raw_d = upload_picture(dev, dis);
  sc::DevicePlane pr = sc::luma_plane(raw_r.get(), f), pd = sc::luma_plane(raw_d.get(), f);

  Size size = rc.size;
  std::vector<cuda::DeviceBuffer> keep;
  for (int level = 0;; ++level) {
    const std::string what = fmt::format("{}{}x{} {}-bit level {} ({}x{})", tag, rc.size.width, rc.size.height,
                                         int(rc.bit_depth), level, size.width, size.height);
    if (size.width >= ssim::kWindowTaps && size.height >= ssim::kWindowTaps)
      check_window_scale(dev, pr, pd, r, d, size, what);
    const Size half = ssim::half_size(size);
    if (half.width < ssim::kWindowTaps || half.height < ssim::kWindowTaps || level == 4) break;
    std::vector<float> hr(half.pixels()), hd(half.pixels());
    ssim::decimate_plain(r.data(), size, hr.data());
    ssim::decimate_plain(d.data(), size, hd.data());
    keep.push_back(dev.filled(half.pixels() * 4));
    keep.push_back(dev.filled(half.pixels() * 4));
    float* gr = keep[keep.size() - 2].get<float>();
    float* gd = keep.back().get<float>();
    sc::enqueue_decimate(pr, pd, gr, gd, dev.stream.get());
    const auto got_r = dev.download<float>(keep[keep.size() - 2], half.pixels());
    const auto got_d = dev.download<float>(keep.back(), half.pixels());
    EXPECT_TRUE(same_bytes(hr, got_r)) << what << " decimated ref: " << first_mismatch(hr, got_r, half);
    EXPECT_TRUE(same_bytes(hd, got_d)) << what << " decimated dis: " << first_mismatch(hd, got_d, half);
    r = std::move(hr);
    d = std::move(hd);
    size = half;
    pr = {gr, sc::SampleType::kF32, 8, size};
    pd = {gd, sc::SampleType::kF32, 8, size};
  }
}

TEST_P(SsimCudaPyramid, EveryStageBitIdenticalToThePlainTwins) {
  VQX_REQUIRE_CUDA();
  Device dev;
  check_pyramid(dev, GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, SsimCudaPyramid,
    ::testing::Values(RawCase{{11, 11}, 8}, RawCase{{12, 13}, 8}, RawCase{{43, 75}, 8},
                      RawCase{{42, 74}, 8}, RawCase{{65, 63}, 8}, RawCase{{97, 203}, 8},
                      RawCase{{176, 176}, 8}, RawCase{{853, 481}, 8}, RawCase{{300, 200}, 10},
                      RawCase{{129, 65}, 12}, RawCase{{77, 91}, 16}, RawCase{{51, 33}, 9},
                      RawCase{{1920, 1080}, 8}),
    [](const ::testing::TestParamInfo<RawCase>& info) {
      return fmt::format("w{}h{}d{}", info.param.size.width, info.param.size.height, int(info.param.bit_depth));
    });

// f32 planes with negative values, wide dynamic range and exact zeros (signed products, the
// scaled widening of tiny and negative terms), and flat planes (zero variance: the zli-nflx fix).
void check_signed_flat_tiny(Device& dev, const std::string& tag = {}) {
  std::mt19937 rng(12345);
  for (Size size : {Size{37, 29}, Size{200, 150}}) {
    std::vector<std::pair<std::vector<float>, std::vector<float>>> cases;
    cases.emplace_back(random_plane(size, rng, -40.0f, 300.0f), random_plane(size, rng, -40.0f, 300.0f));
    auto tiny = random_plane(size, rng, -1e-20f, 1e-20f);
    auto mixed = random_plane(size, rng, -1.0f, 1.0f);
    for (size_t i = 0; i < mixed.size(); i += 3) mixed[i] = (i % 2) ? 0.0f : -0.0f;
    for (size_t i = 0; i < mixed.size(); i += 7) mixed[i] *= 1e-30f;
    cases.emplace_back(tiny, mixed);
    cases.emplace_back(std::vector<float>(size.pixels(), 128.0f), std::vector<float>(size.pixels(), 128.0f));
    cases.emplace_back(std::vector<float>(size.pixels(), 0.0f), random_plane(size, rng, 0.0f, 255.0f));
    auto flat_neg = std::vector<float>(size.pixels(), -3.25f);
    cases.emplace_back(flat_neg, random_plane(size, rng, -5.0f, 5.0f));
    // Sign bits clear (the variants' sign-free path): tiny and subnormal products, +0 samples.
    auto tiny_pos = random_plane(size, rng, 0.0f, 1e-19f);
    for (size_t i = 0; i < tiny_pos.size(); i += 5) tiny_pos[i] = 0.0f;
    for (size_t i = 0; i < tiny_pos.size(); i += 11) tiny_pos[i] *= 1e-25f;
    cases.emplace_back(tiny_pos, random_plane(size, rng, 0.0f, 1e-3f));
    // One sample with its sign bit set (a -0 in one tile, a negative value in another): those
    // tiles take the signed path, the others the sign-free one.
    auto one_neg_r = random_plane(size, rng, 0.0f, 255.0f), one_neg_d = random_plane(size, rng, 0.0f, 255.0f);
    one_neg_r[one_neg_r.size() / 2] = -0.0f;
    one_neg_d[size_t(size.width) * 3 + 5] = -17.5f;
    cases.emplace_back(one_neg_r, one_neg_d);
    for (size_t k = 0; k < cases.size(); ++k) {
      const auto& [r, d] = cases[k];
      const std::string what = fmt::format("{}{}x{} case {}", tag, size.width, size.height, k);
      cuda::DeviceBuffer gr = dev.upload(r), gd = dev.upload(d);
      sc::DevicePlane pr{gr.get(), sc::SampleType::kF32, 8, size}, pd{gd.get(), sc::SampleType::kF32, 8, size};
      check_window_scale(dev, pr, pd, r, d, size, what);
      const Size half = ssim::half_size(size);
      std::vector<float> hr(half.pixels()), hd(half.pixels());
      ssim::decimate_plain(r.data(), size, hr.data());
      ssim::decimate_plain(d.data(), size, hd.data());
      cuda::DeviceBuffer or_ = dev.filled(half.pixels() * 4), od = dev.filled(half.pixels() * 4);
      sc::enqueue_decimate(pr, pd, or_.get<float>(), od.get<float>(), dev.stream.get());
      const auto got_r = dev.download<float>(or_, half.pixels()), got_d = dev.download<float>(od, half.pixels());
      EXPECT_TRUE(same_bytes(hr, got_r)) << what << " decimated ref: " << first_mismatch(hr, got_r, half);
      EXPECT_TRUE(same_bytes(hd, got_d)) << what << " decimated dis: " << first_mismatch(hd, got_d, half);
    }
  }
}

TEST(SsimCudaStages, SignedFlatAndTinyPlanesBitIdentical) {
  VQX_REQUIRE_CUDA();
  Device dev;
  check_signed_flat_tiny(dev);
}

// Every kept window and decimation variant (sc::kWindowVariants x sc::kDecimateVariants, both sum
// trees) against the plain twins: raw 8/10/16-bit pyramids (down to 11x11) and the signed, flat
// and tiny planes.
TEST(SsimCudaStages, EverySpeedVariantBitIdentical) {
  VQX_REQUIRE_CUDA();
  Device dev;
  const sc::SpeedVariants saved = sc::speed_variants();
  int combination = 0;
  for (int w : sc::kWindowVariants)
    for (int d : sc::kDecimateVariants) {
      const int r = combination++ % 2;
      sc::set_speed_variants({w, d, r});
      ASSERT_EQ(sc::speed_variants().window, w);
      ASSERT_EQ(sc::speed_variants().decimate, d);
      const std::string tag = fmt::format("variant w{} d{} r{}: ", w, d, r);
      for (RawCase rc : {RawCase{{97, 203}, 8}, RawCase{{300, 200}, 10}, RawCase{{77, 91}, 16},
                         RawCase{{11, 11}, 8}, RawCase{{43, 75}, 8}, RawCase{{961, 541}, 8}})
        check_pyramid(dev, rc, tag);
      check_signed_flat_tiny(dev, tag);
    }
  sc::set_speed_variants(saved);
}

// The decimation levels 1-4 of raw 8..16-bit planes against the plain twins, one enqueue_decimate
// per level (the kernel a variant picks by size and sample type at each level).
void check_decimation_levels(Device& dev, const RawCase& rc, const std::string& tag) {
  std::mt19937 rng(rc.size.width * 131u + rc.size.height * 7u + rc.bit_depth);
  const auto [ref, dis] = raw_luma_pair(rc, [&](size_t i, uint32_t max) {
    // Full range, with runs of zeros and of the maximum (products of 0, the largest sums).
    uint32_t a = rng() % (max + 1);
    uint32_t b = rng() % (max + 1);
    if ((i / 97) % 7 == 0) a = 0;
    if ((i / 89) % 11 == 0) b = max;
    return std::pair{a, b};
  });
  const PictureFormat& f = ref.format();
  std::vector<float> r(rc.size.pixels()), d(rc.size.pixels());
  ssim::convert_luma(ref, r.data());
  ssim::convert_luma(dis, d.data());
  cuda::DeviceBuffer raw_r = upload_picture(dev, ref), raw_d = upload_picture(dev, dis);
  sc::DevicePlane pr = sc::luma_plane(raw_r.get(), f), pd = sc::luma_plane(raw_d.get(), f);
  Size size = rc.size;
  std::vector<cuda::DeviceBuffer> keep;
  for (int level = 1; level < ssim::kScales; ++level) {
    const Size half = ssim::half_size(size);
    std::vector<float> hr(half.pixels()), hd(half.pixels());
    ssim::decimate_plain(r.data(), size, hr.data());
    ssim::decimate_plain(d.data(), size, hd.data());
    keep.push_back(dev.filled(half.pixels() * 4));
    keep.push_back(dev.filled(half.pixels() * 4));
    sc::enqueue_decimate(pr, pd, keep[keep.size() - 2].get<float>(), keep.back().get<float>(), dev.stream.get());
    const auto got_r = dev.download<float>(keep[keep.size() - 2], half.pixels());
    const auto got_d = dev.download<float>(keep.back(), half.pixels());
    const std::string what = fmt::format("{}{}x{} {}-bit level {}", tag, rc.size.width, rc.size.height,
                                         int(rc.bit_depth), level);
    EXPECT_TRUE(same_bytes(hr, got_r)) << what << " ref: " << first_mismatch(hr, got_r, half);
    EXPECT_TRUE(same_bytes(hd, got_d)) << what << " dis: " << first_mismatch(hd, got_d, half);
    r = std::move(hr);
    d = std::move(hd);
    size = half;
    pr = {keep[keep.size() - 2].get(), sc::SampleType::kF32, 8, size};
    pd = {keep.back().get(), sc::SampleType::kF32, 8, size};
    if (ssim::half_size(size).width < ssim::kWindowTaps || ssim::half_size(size).height < ssim::kWindowTaps) break;
  }
}

// One decimation of large f32 planes (the sweep's interior tiles on f32 input, as 4K's level 2):
// signed, sign-free with a -0 in one tile, tiny.
void check_large_f32_decimation(Device& dev, const std::string& tag) {
  std::mt19937 rng(99);
  const Size size{2000, 1100};
  std::vector<std::pair<std::vector<float>, std::vector<float>>> cases;
  cases.emplace_back(random_plane(size, rng, -40.0f, 300.0f), random_plane(size, rng, 0.0f, 255.0f));
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
    sc::enqueue_decimate({gr.get(), sc::SampleType::kF32, 8, size}, {gd.get(), sc::SampleType::kF32, 8, size},
                         or_.get<float>(), od.get<float>(), dev.stream.get());
    const auto got_r = dev.download<float>(or_, half.pixels()), got_d = dev.download<float>(od, half.pixels());
    EXPECT_TRUE(same_bytes(hr, got_r)) << tag << "large f32 case " << k << " ref: " << first_mismatch(hr, got_r, half);
    EXPECT_TRUE(same_bytes(hd, got_d)) << tag << "large f32 case " << k << " dis: " << first_mismatch(hd, got_d, half);
  }
}

// Every kept decimation variant (26: decimate_sweep2_kernel from 2e6 samples, its split
// accumulators for raw luma, decimate_kernel below; 28 / 32: decimate_rows_kernel for raw luma at
// level 1, always / from 3000x2000 samples, 26's kernels otherwise; 34: 32 with
// decimate_row_runs_kernel, runs of 4 output columns) against the plain twins: raw
// 8..16-bit planes with runs of zeros and of the maximum (the exactness bound's largest sums),
// widths and heights that are and are not multiples of the blocks (32x8, 64x32, 128 x 64), blocks
// wider than a narrow plane (11x11, 130x67), 1080p (the sweep at level 1) and 4K (the rows kernel
// at level 1, the sweep at level 2; 3001x2001 16-bit and 3070x2000 8-bit: the row kernels on
// widths that are not multiples of their runs or blocks); large f32 planes (the sweep's interior
// tiles on f32 input, signed and sign-free); the signed, flat and tiny planes.
TEST(SsimCudaStages, EveryDecimationVariantBitIdentical) {
  VQX_REQUIRE_CUDA();
  Device dev;
  const sc::SpeedVariants saved = sc::speed_variants();
  for (int d : sc::kDecimateVariants) {
    sc::set_speed_variants({saved.window, d, saved.reduce});
    ASSERT_EQ(sc::speed_variants().decimate, d);
    const std::string tag = fmt::format("variant d{}: ", d);
    for (RawCase rc : {RawCase{{97, 203}, 8}, RawCase{{300, 200}, 10}, RawCase{{77, 91}, 16}, RawCase{{11, 11}, 8},
                       RawCase{{176, 176}, 8}})
      check_pyramid(dev, rc, tag);
    for (RawCase rc : {RawCase{{1920, 1080}, 8}, RawCase{{1921, 1081}, 16}, RawCase{{2001, 1000}, 12},
                       RawCase{{853, 481}, 9}, RawCase{{130, 67}, 8}, RawCase{{512, 256}, 10},
                       RawCase{{3840, 2160}, 8}, RawCase{{3001, 2001}, 16}, RawCase{{3070, 2000}, 8}})
      check_decimation_levels(dev, rc, tag);
    check_large_f32_decimation(dev, tag);
    check_signed_flat_tiny(dev, tag);
  }
  sc::set_speed_variants(saved);
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
          if (depth > 8) pic.plane<uint16_t>(0)[i] = uint16_t(rng() % (max + 1));
          else pic.plane<uint8_t>(0)[i] = uint8_t(rng() % (max + 1));
        }
        std::vector<float> in(size.pixels());
        ssim::convert_luma(pic, in.data());
        const Size small = ssim::box_decimated_size(size, factor);
        std::vector<float> expected(small.pixels());
        ssim::box_decimate(in.data(), size, factor, expected.data(), nullptr);
        std::vector<uint8_t> bytes(pic.bytes(), pic.bytes() + pic.size_bytes());
        cuda::DeviceBuffer raw = dev.upload(bytes), out = dev.filled(small.pixels() * 4);
        sc::enqueue_box_decimate(sc::luma_plane(raw.get(), f), factor, out.get<float>(), dev.stream.get());
        const auto got = dev.download<float>(out, small.pixels());
        EXPECT_TRUE(same_bytes(expected, got))
            << fmt::format("{}x{} {}-bit factor {}: ", size.width, size.height, int(depth), factor)
            << first_mismatch(expected, got, small);
      }
}

// The partials (per-tile double-double sums) of one scale's windows with the current variants.
std::vector<sc::PartialSum> window_partials(Device& dev, const sc::DevicePlane& pr, const sc::DevicePlane& pd,
                                            Size size, bool cs_only = false) {
  sc::ScaleJob job;
  job.ref = pr;
  job.dis = pd;
  job.cs_only = cs_only;
  const size_t n = sc::partial_count(size) * sc::kSumQuantities;
  cuda::DeviceBuffer partials = dev.filled(n * sizeof(sc::PartialSum));
  sc::PartialSum* pp = partials.get<sc::PartialSum>();
  sc::enqueue_windows(&job, 1, &pp, dev.stream.get());
  return dev.download<sc::PartialSum>(partials, n);
}

bool same_partials(const std::vector<sc::PartialSum>& a, const std::vector<sc::PartialSum>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(sc::PartialSum)) == 0;
}

// Session 15: the strip kernel (windows 38 and 44; VQX_SSIM_STRIP tiles per block, the horizontal
// sums of a tile's last 10 input rows reused by the tile below) against the plain twins (planes,
// terms, sums) and against window 38 with one tile per block (the per-tile partials byte for byte:
// the same tiles, the same sums in the same order; 44's half-converted widening gives the same
// bits), for strips of 1, 2, 3 and 8 tiles: raw pyramids with 1..9 tile rows per
// level (43x75: a second tile of one row), and f32 planes with a sample whose sign bit is set in
// the 10 rows two tiles share (both take the signed path; the copied rows carry the sign), in a
// tile's new rows only (a signed tile inside a strip, then a sign-free one after it), or in the
// last, short tile.
TEST(SsimCudaStages, EveryStripVariantBitIdentical) {
  VQX_REQUIRE_CUDA();
  Device dev;
  const sc::SpeedVariants saved = sc::speed_variants();
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
  planes.emplace_back("flat", std::vector<float>(sz.pixels(), 77.0f), std::vector<float>(sz.pixels(), 77.0f));
  // Reference partials (window 38, a tile per block) of the f32 planes.
  sc::set_speed_variants({38, 32, 1, 1, 1});
  std::vector<std::vector<sc::PartialSum>> ref_partials;
  std::vector<cuda::DeviceBuffer> keep;
  for (auto& [name, r, d] : planes) {
    keep.push_back(dev.upload(r));
    keep.push_back(dev.upload(d));
    sc::DevicePlane pr{keep[keep.size() - 2].get(), sc::SampleType::kF32, 8, sz};
    sc::DevicePlane pd{keep.back().get(), sc::SampleType::kF32, 8, sz};
    ref_partials.push_back(window_partials(dev, pr, pd, sz));
  }
  for (int w : sc::kWindowVariants)
    for (int strip : {1, 2, 3, 8}) {
      sc::set_speed_variants({w, 32, strip % 2, strip, 1});  // strips in every launch
      const std::string tag = fmt::format("variant w{} strip {}: ", w, strip);
      for (RawCase rc : {RawCase{{43, 75}, 8}, RawCase{{300, 200}, 10}, RawCase{{77, 91}, 16}, RawCase{{11, 11}, 8}})
        check_pyramid(dev, rc, tag);
      if (strip == 3) check_pyramid(dev, RawCase{{961, 541}, 8}, tag);  // 9, 5, 3, 2, 1 tile rows
      for (size_t k = 0; k < planes.size(); ++k) {
        const auto& [name, r, d] = planes[k];
        sc::DevicePlane pr{keep[2 * k].get(), sc::SampleType::kF32, 8, sz};
        sc::DevicePlane pd{keep[2 * k + 1].get(), sc::SampleType::kF32, 8, sz};
        check_window_scale(dev, pr, pd, r, d, sz, tag + name);
        EXPECT_TRUE(same_partials(ref_partials[k], window_partials(dev, pr, pd, sz))) << tag << name << ": partials";
      }
      if (strip == 3) check_signed_flat_tiny(dev, tag);
    }
  // Raw 8-bit 1920x1080 (scale 0 of band1080's size: 17 tile rows) and a 10-bit plane: partials
  // of every window variant and strip length identical to window 38's with one tile per block.
  for (RawCase rc : {RawCase{{1920, 1080}, 8}, RawCase{{1283, 731}, 10}}) {
    const auto [ref, dis] = raw_luma_pair(rc, [&](size_t, uint32_t max) {
      const uint32_t a = rng() % (max + 1);
      const uint32_t b = std::min<uint32_t>(max, a + rng() % 9);
      return std::pair{a, b};
    });
    const PictureFormat& f = ref.format();
    cuda::DeviceBuffer raw_r = upload_picture(dev, ref), raw_d = upload_picture(dev, dis);
    const sc::DevicePlane pr = sc::luma_plane(raw_r.get(), f), pd = sc::luma_plane(raw_d.get(), f);
    sc::set_speed_variants({38, 32, 1, 1, 1});
    const auto expected = window_partials(dev, pr, pd, rc.size);
    for (int w : sc::kWindowVariants)
      for (int strip : {1, 2, 4, 5, 17}) {
        sc::set_speed_variants({w, 32, 1, strip, 1});
        EXPECT_TRUE(same_partials(expected, window_partials(dev, pr, pd, rc.size)))
            << rc.size.width << "x" << rc.size.height << " variant w" << w << " strip " << strip << ": partials";
        if (w == 38) continue;  // the lean terms: every window but 38
        // Session 16's lean terms (ScaleJob::cs_only): the c and s partials (quantities 1 and 2)
        // byte for byte those of the full terms.
        const auto lean = window_partials(dev, pr, pd, rc.size, true);
        ASSERT_EQ(lean.size(), expected.size());
        size_t differing = 0;
        for (size_t i = 0; i < lean.size(); ++i)
          if (i % sc::kSumQuantities == 1 || i % sc::kSumQuantities == 2)
            differing += std::memcmp(&lean[i], &expected[i], sizeof(sc::PartialSum)) != 0;
        EXPECT_EQ(differing, 0u) << rc.size.width << "x" << rc.size.height << " variant w" << w << " strip " << strip
                                 << ": cs_only partials";
      }
  }
  sc::set_speed_variants(saved);
}

// ---- Whole metrics -----------------------------------------------------------------------------

// Spec section 11 (the generator of tests/unit/float_ms_ssim_metric_test.cpp).
std::pair<Picture, Picture> spec_pair(uint32_t w, uint32_t h, uint8_t bpc) {
  PictureFormat f;
  f.width = w;
  f.height = h;
  f.bit_depth = bpc;
  f.subsampling = ChromaSubsampling::k420;
  Picture ref(f), dis(f);
  uint32_t state = 2463534242u;
  auto rnd = [&] {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  };
  const int sh = bpc - 8;
  const int64_t max = (int64_t{1} << bpc) - 1;
  auto set = [&](Picture& p, unsigned plane, size_t i, int64_t v) {
    if (bpc > 8) p.plane<uint16_t>(plane)[i] = uint16_t(v);
    else p.plane<uint8_t>(plane)[i] = uint8_t(v);
  };
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      const int64_t v = int64_t(((3 * x + 2 * y) + ((x ^ y) & 15)) % 200 + 24) << sh;
      int64_t d = v + (int64_t(rnd() % 9) - 4) * (int64_t{1} << sh);
      if (((x / 8) + (y / 8)) % 5 == 0) d = (d >> (sh + 3)) << (sh + 3);
      d = std::clamp<int64_t>(d, 0, max);
      set(ref, 0, size_t(y) * w + x, v);
      set(dis, 0, size_t(y) * w + x, d);
    }
  for (unsigned p = 1; p < f.plane_count(); ++p)
    for (size_t i = 0; i < size_t(f.plane_width(p)) * f.plane_height(p); ++i) {
      set(ref, p, i, int64_t{128} << sh);
      set(dis, p, i, int64_t{128} << sh);
    }
  return {std::move(ref), std::move(dis)};
}

std::unique_ptr<RunReport> run_one(const std::pair<Picture, Picture>& pair, const std::string& feature,
                                   const RunSettings& settings) {
  std::vector<Picture> r, d;
  r.emplace_back(pair.first.format());
  d.emplace_back(pair.second.format());
  std::memcpy(r[0].bytes(), pair.first.bytes(), pair.first.size_bytes());
  std::memcpy(d[0].bytes(), pair.second.bytes(), pair.second.size_bytes());
  return run_on_pictures(r, d, {feature}, settings);
}

// Session 17: full-width tiles of 8-bit planes whose rows start on 4-byte boundaries are read by
// words (load_window_words), the others by rows (load_window_rows). The same samples at a 4-byte
// aligned address and at offsets 1..3 (read by rows) give the CPU's planes and terms and the same
// partials byte for byte, with one tile per block and strips of 2. Widths: 76 (the last full
// tile's last word ends at the row's end, two bytes past the tile), 964 (a short last tile
// column, read by rows), 1000 (three tile rows, the last of 12 rows).
TEST(SsimCudaStages, WordAndRowLoadersBitIdentical) {
  VQX_REQUIRE_CUDA();
  Device dev;
  const sc::SpeedVariants saved = sc::speed_variants();
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
      const sc::DevicePlane pr{static_cast<const uint8_t*>(gr.get()) + offset, sc::SampleType::kU8, 8, rc.size};
      const sc::DevicePlane pd{static_cast<const uint8_t*>(gd.get()) + offset, sc::SampleType::kU8, 8, rc.size};
      for (int strip : {1, 2}) {
        sc::set_speed_variants({54, 34, 1, strip, 1});
        const std::string what =
            fmt::format("{}x{} offset {} strip {}", rc.size.width, rc.size.height, offset, strip);
        check_window_scale(dev, pr, pd, r, d, rc.size, what);
        const auto partials = window_partials(dev, pr, pd, rc.size);
        if (aligned.empty()) aligned = partials;
        else EXPECT_TRUE(same_partials(aligned, partials)) << what << ": partials";
      }
    }
  }
  sc::set_speed_variants(saved);
}

// Session 18: full-width tiles of f32 planes (the pyramid's levels) read by 16-byte vectors
// (load_window_vectors: width a multiple of 4, rows on 16-byte boundaries) must see every sign
// bit, the last vector's used half (tile columns 40, 41) included. A plane of positive samples
// with one negative sample or -0 in a tile's columns 0, 39, 40 or 41, in either plane: that tile
// takes the signed path, and the planes and terms are the CPU's. The same planes one float off
// their alignment (the row loader) give the same partials byte for byte.
TEST(SsimCudaStages, VectorAndRowLoadersSeeEverySign) {
  VQX_REQUIRE_CUDA();
  Device dev;
  const sc::SpeedVariants saved = sc::speed_variants();
  std::mt19937 rng(18);
  const Size size{1000, 150};
  const int x0 = 5 * 32, y = 70;  // a tile inside the plane: columns x0 .. x0 + 41
  for (float bad : {-1.5f, -0.0f})
    for (int plane : {0, 1})
      for (int col : {0, 39, 40, 41}) {
        std::vector<float> r = random_plane(size, rng, 0.5f, 250.0f), d = random_plane(size, rng, 0.5f, 250.0f);
        (plane == 0 ? r : d)[size_t(y) * size_t(size.width) + size_t(x0 + col)] = bad;
        std::vector<sc::PartialSum> aligned;
        for (int offset : {0, 1}) {
          std::vector<float> br(size_t(offset), 1.0f), bd(size_t(offset), 1.0f);
          br.insert(br.end(), r.begin(), r.end());
          bd.insert(bd.end(), d.begin(), d.end());
          cuda::DeviceBuffer gr = dev.upload(br), gd = dev.upload(bd);
          const sc::DevicePlane pr{static_cast<const float*>(gr.get()) + offset, sc::SampleType::kF32, 8, size};
          const sc::DevicePlane pd{static_cast<const float*>(gd.get()) + offset, sc::SampleType::kF32, 8, size};
          for (int strip : {1, 2}) {
            sc::set_speed_variants({54, 34, 1, strip, 1});
            const std::string what =
                fmt::format("{} in plane {} column {} offset {} strip {}", bad, plane, col, offset, strip);
            check_window_scale(dev, pr, pd, r, d, size, what);
            const auto partials = window_partials(dev, pr, pd, size);
            if (aligned.empty()) aligned = partials;
            else EXPECT_TRUE(same_partials(aligned, partials)) << what << ": partials";
          }
        }
      }
  sc::set_speed_variants(saved);
}

TEST(FloatMsSsimCuda, SpecGoldenVectorsBitExact) {
  VQX_REQUIRE_CUDA();
  struct Vector {
    uint32_t w, h;
    uint8_t bpc;
    double score;
  };
  for (const Vector& v : {Vector{176, 176, 8, 0.9953594375060858}, Vector{256, 192, 8, 0.99552853131579622},
                          Vector{576, 324, 8, 0.99537055936314012}, Vector{300, 200, 10, 0.9954188853371837}}) {
    const auto pair = spec_pair(v.w, v.h, v.bpc);
    auto gpu = run_one(pair, "float_ms_ssim", cuda_settings());
    EXPECT_TRUE(same_bits(column(*gpu, "float_ms_ssim").at(0), v.score))
        << fmt::format("{}x{} {}-bit: cuda {:.17g}, spec {:.17g}", v.w, v.h, int(v.bpc),
                       column(*gpu, "float_ms_ssim").at(0), v.score);
  }
}

TEST(FloatMsSsimCuda, SpecPerScaleMeansAt576x324) {
  VQX_REQUIRE_CUDA();
  const double expected[5][3] = {
      {0.99987238645553589, 0.99596917629241943, 0.95701926946640015},
      {0.99993842840194702, 0.99927914142608643, 0.99331670999526978},
      {0.9999728798866272, 0.99986797571182251, 0.99909919500350952},
      {0.99998295307159424, 0.99998795986175537, 0.99983501434326172},
      {0.99998414516448975, 0.99999761581420898, 0.99988257884979248},
  };
  auto gpu = run_one(spec_pair(576, 324, 8), "float_ms_ssim=enable_lcs=true", cuda_settings());
  const char* terms[3] = {"l", "c", "s"};
  for (int k = 0; k < 5; ++k)
    for (int t = 0; t < 3; ++t) {
      const std::string name = fmt::format("float_ms_ssim_{}_scale{}", terms[t], k);
      EXPECT_TRUE(same_bits(column(*gpu, name).at(0), expected[k][t])) << name;
    }
}

TEST(FloatMsSsimCuda, OptionsMatchTheCpu) {
  VQX_REQUIRE_CUDA();
  const auto pair = spec_pair(256, 192, 8);
  auto same = spec_pair(256, 192, 8);
  std::memcpy(same.second.bytes(), same.first.bytes(), same.first.size_bytes());
  for (const char* feature : {"float_ms_ssim=enable_db=true", "float_ms_ssim=enable_db=true:clip_db=true",
                              "float_ssim=enable_lcs=true:enable_db=true:clip_db=true", "float_ssim=scale=2",
                              "float_ssim=scale=1"})
    for (const std::pair<Picture, Picture>* p : {&pair, &std::as_const(same)}) {
      auto cpu = run_one(*p, feature, cpu_settings());
      auto gpu = run_one(*p, feature, cuda_settings());
      ASSERT_EQ(cpu->table.feature_names(), gpu->table.feature_names()) << feature;
      for (const auto& name : cpu->table.feature_names())
        EXPECT_TRUE(same_bits(column(*cpu, name).at(0), column(*gpu, name).at(0)))
            << feature << " " << name << fmt::format(": cpu {:.17g} cuda {:.17g}", column(*cpu, name).at(0),
                                                     column(*gpu, name).at(0));
    }
  // Identical inputs: exactly 1, and +inf dB without clip_db.
  auto gpu = run_one(same, "float_ms_ssim", cuda_settings());
  EXPECT_EQ(column(*gpu, "float_ms_ssim").at(0), 1.0);
}

TEST(FloatMsSsimCuda, SizeRulesAsTheCpu) {
  VQX_REQUIRE_CUDA();
  EXPECT_NO_THROW(run_one(spec_pair(176, 176, 8), "float_ms_ssim", cuda_settings()));
  EXPECT_THROW(run_one(spec_pair(175, 176, 8), "float_ms_ssim", cuda_settings()), InputError);
  EXPECT_THROW(run_one(spec_pair(176, 175, 8), "float_ms_ssim", cuda_settings()), InputError);
  EXPECT_THROW(run_one(spec_pair(108, 200, 8), "float_ssim=scale=10", cuda_settings()), InputError);
}

// The schedules (VQX_SSIM_FORK = 0, 1 or N bands of scale 0; VQX_SSIM_RSPLIT = 0, 1) give the same sums, hence the same outputs bit for bit; the knobs are
// read when the metric is constructed.
TEST(FloatMsSsimCuda, EveryScheduleGivesTheSameBits) {
  VQX_REQUIRE_CUDA();
  auto set = [](const char* name, const char* value) {
    if (value) setenv(name, value, 1);
    else unsetenv(name);
  };
  const char* names[2] = {"VQX_SSIM_FORK", "VQX_SSIM_RSPLIT"};
  std::string saved[2];
  bool had[2];
  for (int i = 0; i < 2; ++i) {
    const char* v = std::getenv(names[i]);
    had[i] = v != nullptr;
    saved[i] = v ? v : "";
  }
  for (auto [w, h, bpc] : {std::tuple{576u, 324u, uint8_t(8)}, std::tuple{300u, 200u, uint8_t(10)},
                           std::tuple{176u, 176u, uint8_t(8)}, std::tuple{1280u, 720u, uint8_t(8)}}) {
    const auto pair = spec_pair(w, h, bpc);
    set("VQX_SSIM_FORK", "0");
    set("VQX_SSIM_RSPLIT", "0");
    auto base = run_one(pair, "float_ms_ssim=enable_lcs=true", cuda_settings());
    for (auto [fork, rsplit] : {std::pair{"0", "1"}, {"1", "0"}, {"1", "1"}, {"2", "0"}, {"2", "1"}, {"3", "0"},
                                {"3", "1"}, {"7", "0"}, {"7", "1"}}) {
      set("VQX_SSIM_FORK", fork);
      set("VQX_SSIM_RSPLIT", rsplit);
      auto got = run_one(pair, "float_ms_ssim=enable_lcs=true", cuda_settings());
      for (const auto& name : base->table.feature_names())
        EXPECT_TRUE(same_bits(column(*base, name).at(0), column(*got, name).at(0)))
            << fmt::format("{}x{} fork {} rsplit {} {}: {:.17g} vs {:.17g}", w, h, fork, rsplit,
                           name, column(*base, name).at(0), column(*got, name).at(0));
    }
  }
  for (int i = 0; i < 2; ++i) set(names[i], had[i] ? saved[i].c_str() : nullptr);
}

// The contract on every fixture frame (spec 10): the f32 means identical to the CPU's, or a single
// mean one ulp away (named in the log); the score identical when the means are, else within 1e-7.
void expect_means_contract(const std::string& pair, const std::string& feature,
                           const std::vector<std::string>& means, const std::string& score) {
  auto cpu = run_on_pair(pair, {feature}, cpu_settings());
  auto gpu = run_on_pair(pair, {feature}, cuda_settings());
  const auto cs = column(*cpu, score), gs = column(*gpu, score);
  ASSERT_EQ(cs.size(), gs.size());
  size_t identical = 0, straddles = 0;
  double max_diff = 0;
  for (size_t f = 0; f < cs.size(); ++f) {
    int differing = 0;
    for (const auto& name : means) {
      const double a = column(*cpu, name)[f], b = column(*gpu, name)[f];
      if (same_bits(a, b)) continue;
      ++differing;
      ++straddles;
      EXPECT_EQ(std::nextafter(float(a), float(b)), float(b)) << pair << " frame " << f << " " << name;
      std::printf("straddle %s %s frame %zu %s: cpu %.17g cuda %.17g (one f32 ulp)\n", pair.c_str(),
                  feature.c_str(), f, name.c_str(), a, b);
    }
    EXPECT_LE(differing, 1) << pair << " frame " << f << ": more than one mean differs";
    const double diff = std::fabs(cs[f] - gs[f]);
    max_diff = std::max(max_diff, diff);
    if (differing == 0)
      EXPECT_TRUE(same_bits(cs[f], gs[f])) << fmt::format("{} frame {}: cpu {:.17g} cuda {:.17g}", pair, f, cs[f], gs[f]);
    else
      EXPECT_LE(diff, 1e-7) << pair << " frame " << f;
    identical += same_bits(cs[f], gs[f]);
  }
  std::printf("contract %-8s %-32s %zu/%zu scores identical, %zu one-ulp means, max |diff| %.3g\n",
              pair.c_str(), feature.c_str(), identical, cs.size(), straddles, max_diff);
}

class FixtureContract : public ::testing::TestWithParam<std::string> {};

TEST_P(FixtureContract, FloatMsSsimMeansAndScore) {
  VQX_REQUIRE_CUDA();
  VQX_REQUIRE_FIXTURE(GetParam(), dir);
  std::vector<std::string> means;
  for (const char* term : {"l", "c", "s"})
    for (int k = 0; k < 5; ++k) means.push_back(fmt::format("float_ms_ssim_{}_scale{}", term, k));
  expect_means_contract(GetParam(), "float_ms_ssim=enable_lcs=true", means, "float_ms_ssim");
}

TEST_P(FixtureContract, FloatSsimMeansAndScore) {
  VQX_REQUIRE_CUDA();
  VQX_REQUIRE_FIXTURE(GetParam(), dir);
  // float_ssim is itself a mean: all four outputs are compared as means.
  const std::vector<std::string> means = {"float_ssim", "float_ssim_l", "float_ssim_c", "float_ssim_s"};
  expect_means_contract(GetParam(), "float_ssim=enable_lcs=true", means, "float_ssim");
  expect_means_contract(GetParam(), "float_ssim=enable_lcs=true:scale=1", means, "float_ssim");
}

// Without enable_lcs the scales whose l mean has exponent 0 take the lean terms (c and s only,
// ScaleJob::cs_only): the score is the enable_lcs run's bit for bit, and within the contract of
// the CPU's default run (identical when no mean straddles).
TEST_P(FixtureContract, FloatMsSsimDefaultOptionsSameScore) {
  VQX_REQUIRE_CUDA();
  VQX_REQUIRE_FIXTURE(GetParam(), dir);
  auto lcs = run_on_pair(GetParam(), {"float_ms_ssim=enable_lcs=true"}, cuda_settings());
  auto lean = run_on_pair(GetParam(), {"float_ms_ssim"}, cuda_settings());
  auto cpu = run_on_pair(GetParam(), {"float_ms_ssim"}, cpu_settings());
  const auto a = column(*lcs, "float_ms_ssim"), b = column(*lean, "float_ms_ssim"), c = column(*cpu, "float_ms_ssim");
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ(c.size(), b.size());
  size_t identical = 0;
  for (size_t f = 0; f < a.size(); ++f) {
    EXPECT_TRUE(same_bits(a[f], b[f])) << fmt::format("{} frame {}: enable_lcs {:.17g} default {:.17g}", GetParam(), f,
                                                      a[f], b[f]);
    EXPECT_LE(std::fabs(b[f] - c[f]), 1e-7) << GetParam() << " frame " << f;
    identical += same_bits(b[f], c[f]);
  }
  std::printf("lean %-8s float_ms_ssim default: %zu/%zu scores identical to the CPU's\n", GetParam().c_str(),
              identical, b.size());
}

// Same bits on every run (the tree's shape is fixed; no atomics).
TEST_P(FixtureContract, RepeatedRunsGiveTheSameBits) {
  VQX_REQUIRE_CUDA();
  VQX_REQUIRE_FIXTURE(GetParam(), dir);
  const std::vector<std::string> features = {"float_ms_ssim=enable_lcs=true", "float_ssim=enable_lcs=true"};
  auto first = run_on_pair(GetParam(), features, cuda_settings());
  for (int rep = 0; rep < 2; ++rep) {
    auto again = run_on_pair(GetParam(), features, cuda_settings());
    ASSERT_EQ(first->table.feature_names(), again->table.feature_names());
    size_t compared = 0;
    for (const auto& name : first->table.feature_names()) {
      const auto a = column(*first, name), b = column(*again, name);
      ASSERT_EQ(a.size(), b.size());
      for (size_t f = 0; f < a.size(); ++f, ++compared)
        EXPECT_TRUE(same_bits(a[f], b[f])) << GetParam() << " " << name << " frame " << f;
    }
    std::printf("repeat %-8s run %d: %zu values, all identical to run 0: %s\n", GetParam().c_str(), rep + 1,
                compared, ::testing::Test::HasFailure() ? "no" : "yes");
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixtureContract, ::testing::ValuesIn(kAllPairs));

}  // namespace
}  // namespace vqx::test
