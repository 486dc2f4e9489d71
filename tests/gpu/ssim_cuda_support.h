#pragma once
// Helpers of the SSIM CUDA stage tests (ssim_cuda_stages_test.cpp, ssim_cuda_windows_test.cpp,
// float_ms_ssim_cuda_test.cpp): device buffers that settle before use, byte-exact comparisons, and
// the runs of one scale's windows or a whole pyramid checked against the plain CPU twins.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/picture.h"
#include "engine/cuda/cuda_check.h"
#include "engine/cuda/device_context.h"
#include "metrics/ssim_core/cuda/ssim_cuda.h"
#include "metrics/ssim_core/cuda/ssim_cuda_testing.h"
#include "metrics/ssim_core/ssim_stages.h"

namespace vqx::test {

using ssim::Size;
namespace sc = ssim::cuda;

// The stage kernels run on `stream`, a non-blocking stream, which does not wait for cudaMemset or
// cudaMemcpy on the legacy stream (both may return before the device has done them): every
// upload or fill waits for the device before a kernel may read or overwrite the buffer.
struct Device {
  cuda::DeviceContext context{0};
  cuda::Stream stream;
  Device() { sc::prepare_device(); }
  static void settle() { cuda::check(cudaDeviceSynchronize(), "settle"); }

  template <typename T>
  cuda::DeviceBuffer upload(const std::vector<T>& host) {
    cuda::DeviceBuffer b(context, host.size() * sizeof(T), "test");
    cuda::check(cudaMemcpy(b.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice),
                "upload");
    settle();
    return b;
  }
  cuda::DeviceBuffer filled(size_t bytes) {
    cuda::DeviceBuffer b(context, bytes, "test");
    cuda::check(cudaMemset(b.get(), 0xff, bytes),
                "fill");  // NaN-like garbage: every value must be written
    settle();
    return b;
  }
  template <typename T>
  std::vector<T> download(const cuda::DeviceBuffer& b, size_t count) {
    cuda::check(cudaStreamSynchronize(stream.get()), "sync");
    std::vector<T> host(count);
    cuda::check(cudaMemcpy(host.data(), b.get(), count * sizeof(T), cudaMemcpyDeviceToHost),
                "download");
    return host;
  }
};

template <typename T>
inline bool same_bytes(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

template <typename T>
inline std::string first_mismatch(const std::vector<T>& a, const std::vector<T>& b, Size size) {
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0)
      return fmt::format("first mismatch at ({}, {}): cpu {:.17g} cuda {:.17g}",
                         int(i % size.width), int(i / size.width), double(a[i]), double(b[i]));
  return "sizes differ";
}

// The CPU's plane of one quantity (sample-wise products as window_statistics_plain forms them).
inline std::vector<float> products(const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<float> out(a.size());
  for (size_t i = 0; i < a.size(); ++i) out[i] = a[i] * b[i];
  return out;
}

// Tiles per block of a window launch: `strip` when given, else what enqueue_windows picks for a
// launch of this one scale.
inline int strip_or_product(int strip, Size size) {
  return strip > 0 ? strip : sc::product_tiles_per_block(sc::partial_count(size));
}

// Runs the window stage of one scale with every tap on (strips of `strip` tiles; 0: the product's
// choice), compares the planes with the plain twins and the sums with the CPU's sequential sums.
// Returns how many f32 means differ (by one ulp).
inline int check_window_scale(Device& dev, const sc::DevicePlane& ref_plane,
                              const sc::DevicePlane& dis_plane, const std::vector<float>& ref,
                              const std::vector<float>& dis, Size size, const std::string& what,
                              int strip = 0) {
  const Size map = ssim::map_size(size);
  const size_t m = map.pixels();
  cuda::DeviceBuffer planes[5], l = dev.filled(m * 8), c = dev.filled(m * 8), s = dev.filled(m * 4);
  for (auto& p : planes) p = dev.filled(m * 4);
  sc::ScaleJob job;
  job.ref = ref_plane;
  job.dis = dis_plane;
  const sc::WindowTaps taps = {planes[0].get<float>(), planes[1].get<float>(),
                               planes[2].get<float>(), planes[3].get<float>(),
                               planes[4].get<float>(), l.get<double>(),
                               c.get<double>(),        s.get<float>()};
  cuda::DeviceBuffer partials =
      dev.filled(sc::partial_count(size) * sc::kSumQuantities * sizeof(sc::PartialSum));
  cuda::DeviceBuffer sums = dev.filled(sc::kSumQuantities * sizeof(double));
  sc::PartialSum* pp = partials.get<sc::PartialSum>();
  sc::enqueue_windows_for_test(&job, &taps, 1, &pp, strip_or_product(strip, size),
                               dev.stream.get());
  sc::enqueue_reduce(&size, 1, &pp, sums.get<double>(), dev.stream.get());

  // Plain twins.
  const std::vector<float> inputs[5] = {ref, dis, products(ref, ref), products(dis, dis),
                                        products(ref, dis)};
  const char* names[5] = {"mu_r", "mu_d", "sum_rr", "sum_dd", "sum_rd"};
  for (int q = 0; q < 5; ++q) {
    std::vector<float> expected(m);
    ssim::window_convolve_plain(inputs[q].data(), size, expected.data());
    const auto got = dev.download<float>(planes[q], m);
    EXPECT_TRUE(same_bytes(expected, got))
        << what << " " << names[q] << ": " << first_mismatch(expected, got, map);
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

inline std::vector<float> random_plane(Size size, std::mt19937& rng, float lo, float hi) {
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> p(size.pixels());
  for (float& v : p) v = u(rng);
  return p;
}

struct RawCase {
  Size size;
  uint8_t bit_depth;
};

// A 4:0:0 pair of rc's size and bit depth; gen(i, max) gives sample i's reference and distorted
// values (called in index order).
template <typename Gen>
inline std::pair<Picture, Picture> raw_luma_pair(const RawCase& rc, Gen gen) {
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
inline cuda::DeviceBuffer upload_picture(Device& dev, const Picture& p) {
  return dev.upload(std::vector<uint8_t>(p.bytes(), p.bytes() + p.size_bytes()));
}

// A raw picture pair on the device (its luma planes) and their f32 copies on the host.
struct RawPair {
  std::vector<float> ref, dis;  // convert_luma
  cuda::DeviceBuffer ref_buffer, dis_buffer;
  sc::DevicePlane ref_plane, dis_plane;
};

inline RawPair upload_pair(Device& dev, const Picture& ref, const Picture& dis) {
  RawPair p;
  const PictureFormat& f = ref.format();
  p.ref.resize(size_t(f.width) * f.height);
  p.dis.resize(p.ref.size());
  ssim::convert_luma(ref, p.ref.data());
  ssim::convert_luma(dis, p.dis.data());
  p.ref_buffer = upload_picture(dev, ref);
  p.dis_buffer = upload_picture(dev, dis);
  p.ref_plane = sc::luma_plane(p.ref_buffer.get(), f);
  p.dis_plane = sc::luma_plane(p.dis_buffer.get(), f);
  return p;
}

// One device decimation of (pr, pd) compared with decimate_plain of their CPU copies (r, d): then
// r, d, pr, pd and size move on to the decimated level (its device planes kept in `keep`).
inline void decimate_and_check(Device& dev, sc::DevicePlane& pr, sc::DevicePlane& pd,
                               std::vector<float>& r, std::vector<float>& d, Size& size,
                               std::vector<cuda::DeviceBuffer>& keep, const std::string& what) {
  const Size half = ssim::half_size(size);
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
  EXPECT_TRUE(same_bytes(hr, got_r))
      << what << " decimated ref: " << first_mismatch(hr, got_r, half);
  EXPECT_TRUE(same_bytes(hd, got_d))
      << what << " decimated dis: " << first_mismatch(hd, got_d, half);
  r = std::move(hr);
  d = std::move(hd);
  size = half;
  pr = {gr, sc::SampleType::kF32, 8, size};
  pd = {gd, sc::SampleType::kF32, 8, size};
}

// Raw samples -> conversion -> the whole pyramid -> windows and terms at every level, each
// compared with the plain CPU stages. Sizes: the 11x11 minimum, odd, 2^n +- 1, tiles with one
// column or row, 176 (every level down to 11). Window launches in strips of `strip` tiles (0: the
// product's choice).
inline void check_pyramid(Device& dev, const RawCase& rc, const std::string& tag = {},
                          int strip = 0) {
  std::mt19937 rng(rc.size.width * 7919u + rc.size.height + rc.bit_depth);
  const auto [ref, dis] = raw_luma_pair(rc, [&](size_t, uint32_t max) {
    const uint32_t a = rng() % (max + 1);
    const uint32_t b = std::min<uint32_t>(max, a + rng() % (max / 8 + 1));  // correlated
    return std::pair{a, b};
  });
  RawPair raw = upload_pair(dev, ref, dis);
  std::vector<float>& r = raw.ref;
  std::vector<float>& d = raw.dis;
  sc::DevicePlane pr = raw.ref_plane, pd = raw.dis_plane;
  Size size = rc.size;
  std::vector<cuda::DeviceBuffer> keep;
  for (int level = 0;; ++level) {
    const std::string what =
        fmt::format("{}{}x{} {}-bit level {} ({}x{})", tag, rc.size.width, rc.size.height,
                    int(rc.bit_depth), level, size.width, size.height);
    if (size.width >= ssim::kWindowTaps && size.height >= ssim::kWindowTaps)
      check_window_scale(dev, pr, pd, r, d, size, what, strip);
    const Size half = ssim::half_size(size);
    if (half.width < ssim::kWindowTaps || half.height < ssim::kWindowTaps || level == 4) break;
    decimate_and_check(dev, pr, pd, r, d, size, keep, what);
  }
}

// f32 planes with negative values, wide dynamic range and exact zeros (signed products, the
// scaled widening of tiny and negative terms), and flat planes (zero variance: the zli-nflx fix).
inline void check_signed_flat_tiny(Device& dev, const std::string& tag = {}, int strip = 0) {
  std::mt19937 rng(12345);
  for (Size size : {Size{37, 29}, Size{200, 150}}) {
    std::vector<std::pair<std::vector<float>, std::vector<float>>> cases;
    cases.emplace_back(random_plane(size, rng, -40.0f, 300.0f),
                       random_plane(size, rng, -40.0f, 300.0f));
    auto tiny = random_plane(size, rng, -1e-20f, 1e-20f);
    auto mixed = random_plane(size, rng, -1.0f, 1.0f);
    for (size_t i = 0; i < mixed.size(); i += 3) mixed[i] = (i % 2) ? 0.0f : -0.0f;
    for (size_t i = 0; i < mixed.size(); i += 7) mixed[i] *= 1e-30f;
    cases.emplace_back(tiny, mixed);
    cases.emplace_back(std::vector<float>(size.pixels(), 128.0f),
                       std::vector<float>(size.pixels(), 128.0f));
    cases.emplace_back(std::vector<float>(size.pixels(), 0.0f),
                       random_plane(size, rng, 0.0f, 255.0f));
    auto flat_neg = std::vector<float>(size.pixels(), -3.25f);
    cases.emplace_back(flat_neg, random_plane(size, rng, -5.0f, 5.0f));
    // Sign bits clear (the sign-free paths): tiny and subnormal products, +0 samples.
    auto tiny_pos = random_plane(size, rng, 0.0f, 1e-19f);
    for (size_t i = 0; i < tiny_pos.size(); i += 5) tiny_pos[i] = 0.0f;
    for (size_t i = 0; i < tiny_pos.size(); i += 11) tiny_pos[i] *= 1e-25f;
    cases.emplace_back(tiny_pos, random_plane(size, rng, 0.0f, 1e-3f));
    // One sample with its sign bit set (a -0 in one tile, a negative value in another): those
    // tiles take the signed path, the others the sign-free one.
    auto one_neg_r = random_plane(size, rng, 0.0f, 255.0f),
         one_neg_d = random_plane(size, rng, 0.0f, 255.0f);
    one_neg_r[one_neg_r.size() / 2] = -0.0f;
    one_neg_d[size_t(size.width) * 3 + 5] = -17.5f;
    cases.emplace_back(one_neg_r, one_neg_d);
    for (size_t k = 0; k < cases.size(); ++k) {
      const auto& [r, d] = cases[k];
      const std::string what = fmt::format("{}{}x{} case {}", tag, size.width, size.height, k);
      cuda::DeviceBuffer gr = dev.upload(r), gd = dev.upload(d);
      sc::DevicePlane pr{gr.get(), sc::SampleType::kF32, 8, size},
          pd{gd.get(), sc::SampleType::kF32, 8, size};
      check_window_scale(dev, pr, pd, r, d, size, what, strip);
      const Size half = ssim::half_size(size);
      std::vector<float> hr(half.pixels()), hd(half.pixels());
      ssim::decimate_plain(r.data(), size, hr.data());
      ssim::decimate_plain(d.data(), size, hd.data());
      cuda::DeviceBuffer or_ = dev.filled(half.pixels() * 4), od = dev.filled(half.pixels() * 4);
      sc::enqueue_decimate(pr, pd, or_.get<float>(), od.get<float>(), dev.stream.get());
      const auto got_r = dev.download<float>(or_, half.pixels()),
                 got_d = dev.download<float>(od, half.pixels());
      EXPECT_TRUE(same_bytes(hr, got_r))
          << what << " decimated ref: " << first_mismatch(hr, got_r, half);
      EXPECT_TRUE(same_bytes(hd, got_d))
          << what << " decimated dis: " << first_mismatch(hd, got_d, half);
    }
  }
}

// The partials (per-tile double-double sums) of one scale's windows, in strips of `strip` tiles
// (0: the product's choice), without taps.
inline std::vector<sc::PartialSum> window_partials(Device& dev, const sc::DevicePlane& pr,
                                                   const sc::DevicePlane& pd, Size size,
                                                   int strip = 0, bool cs_only = false) {
  sc::ScaleJob job;
  job.ref = pr;
  job.dis = pd;
  job.cs_only = cs_only;
  const size_t n = sc::partial_count(size) * sc::kSumQuantities;
  cuda::DeviceBuffer partials = dev.filled(n * sizeof(sc::PartialSum));
  sc::PartialSum* pp = partials.get<sc::PartialSum>();
  sc::enqueue_windows_for_test(&job, nullptr, 1, &pp, strip_or_product(strip, size),
                               dev.stream.get());
  return dev.download<sc::PartialSum>(partials, n);
}

inline bool same_partials(const std::vector<sc::PartialSum>& a,
                          const std::vector<sc::PartialSum>& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(sc::PartialSum)) == 0;
}

}  // namespace vqx::test
