// The CUDA twin of ssimulacra2 against the CPU (shared/spec/ssimulacra2.md 15.3):
//  - every intermediate plane (linear RGB, XYB, products, the 15 horizontal and 15 full blurs,
//    the d/art/det terms) read back from the device and compared bit for bit with the CPU's plain
//    stage functions, at one scale and at all scales, on fixture frames and synthetic pictures;
//  - the device's tree sums against the CPU's sequential sums, and the score within 1e-10;
//  - the three scale schedules (concurrent, chain with and without its split, sequential) give
//    the same bits;
//  - the same bits on 100 repeated runs;
//  - section 16's synthetic vectors (f64 edge mode) within 1e-10 of the spec's scores;
//  - the kernels' inlined division and cube root against the library's on their domains.
#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "core/error.h"
#include "engine/cuda/device_context.h"
#include "gpu/gpu_support.h"
#include "io/readers.h"
#include "metrics/ssimulacra2/cuda/ssimulacra2_cuda_testing.h"
#include "metrics/ssimulacra2/ssimulacra2_core.h"
#include "metrics/ssimulacra2/ssimulacra2_kernels.h"
#include "support/fixtures.h"
#include "support/ssimulacra2_vectors.h"

namespace vqx::test {
namespace {

using namespace vqx::ssimulacra2;
using ssimulacra2::cuda::run_stages;
using ssimulacra2::cuda::StageFrame;
using ssimulacra2::cuda::StageScale;

// The CPU's stages written out plainly, plane by plane, with the plain twins of ssimulacra2_core.h
// (not the optimised kernels; the sums by the metric's), in the StageScale layout.
struct CpuStages {
  std::vector<StageScale> scales;
  FrameSums sums;
};

CpuStages cpu_stages(const Picture& ref, const Picture& dis, const YuvMatrix* matrix,
                     EdgeDifference mode, int max_scales) {
  CpuStages out;
  uint32_t cw = ref.format().width, ch = ref.format().height;
  std::vector<float> linear(size_t{6} * cw * ch);
  const Picture* pictures[2] = {&ref, &dis};
  for (int image = 0; image < 2; ++image) {
    const size_t n = size_t{cw} * ch;
    float* base = linear.data() + size_t(3 * image) * n;
    const RgbPlanes planes{{base, base + n, base + 2 * n}, cw, ch};
    if (matrix)
      yuv_to_linear_rgb(*pictures[image], *matrix, planes, 0, ch);
    else
      rgb_to_linear_rgb(*pictures[image], planes, 0, ch);
  }
  for (int s = 0; s < kNumScales && s < max_scales; ++s) {
    if (cw < kMinScaleSize || ch < kMinScaleSize) break;
    const size_t n = size_t{cw} * ch;
    StageScale d;
    d.width = cw;
    d.height = ch;
    d.linear = linear;
    d.xyb.resize(6 * n);
    for (int image = 0; image < 2; ++image) {
      const float* in = linear.data() + size_t(3 * image) * n;
      float* o = d.xyb.data() + size_t(3 * image) * n;
      for (size_t i = 0; i < n; ++i) {
        const XybPixel p = linear_rgb_to_xyb(in[i], in[n + i], in[2 * n + i]);
        o[i] = p.x;
        o[n + i] = p.y;
        o[2 * n + i] = p.b;
      }
    }
    d.products.resize(9 * n);
    d.hblur.resize(15 * n);
    d.vblur.resize(15 * n);
    d.terms.resize(9 * n);
    const size_t f32_end = f32_difference_count(n, mode);
    for (int c = 0; c < 3; ++c) {
      const float* img1 = d.xyb.data() + size_t(c) * n;
      const float* img2 = d.xyb.data() + size_t(3 + c) * n;
      float* p = d.products.data() + size_t(3 * c) * n;
      multiply_planes(img1, img1, p, 0, n);
      multiply_planes(img2, img2, p + n, 0, n);
      multiply_planes(img1, img2, p + 2 * n, 0, n);
      const float* src[5] = {img1, img2, p, p + n, p + 2 * n};
      const float* v[5];
      for (int k = 0; k < 5; ++k) {
        float* hb = d.hblur.data() + size_t(5 * c + k) * n;
        float* vb = d.vblur.data() + size_t(5 * c + k) * n;
        for (uint32_t y = 0; y < ch; ++y)
          blur_line_reference(src[k] + size_t{y} * cw, 1, hb + size_t{y} * cw, 1, cw);
        for (uint32_t x = 0; x < cw; ++x) blur_line_reference(hb + x, cw, vb + x, cw, ch);
        v[k] = vb;
      }
      double* t = d.terms.data() + size_t(3 * c) * n;
      for (size_t i = 0; i < n; ++i) {
        t[i] = ssim_term(v[0][i], v[1][i], v[2][i], v[3][i], v[4][i]);
        const double r = i < f32_end ? edge_ratio_f32_difference(img1[i], v[0][i], img2[i], v[1][i])
                                     : edge_ratio(img1[i], v[0][i], img2[i], v[1][i]);
        t[n + i] = r > 0.0 ? r : 0.0;
        t[2 * n + i] = r < 0.0 ? -r : 0.0;
      }
      ChannelSums& sums = out.sums.sums[size_t(s)][size_t(c)];
      const Ssimulacra2Kernels& k = ssimulacra2_kernels();
      k.sum_ssim_terms(v[0], v[1], v[2], v[3], v[4], n, sums);
      k.sum_edge_terms(img1, v[0], img2, v[1], n, f32_end, sums);
    }
    out.sums.pixels[size_t(s)] = n;
    out.sums.scales = s + 1;
    out.scales.push_back(std::move(d));
    const uint32_t nw = half_size(cw), nh = half_size(ch);
    std::vector<float> next(size_t{6} * nw * nh);
    for (int p = 0; p < 6; ++p)
      downsample_2x2(linear.data() + size_t(p) * n, cw, ch, next.data() + size_t(p) * nw * nh, 0,
                     nh);
    linear = std::move(next);
    cw = nw;
    ch = nh;
  }
  return out;
}

template <typename T>
std::string bits_of(T v) {
  if constexpr (sizeof(T) == 4) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    return fmt::format("{:08x} ({:.9g})", u, double(v));
  } else {
    uint64_t u;
    std::memcpy(&u, &v, 8);
    return fmt::format("{:016x} ({:.17g})", u, double(v));
  }
}

// Bit-for-bit comparison of one stage's planes; reports the first differing pixel.
template <typename T>
void expect_same_planes(const std::vector<T>& cpu, const std::vector<T>& gpu, uint32_t w,
                        uint32_t h, const std::string& what) {
  ASSERT_EQ(cpu.size(), gpu.size()) << what;
  if (std::memcmp(cpu.data(), gpu.data(), cpu.size() * sizeof(T)) == 0) return;
  const size_t n = size_t{w} * h;
  size_t differing = 0, first = cpu.size();
  for (size_t i = 0; i < cpu.size(); ++i)
    if (std::memcmp(&cpu[i], &gpu[i], sizeof(T)) != 0) {
      if (first == cpu.size()) first = i;
      ++differing;
    }
  const size_t plane = first / n, pixel = first % n;
  ADD_FAILURE() << fmt::format(
      "{}: {} values differ; first in plane {} at (x {}, y {}): cpu {}, cuda {}", what, differing,
      plane, pixel % w, pixel / w, bits_of(cpu[first]), bits_of(gpu[first]));
}

// Runs both and compares every stage of every scale, the sums and the score.
void expect_stages_match(const Picture& ref, const Picture& dis, const YuvMatrix* matrix,
                         EdgeDifference mode, int max_scales, const std::string& label) {
  const CpuStages cpu = cpu_stages(ref, dis, matrix, mode, max_scales);
  const StageFrame gpu = run_stages(ref, dis, matrix, mode, max_scales);
  ASSERT_EQ(cpu.scales.size(), gpu.scales.size()) << label;
  ASSERT_EQ(cpu.sums.scales, gpu.sums.scales) << label;
  for (size_t s = 0; s < cpu.scales.size(); ++s) {
    const StageScale& a = cpu.scales[s];
    const StageScale& b = gpu.scales[s];
    ASSERT_EQ(a.width, b.width);
    ASSERT_EQ(a.height, b.height);
    const std::string at = fmt::format("{} scale {} ({}x{})", label, s, a.width, a.height);
    expect_same_planes(a.linear, b.linear, a.width, a.height, at + " linear RGB");
    expect_same_planes(a.xyb, b.xyb, a.width, a.height, at + " XYB");
    expect_same_planes(a.products, b.products, a.width, a.height, at + " products");
    expect_same_planes(a.hblur, b.hblur, a.width, a.height, at + " horizontal blur");
    expect_same_planes(a.vblur, b.vblur, a.width, a.height, at + " blur");
    expect_same_planes(a.terms, b.terms, a.width, a.height, at + " d/art/det terms");
  }
  // The sums: only the order of the adds differs (tree vs raster order).
  double worst = 0.0;
  for (int s = 0; s < cpu.sums.scales; ++s) {
    EXPECT_EQ(cpu.sums.pixels[size_t(s)], gpu.sums.pixels[size_t(s)]);
    for (int c = 0; c < 3; ++c) {
      const ChannelSums& x = cpu.sums.sums[size_t(s)][size_t(c)];
      const ChannelSums& y = gpu.sums.sums[size_t(s)][size_t(c)];
      const double pairs[6][2] = {{x.s1, y.s1}, {x.s4, y.s4}, {x.a1, y.a1},
                                  {x.a4, y.a4}, {x.d1, y.d1}, {x.d4, y.d4}};
      for (const auto& p : pairs) {
        const double rel = p[0] == p[1] ? 0.0 : std::fabs(p[0] - p[1]) / std::fabs(p[0]);
        worst = std::max(worst, rel);
        EXPECT_LE(rel, 1e-10) << fmt::format("{} scale {} channel {}: cpu {:.17g}, cuda {:.17g}",
                                             label, s, c, p[0], p[1]);
      }
    }
  }
  const double cpu_score = pool_score(cpu.sums);
  EXPECT_LE(std::fabs(cpu_score - gpu.score), 1e-10)
      << fmt::format("{}: cpu {:.17g}, cuda {:.17g}", label, cpu_score, gpu.score);
  std::printf(
      "stages %-40s %zu scales bit-identical; sums max rel diff %.3g; score cpu %.17g cuda %.17g "
      "|d| %.3g\n",
      label.c_str(), cpu.scales.size(), worst, cpu_score, gpu.score,
      std::fabs(cpu_score - gpu.score));
}

std::pair<Picture, Picture> fixture_frame(const std::string& dir, uint64_t frame) {
  auto ref_reader = open_y4m(dir + "/ref.y4m", "reference");
  auto dis_reader = open_y4m(dir + "/dis.y4m", "distorted");
  Picture ref(ref_reader->format()), dis(dis_reader->format());
  ref_reader->skip(frame);
  dis_reader->skip(frame);
  EXPECT_TRUE(ref_reader->read(ref));
  EXPECT_TRUE(dis_reader->read(dis));
  return {std::move(ref), std::move(dis)};
}

struct FixtureCase {
  std::string pair;
  uint64_t frame;
  int yuv_matrix;
};

class Ssimulacra2CudaStages : public ::testing::TestWithParam<FixtureCase> {};

TEST_P(Ssimulacra2CudaStages, AllScalesBitIdentical) {
  VQX_REQUIRE_CUDA();
  const FixtureCase& c = GetParam();
  VQX_REQUIRE_FIXTURE(c.pair, dir);
  auto [ref, dis] = fixture_frame(dir, c.frame);
  const YuvMatrix m = make_yuv_matrix(c.yuv_matrix);
  expect_stages_match(ref, dis, &m, EdgeDifference::kFloatGroupsOf8, kNumScales,
                      fmt::format("{} frame {} matrix {}", c.pair, c.frame, c.yuv_matrix));
}

TEST_P(Ssimulacra2CudaStages, OneScaleBitIdentical) {
  VQX_REQUIRE_CUDA();
  const FixtureCase& c = GetParam();
  if (c.pair == "uhd4k" || c.pair == "band1080") GTEST_SKIP() << "covered by AllScales";
  VQX_REQUIRE_FIXTURE(c.pair, dir);
  auto [ref, dis] = fixture_frame(dir, c.frame);
  const YuvMatrix m = make_yuv_matrix(c.yuv_matrix);
  expect_stages_match(ref, dis, &m, EdgeDifference::kDouble, 1,
                      fmt::format("{} frame {} scale 0 only, f64 edges", c.pair, c.frame));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Ssimulacra2CudaStages,
                         ::testing::Values(FixtureCase{"n576", 0, 0}, FixtureCase{"n576", 31, 1},
                                           FixtureCase{"odd853", 7, 2}, FixtureCase{"hbd720", 3, 0},
                                           FixtureCase{"band1080", 5, 3},
                                           FixtureCase{"uhd4k", 2, 0}),
                         [](const ::testing::TestParamInfo<FixtureCase>& info) {
                           return fmt::format("{}_frame{}", info.param.pair, info.param.frame);
                         });

// A picture whose three planes are each one value (flat: every blur is the constant's walk).
Picture flat_picture(const PictureFormat& f, int y, int u, int v) {
  Picture p(f);
  const int values[3] = {y, u, v};
  for (unsigned plane = 0; plane < 3; ++plane) {
    const size_t count = size_t{f.plane_width(plane)} * f.plane_height(plane);
    for (size_t i = 0; i < count; ++i) {
      if (f.bit_depth > 8)
        p.plane<uint16_t>(plane)[i] = uint16_t(values[plane] << (f.bit_depth - 8));
      else
        p.plane<uint8_t>(plane)[i] = uint8_t(values[plane]);
    }
  }
  return p;
}

// Edge sizes: one scale by the stop rule (8..15), odd sizes, widths below one 32-column chunk and
// of 2^n + 1, tall planes of many chunks, 8 to 16 bits, every chroma layout.
struct EdgeSize {
  uint32_t w, h;
  ChromaSubsampling s;
  uint8_t bpc;
};
constexpr EdgeSize kEdgeSizes[] = {
    {8, 8, ChromaSubsampling::k444, 8},     {15, 9, ChromaSubsampling::k420, 8},
    {33, 17, ChromaSubsampling::k422, 10},  {65, 40, ChromaSubsampling::k420, 16},
    {129, 31, ChromaSubsampling::k444, 12}, {231, 227, ChromaSubsampling::k420, 8},
    {64, 96, ChromaSubsampling::k420, 8},   {100, 517, ChromaSubsampling::k420, 8},
    {68, 1000, ChromaSubsampling::k444, 10}};

// The kernels against the CPU stage by stage, both edge modes, on the edge sizes, two fixture
// frames and flat planes (every blur the constant's walk). n576 takes the float4 horizontal
// stores at scales 0-4, odd853 and the odd widths the scalar ones.
TEST(Ssimulacra2CudaSynthetic, EdgeInputsStagesBitIdentical) {
  VQX_REQUIRE_CUDA();
  std::vector<std::pair<std::string, std::pair<Picture, Picture>>> inputs;
  for (const auto& [pair, frame] : {std::pair<const char*, uint64_t>{"n576", 3}, {"odd853", 5}}) {
    VQX_REQUIRE_FIXTURE(pair, dir);
    inputs.emplace_back(fmt::format("{} frame {}", pair, frame), fixture_frame(dir, frame));
  }
  for (const EdgeSize& z : kEdgeSizes) {
    const PictureFormat f = make_format(z.w, z.h, z.s, z.bpc);
    inputs.emplace_back(f.describe(),
                        std::make_pair(make_picture(f, 11, 0), make_picture(f, 11, 9)));
  }
  {
    const PictureFormat f = make_format(67, 45, ChromaSubsampling::k420, 8);
    inputs.emplace_back("flat 67x45", std::make_pair(flat_picture(f, 100, 128, 128),
                                                     flat_picture(f, 101, 120, 140)));
    const PictureFormat g = make_format(40, 36, ChromaSubsampling::k444, 12);
    inputs.emplace_back(
        "flat identical 40x36 12-bit",
        std::make_pair(flat_picture(g, 16, 128, 128), flat_picture(g, 16, 128, 128)));
  }
  const YuvMatrix m = make_yuv_matrix(0);
  for (const auto& [label, frames] : inputs)
    for (const EdgeDifference mode : {EdgeDifference::kFloatGroupsOf8, EdgeDifference::kDouble}) {
      if (mode == EdgeDifference::kDouble && label.find("frame") != std::string::npos) continue;
      expect_stages_match(frames.first, frames.second, &m, mode, kNumScales,
                          label + (mode == EdgeDifference::kDouble ? " f64 edges" : " f32 edges"));
    }
}

// The terms' inlined f64 division (div_rn_fast, with __ddiv_rn where its fast path does not
// apply) against __ddiv_rn, bit for bit, on 2 x 2^27 operand pairs of both kinds the terms divide.
TEST(Ssimulacra2CudaArithmetic, FastDivisionMatchesDdivRn) {
  VQX_REQUIRE_CUDA();
  const uint64_t count = uint64_t{1} << 27;
  const uint64_t bad = ssimulacra2::cuda::division_mismatches(count, 12345);
  EXPECT_EQ(bad, 0u);
  std::printf("division: %llu pairs x 2 kinds, %llu differ from __ddiv_rn\n",
              (unsigned long long)count, (unsigned long long)bad);
}

// The XYB kernel's cube root (both divisions as __fdiv_rn's inlined fast path where the input is
// in range, cbrt_approx elsewhere) against cbrt_approx on every one of the 2^32 f32 bit patterns,
// and its EOTF (srgb_eotf01) against srgb_eotf on clamp01 of every pattern: their whole domains,
// so the XYB kernel gives the same bits for any pixel.
TEST(Ssimulacra2CudaArithmetic, FastCbrtMatchesOnAllFloats) {
  VQX_REQUIRE_CUDA();
  uint64_t eotf_bad = 1;
  const uint64_t bad = ssimulacra2::cuda::cbrt_mismatches(&eotf_bad);
  EXPECT_EQ(bad, 0u);
  EXPECT_EQ(eotf_bad, 0u);
  std::printf("cbrt: 2^32 inputs, %llu differ from cbrt_approx; eotf: %llu differ from srgb_eotf\n",
              (unsigned long long)bad, (unsigned long long)eotf_bad);
}

// The spec's vectors use the fork's scalar (f64) edge path: planes bit-identical in that mode too,
// and the device score within 1e-10 of the reference's.
TEST(Ssimulacra2CudaSynthetic, SpecVectorsStagesAndScores) {
  VQX_REQUIRE_CUDA();
  for (const Ssimulacra2Vector& v : kSsimulacra2SpecVectors) {
    auto [ref, dis] = ssimulacra2_spec_pair(v.w, v.h, v.bpc, v.layout);
    const YuvMatrix m = make_yuv_matrix(v.yuv_matrix);
    const std::string label =
        fmt::format("spec {}x{} {}-bit {}", v.w, v.h, v.bpc, to_string(v.layout));
    expect_stages_match(ref, dis, &m, EdgeDifference::kDouble, kNumScales, label + " f64 edges");
    expect_stages_match(ref, dis, &m, EdgeDifference::kFloatGroupsOf8, kNumScales, label);
    const StageFrame gpu = run_stages(ref, dis, &m, EdgeDifference::kDouble);
    EXPECT_LE(std::fabs(gpu.score - v.score), 1e-10)
        << fmt::format("{}: spec {:.17g}, cuda {:.17g}", label, v.score, gpu.score);
  }
}

// R'G'B' input (image mode, section 13): no matrix, the same kernels after the linearisation.
TEST(Ssimulacra2CudaSynthetic, RgbStagesBitIdentical) {
  VQX_REQUIRE_CUDA();
  PictureFormat rgb = make_format(70, 45, ChromaSubsampling::k444, 8);
  rgb.color = ColorModel::kRGB;
  Picture ref = make_picture(rgb, 5, 0), dis = make_picture(rgb, 5, 12);
  expect_stages_match(ref, dis, nullptr, EdgeDifference::kFloatGroupsOf8, kNumScales, "RGB 70x45");
}

// Below 8x8 no scale is processed: exactly 100, as on the CPU.
TEST(Ssimulacra2CudaSynthetic, TinyAndIdentical) {
  VQX_REQUIRE_CUDA();
  PictureFormat tiny = make_format(4, 4, ChromaSubsampling::k420, 8);
  auto t = run_on_pictures(make_pictures(tiny, {1}), make_pictures(tiny, {2}), {"ssimulacra2"},
                           cuda_settings());
  EXPECT_EQ(column(*t, "ssimulacra2").at(0), 100.0);
  PictureFormat f = make_format(96, 64, ChromaSubsampling::k420, 8);
  auto same = run_on_pictures(make_pictures(f, {3, 4}), make_pictures(f, {3, 4}), {"ssimulacra2"},
                              cuda_settings());
  for (double v : column(*same, "ssimulacra2")) EXPECT_EQ(v, 100.0);
}

// The kernels index a blocked plane with 32 bits: a picture whose padded planes would hold 2^32
// samples or more is refused with a message before anything is allocated (the readers' frame
// limit keeps every picture they read below that size).
TEST(Ssimulacra2CudaSynthetic, RefusesPlanesBeyond32BitIndices) {
  VQX_REQUIRE_CUDA();
  vqx::cuda::DeviceContext device(0);
  const YuvMatrix m = make_yuv_matrix(0);
  const PictureFormat fits = make_format(65472, 65504, ChromaSubsampling::k420, 8);
  EXPECT_LE(ssimulacra2::cuda::blocked_plane(fits.width, fits.height).floats, UINT32_MAX);
  const PictureFormat wide = make_format(65500, 65505, ChromaSubsampling::k420, 8);
  ssimulacra2::cuda::FramePipeline pipeline;
  try {
    pipeline.init(wide, &m, EdgeDifference::kFloatGroupsOf8, device);
    ADD_FAILURE() << "no error for " << wide.describe();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("too large for the CUDA path"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(device.bytes_in_use(), 0u);
}

// Same bits on every run (15.3): 100 runs of the first 8 frames of n576, and each within 1e-10
// of the CPU.
TEST(Ssimulacra2CudaDeterminism, HundredRunsSameBits) {
  VQX_REQUIRE_CUDA();
  VQX_REQUIRE_FIXTURE("n576", dir);
  RunSettings cpu_s = cpu_settings(), gpu_s = cuda_settings();
  cpu_s.frame_cnt = gpu_s.frame_cnt = 8;
  const std::vector<double> cpu =
      column(*run_on_pair("n576", {"ssimulacra2"}, cpu_s), "ssimulacra2");
  const std::vector<double> first =
      column(*run_on_pair("n576", {"ssimulacra2"}, gpu_s), "ssimulacra2");
  ASSERT_EQ(first.size(), 8u);
  double max_diff = 0.0;
  for (size_t i = 0; i < first.size(); ++i)
    max_diff = std::max(max_diff, std::fabs(first[i] - cpu[i]));
  EXPECT_LE(max_diff, 1e-10);
  size_t different_runs = 0;
  for (int run = 1; run < 100; ++run) {
    const std::vector<double> again =
        column(*run_on_pair("n576", {"ssimulacra2"}, gpu_s), "ssimulacra2");
    bool same = again.size() == first.size();
    for (size_t i = 0; same && i < first.size(); ++i) same = same_bits(again[i], first[i]);
    different_runs += same ? 0 : 1;
  }
  EXPECT_EQ(different_runs, 0u);
  std::printf("determinism: 100 runs x 8 frames, %zu runs differ; max |cuda - cpu| %.3g\n",
              different_runs, max_diff);
}

// The scale schedules change where and when the scales run, never a bit: each frame under the
// metric's budget (concurrent at these sizes), under budgets that force the chain and the
// sequential schedules, as the engine runs it (a captured graph, replayed), gives the same sums
// and score. n576's chain runs scales 2.. in scale 1's planes, odd853's splits them onto streams
// of their own (its scale 2 fits in level 1's linear planes).
TEST(Ssimulacra2CudaDeterminism, SchedulesSameBits) {
  VQX_REQUIRE_CUDA();
  using ssimulacra2::cuda::Schedule;
  using ssimulacra2::cuda::ScheduleBudget;
  const YuvMatrix m = make_yuv_matrix(0);
  ScheduleBudget chain, sequential;
  chain.concurrent_bytes = 0;
  sequential.concurrent_bytes = sequential.chain_bytes = 0;
  bool split_seen = false, unsplit_seen = false;
  for (const char* pair : {"n576", "odd853"}) {
    VQX_REQUIRE_FIXTURE(pair, dir);
    for (uint64_t frame : {0, 3, 5}) {
      auto [ref, dis] = fixture_frame(dir, frame);
      const auto base = ssimulacra2::cuda::run_frame(ref, dis, &m, EdgeDifference::kFloatGroupsOf8,
                                                     ScheduleBudget{});
      EXPECT_EQ(base.schedule, Schedule::kConcurrent) << pair;
      for (const auto& [name, budget, expected] :
           {std::tuple{"chain", chain, Schedule::kChain},
            std::tuple{"sequential", sequential, Schedule::kSequential}}) {
        const auto other =
            ssimulacra2::cuda::run_frame(ref, dis, &m, EdgeDifference::kFloatGroupsOf8, budget);
        const std::string at = fmt::format("{} frame {} {}", pair, frame, name);
        EXPECT_EQ(other.schedule, expected) << at;
        if (other.schedule == Schedule::kChain)
          (other.chain_split ? split_seen : unsplit_seen) = true;
        EXPECT_TRUE(same_bits(other.score, base.score))
            << fmt::format("{}: {:.17g} vs {:.17g}", at, other.score, base.score);
        ASSERT_EQ(other.sums.scales, base.sums.scales) << at;
        for (int s = 0; s < base.sums.scales; ++s)
          for (int c = 0; c < 3; ++c) {
            const ChannelSums& x = base.sums.sums[size_t(s)][size_t(c)];
            const ChannelSums& y = other.sums.sums[size_t(s)][size_t(c)];
            EXPECT_TRUE(same_bits(x.s1, y.s1) && same_bits(x.s4, y.s4) && same_bits(x.a1, y.a1) &&
                        same_bits(x.a4, y.a4) && same_bits(x.d1, y.d1) && same_bits(x.d4, y.d4))
                << at << " sums scale " << s << " channel " << c;
          }
      }
    }
  }
  EXPECT_TRUE(split_seen);
  EXPECT_TRUE(unsplit_seen);
}

}  // namespace
}  // namespace vqx::test
