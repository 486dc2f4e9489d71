// The CUDA twin of ssimulacra2 against the CPU (shared/spec/ssimulacra2.md 15.3):
//  - every intermediate plane (linear RGB, XYB, products, the 15 horizontal and 15 full blurs,
//    the d/art/det terms) read back from the device and compared bit for bit with the CPU's plain
//    stage functions, at one scale and at all scales, on fixture frames and synthetic pictures;
//  - the device's tree sums against the CPU's sequential sums, and the score within 1e-10;
//  - the same bits on 100 repeated runs;
//  - section 16's synthetic vectors (f64 edge mode) within 1e-10 of the spec's scores.
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <cstring>

#include "gpu/gpu_support.h"
#include "io/readers.h"
#include "metrics/ssimulacra2/cuda/ssimulacra2_cuda.h"
#include "metrics/ssimulacra2/ssimulacra2_core.h"
#include "metrics/ssimulacra2/ssimulacra2_kernels.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

using namespace vqx::ssimulacra2;
using ssimulacra2::cuda::DebugFrame;
using ssimulacra2::cuda::DebugScale;
using ssimulacra2::cuda::run_debug_frame;

// The CPU's stages written out plainly, plane by plane, with the plain twins of ssimulacra2_core.h
// (not the optimised kernels; the sums by the metric's), in the DebugScale layout.
struct CpuStages {
  std::vector<DebugScale> scales;
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
    if (matrix) yuv_to_linear_rgb(*pictures[image], *matrix, planes, 0, ch);
    else rgb_to_linear_rgb(*pictures[image], planes, 0, ch);
  }
  for (int s = 0; s < kNumScales && s < max_scales; ++s) {
    if (cw < kMinScaleSize || ch < kMinScaleSize) break;
    const size_t n = size_t{cw} * ch;
    DebugScale d;
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
      downsample_2x2(linear.data() + size_t(p) * n, cw, ch, next.data() + size_t(p) * nw * nh, 0, nh);
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
void expect_same_planes(const std::vector<T>& cpu, const std::vector<T>& gpu, uint32_t w, uint32_t h,
                        const std::string& what) {
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
  ADD_FAILURE() << fmt::format("{}: {} values differ; first in plane {} at (x {}, y {}): cpu {}, cuda {}",
                               what, differing, plane, pixel % w, pixel / w, bits_of(cpu[first]),
                               bits_of(gpu[first]));
}

// Runs both and compares every stage of every scale, the sums and the score.
void expect_stages_match(const Picture& ref, const Picture& dis, const YuvMatrix* matrix,
                         EdgeDifference mode, int max_scales, const std::string& label) {
  const CpuStages cpu = cpu_stages(ref, dis, matrix, mode, max_scales);
  // Device rounds may point the stage tests at a kept variant instead of the default kernels:
  // VQX_SS2_TEST_XYB=plain (the XYB kernel before session 14), VQX_SS2_TEST_VPIPE=0 (the vertical
  // pass + terms before session 15), VQX_SS2_TEST_ROWMAJOR=1 (the row-major XYB planes, poles2).
  ssimulacra2::cuda::PipelineOptions variant;
  if (const char* x = std::getenv("VQX_SS2_TEST_XYB")) variant.fast_xyb = std::string(x) == "fast";
  if (const char* vp = std::getenv("VQX_SS2_TEST_VPIPE")) variant.vblur_pipe = std::atoi(vp) != 0;
  if (const char* rm = std::getenv("VQX_SS2_TEST_ROWMAJOR")) variant.transposed_xyb = std::atoi(rm) == 0;
  const DebugFrame gpu = run_debug_frame(ref, dis, matrix, mode, max_scales, variant);
  ASSERT_EQ(cpu.scales.size(), gpu.scales.size()) << label;
  ASSERT_EQ(cpu.sums.scales, gpu.sums.scales) << label;
  for (size_t s = 0; s < cpu.scales.size(); ++s) {
    const DebugScale& a = cpu.scales[s];
    const DebugScale& b = gpu.scales[s];
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
  std::printf("stages %-40s %zu scales bit-identical; sums max rel diff %.3g; score cpu %.17g cuda %.17g |d| %.3g\n",
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
                                           FixtureCase{"band1080", 5, 3}, FixtureCase{"uhd4k", 2, 0}),
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
      if (f.bit_depth > 8) p.plane<uint16_t>(plane)[i] = uint16_t(values[plane] << (f.bit_depth - 8));
      else p.plane<uint8_t>(plane)[i] = uint8_t(values[plane]);
    }
  }
  return p;
}

// The kernel variants kept beside the default (the row-major XYB planes with the poles2
// horizontal kernel, the horizontal pass without float4, the plain and the session-14 XYB kernels,
// the vertical kernels before session 15: plain terms, 80 registers, fast terms one, two or four
// at a time) give the same planes, sums and score bit for bit as the plainest of them (row-major
// planes, plain XYB, plain terms), and so does the default (itself checked against the CPU
// above), on fixture frames and synthetic pictures: odd sizes, widths below one tile and of
// 2^n + 1, flat planes, 8 to 16 bits, both edge modes. n576 takes the float4 horizontal loads at
// scales 0-4, odd853 and the odd sizes the scalar ones.
TEST(Ssimulacra2CudaVariants, KernelVariantsSameBits) {
  VQX_REQUIRE_CUDA();
  std::vector<std::pair<std::string, std::pair<Picture, Picture>>> inputs;
  for (const auto& [pair, frame] : {std::pair<const char*, uint64_t>{"n576", 3}, {"odd853", 5}}) {
    VQX_REQUIRE_FIXTURE(pair, dir);
    inputs.emplace_back(fmt::format("{} frame {}", pair, frame), fixture_frame(dir, frame));
  }
  const struct {
    uint32_t w, h;
    ChromaSubsampling s;
    uint8_t bpc;
  } sizes[] = {{8, 8, ChromaSubsampling::k444, 8},     {15, 9, ChromaSubsampling::k420, 8},
               {33, 17, ChromaSubsampling::k422, 10},  {65, 40, ChromaSubsampling::k420, 16},
               {129, 31, ChromaSubsampling::k444, 12}, {231, 227, ChromaSubsampling::k420, 8},
               {64, 96, ChromaSubsampling::k420, 8}};
  for (const auto& z : sizes) {
    const PictureFormat f = make_format(z.w, z.h, z.s, z.bpc);
    inputs.emplace_back(f.describe(), std::make_pair(make_picture(f, 11, 0), make_picture(f, 11, 9)));
  }
  {
    const PictureFormat f = make_format(67, 45, ChromaSubsampling::k420, 8);
    inputs.emplace_back("flat 67x45", std::make_pair(flat_picture(f, 100, 128, 128),
                                                     flat_picture(f, 101, 120, 140)));
    const PictureFormat g = make_format(40, 36, ChromaSubsampling::k444, 12);
    inputs.emplace_back("flat identical 40x36 12-bit", std::make_pair(flat_picture(g, 16, 128, 128),
                                                                      flat_picture(g, 16, 128, 128)));
  }
  const YuvMatrix m = make_yuv_matrix(0);
  struct Variant {
    const char* name;
    bool row_major = false;    // the row-major XYB planes and poles2 (not the transposed ones)
    bool scalar_rows = false;  // the horizontal pass without float4
    bool fast_xyb = true;      // false: the XYB kernel before session 14
    bool fast_terms = true;    // false: the terms kernel before session 13
    bool low_regs = false;     // that kernel (or the fast one, fast4) at 80 / 96 registers
    int terms_batch = 4;       // fast terms two at a time (fast2)
    bool pipe = true;          // the pipelined vertical pass + terms (leanp, the default)
    ssimulacra2::cuda::PipelineOptions options() const {
      ssimulacra2::cuda::PipelineOptions o;
      o.transposed_xyb = !row_major;
      o.scalar_rows = scalar_rows;
      o.fast_xyb = fast_xyb;
      o.fast_terms = fast_terms;
      o.vblur_low_regs = low_regs;
      o.terms_batch = terms_batch;
      o.vblur_pipe = pipe;
      return o;
    }
  };
  const Variant before{"row-major, plain XYB, plain terms", true, false, false, false, false, 4, false};
  const Variant variants[] = {
      {"default (transposed XYB, blur_rows_t, leanp)"},
      {"default, scalar rows", false, true},
      {"transposed XYB, fast terms (session 14)", false, false, true, true, false, 4, false},
      {"row-major, leanp", true},
      {"row-major, scalar rows, leanp", true, true},
      {"row-major, fast terms", true, false, true, true, false, 4, false},
      {"row-major, plain terms", true, false, true, false, false, 4, false},
      {"plain terms at 80 registers (regs80)", true, false, true, false, true, 4, false},
      {"fast terms two at a time (fast2)", true, false, true, true, false, 2, false},
      {"fast terms at 96 registers (fast4)", true, false, true, true, true, 4, false},
      {"plain XYB, leanp", true, false, false}};
  for (const auto& [label, frames] : inputs) {
   for (const EdgeDifference mode : {EdgeDifference::kFloatGroupsOf8, EdgeDifference::kDouble}) {
    if (mode == EdgeDifference::kDouble && label.find("frame") != std::string::npos) continue;
    const DebugFrame base =
        run_debug_frame(frames.first, frames.second, &m, mode, kNumScales, before.options());
    for (const Variant& v : variants) {
      const DebugFrame other =
          run_debug_frame(frames.first, frames.second, &m, mode, kNumScales, v.options());
      const std::string at = fmt::format("{} {}: {}", label,
                                         mode == EdgeDifference::kDouble ? "f64 edges" : "f32 edges",
                                         v.name);
      ASSERT_EQ(base.scales.size(), other.scales.size()) << at;
      for (size_t s = 0; s < base.scales.size(); ++s) {
        const DebugScale& a = base.scales[s];
        const DebugScale& b = other.scales[s];
        const std::string sc = fmt::format("{} scale {}", at, s);
        expect_same_planes(a.linear, b.linear, a.width, a.height, sc + " linear RGB");
        expect_same_planes(a.xyb, b.xyb, a.width, a.height, sc + " XYB");
        expect_same_planes(a.products, b.products, a.width, a.height, sc + " products");
        expect_same_planes(a.hblur, b.hblur, a.width, a.height, sc + " horizontal blur");
        expect_same_planes(a.vblur, b.vblur, a.width, a.height, sc + " blur");
        expect_same_planes(a.terms, b.terms, a.width, a.height, sc + " terms");
      }
      EXPECT_TRUE(same_bits(base.score, other.score)) << at;
      for (int s = 0; s < base.sums.scales; ++s)
        for (int c = 0; c < 3; ++c) {
          const ChannelSums& x = base.sums.sums[size_t(s)][size_t(c)];
          const ChannelSums& y = other.sums.sums[size_t(s)][size_t(c)];
          EXPECT_TRUE(same_bits(x.s1, y.s1) && same_bits(x.s4, y.s4) && same_bits(x.a1, y.a1) &&
                      same_bits(x.a4, y.a4) && same_bits(x.d1, y.d1) && same_bits(x.d4, y.d4))
              << at << " sums scale " << s << " channel " << c;
        }
      std::printf("variants %s: same bits\n", at.c_str());
    }
   }
  }
}

// The strip schedule (session 14: each scale's horizontal pass in strips of R rows into a ring of
// depth * R + 32 rows, the vertical pass + terms strip by strip with each column's state carried
// between launches) gives the full-frame schedule's planes, sums and score bit for bit: every
// scale in strips (strip_min_height 0), R from 32 to 256, depths 1 to 3, on n576, odd853 and
// synthetic sizes (heights not multiples of R or 32, heights below R, tiny planes, one tall
// plane of many strips), both edge modes. With full planes (the debug default) every plane is
// compared; with the ring (strip_debug_ring), which really wraps here, the horizontal-pass
// planes are not read back and the rest is compared.
TEST(Ssimulacra2CudaStrips, StripScheduleSameBits) {
  VQX_REQUIRE_CUDA();
  std::vector<std::pair<std::string, std::pair<Picture, Picture>>> inputs;
  for (const auto& [pair, frame] : {std::pair<const char*, uint64_t>{"n576", 3}, {"odd853", 5}}) {
    VQX_REQUIRE_FIXTURE(pair, dir);
    inputs.emplace_back(fmt::format("{} frame {}", pair, frame), fixture_frame(dir, frame));
  }
  const struct {
    uint32_t w, h;
    ChromaSubsampling s;
    uint8_t bpc;
  } sizes[] = {{8, 8, ChromaSubsampling::k444, 8},     {33, 17, ChromaSubsampling::k422, 10},
               {65, 40, ChromaSubsampling::k420, 16},  {129, 31, ChromaSubsampling::k444, 12},
               {231, 227, ChromaSubsampling::k420, 8}, {100, 517, ChromaSubsampling::k420, 8},
               {68, 1000, ChromaSubsampling::k444, 10}};
  for (const auto& z : sizes) {
    const PictureFormat f = make_format(z.w, z.h, z.s, z.bpc);
    inputs.emplace_back(f.describe(), std::make_pair(make_picture(f, 11, 0), make_picture(f, 11, 9)));
  }
  const YuvMatrix m = make_yuv_matrix(0);
  const struct {
    int rows, depth;
    bool ring, xyb = false;  // xyb: the XYB + downsample by strips too
  } configs[] = {{32, 1, false}, {64, 2, false}, {128, 1, false}, {256, 3, false},
                 {32, 3, true},  {64, 1, true},  {96, 2, true},   {64, 2, false, true},
                 {32, 1, true, true}};
  size_t compared = 0;
  for (const auto& [label, frames] : inputs) {
    for (const EdgeDifference mode : {EdgeDifference::kFloatGroupsOf8, EdgeDifference::kDouble}) {
      ssimulacra2::cuda::PipelineOptions full;
      full.strip_rows = 0;
      const DebugFrame base =
          run_debug_frame(frames.first, frames.second, &m, mode, kNumScales, full);
      for (const auto& cfg : configs) {
        ssimulacra2::cuda::PipelineOptions o;
        o.strip_rows = cfg.rows;
        o.strip_depth = cfg.depth;
        o.strip_min_height = 0;
        o.strip_debug_ring = cfg.ring;
        o.strip_xyb = cfg.xyb;
        const DebugFrame other = run_debug_frame(frames.first, frames.second, &m, mode, kNumScales, o);
        const std::string at = fmt::format("{} {} strips of {} rows, depth {}{}{}", label,
                                           mode == EdgeDifference::kDouble ? "f64 edges" : "f32 edges",
                                           cfg.rows, cfg.depth, cfg.ring ? ", ring" : "",
                                           cfg.xyb ? ", XYB by strips" : "");
        ASSERT_EQ(base.scales.size(), other.scales.size()) << at;
        for (size_t s = 0; s < base.scales.size(); ++s) {
          const DebugScale& a = base.scales[s];
          const DebugScale& b = other.scales[s];
          const std::string sc = fmt::format("{} scale {}", at, s);
          expect_same_planes(a.linear, b.linear, a.width, a.height, sc + " linear RGB");
          expect_same_planes(a.xyb, b.xyb, a.width, a.height, sc + " XYB");
          expect_same_planes(a.products, b.products, a.width, a.height, sc + " products");
          const bool wraps = cfg.ring && uint64_t(cfg.depth) * cfg.rows + 32 < a.height;
          if (wraps) EXPECT_TRUE(b.hblur.empty()) << sc;
          else expect_same_planes(a.hblur, b.hblur, a.width, a.height, sc + " horizontal blur");
          expect_same_planes(a.vblur, b.vblur, a.width, a.height, sc + " blur");
          expect_same_planes(a.terms, b.terms, a.width, a.height, sc + " terms");
        }
        EXPECT_TRUE(same_bits(base.score, other.score)) << at;
        for (int s = 0; s < base.sums.scales; ++s)
          for (int c = 0; c < 3; ++c) {
            const ChannelSums& x = base.sums.sums[size_t(s)][size_t(c)];
            const ChannelSums& y = other.sums.sums[size_t(s)][size_t(c)];
            EXPECT_TRUE(same_bits(x.s1, y.s1) && same_bits(x.s4, y.s4) && same_bits(x.a1, y.a1) &&
                        same_bits(x.a4, y.a4) && same_bits(x.d1, y.d1) && same_bits(x.d4, y.d4))
                << at << " sums scale " << s << " channel " << c;
          }
        ++compared;
      }
    }
  }
  std::printf("strips: %zu strip runs compared with the full-frame schedule\n", compared);
}

// The same through the engine (graph capture, frames in flight, the H streams beside the V
// stream, the ring at every strip size): the metric's scores with the strip knobs equal those of
// VQX_SS2_STRIPS=0, frame by frame, bit for bit, on n576 and odd853 with every scale in strips
// of 32 to 128 rows, depths 1 to 3, under each scale schedule, with the row-major planes
// (poles2) and with the XYB by strips.
TEST(Ssimulacra2CudaStrips, EngineStripKnobsSameBits) {
  VQX_REQUIRE_CUDA();
  for (const char* pair : {"n576", "odd853"}) {
    VQX_REQUIRE_FIXTURE(pair, dir);
    RunSettings s = cuda_settings();
    s.frame_cnt = 4;
    setenv("VQX_SS2_STRIPS", "0", 1);  // the default; said explicitly
    const std::vector<double> base = column(*run_on_pair(pair, {"ssimulacra2"}, s), "ssimulacra2");
    unsetenv("VQX_SS2_STRIPS");
    const std::vector<std::vector<std::pair<const char*, const char*>>> knobs = {
        {{"VQX_SS2_STRIPS", "1"}, {"VQX_SS2_STRIP_MIN", "0"}, {"VQX_SS2_STRIP_ROWS", "32"}, {"VQX_SS2_STRIP_DEPTH", "1"}},
        {{"VQX_SS2_STRIPS", "1"}, {"VQX_SS2_STRIP_MIN", "0"}, {"VQX_SS2_STRIP_ROWS", "64"}, {"VQX_SS2_STRIP_DEPTH", "3"}},
        {{"VQX_SS2_STRIPS", "1"}, {"VQX_SS2_STRIP_MIN", "0"}, {"VQX_SS2_STRIP_ROWS", "128"}, {"VQX_SS2_STRIP_DEPTH", "2"}},
        {{"VQX_SS2_STRIPS", "1"}, {"VQX_SS2_STRIP_MIN", "0"}, {"VQX_SS2_SCHEDULE", "chain"}, {"VQX_SS2_STRIP_ROWS", "64"}, {"VQX_SS2_STRIP_DEPTH", "2"}},
        {{"VQX_SS2_STRIPS", "1"}, {"VQX_SS2_STRIP_MIN", "0"}},
        {{"VQX_SS2_STRIPS", "1"}, {"VQX_SS2_STRIP_MIN", "0"}, {"VQX_SS2_SEQUENTIAL", "1"}, {"VQX_SS2_STRIP_ROWS", "96"}},
        {{"VQX_SS2_STRIPS", "1"}, {"VQX_SS2_STRIP_MIN", "0"}, {"VQX_SS2_HBLUR", "poles2"}, {"VQX_SS2_STRIP_ROWS", "64"}},
        {{"VQX_SS2_STRIPS", "1"}, {"VQX_SS2_STRIP_MIN", "0"}, {"VQX_SS2_STRIP_XYB", "1"}, {"VQX_SS2_STRIP_ROWS", "64"}},
        {{"VQX_SS2_STRIPS", "1"}, {"VQX_SS2_STRIP_MIN", "0"}, {"VQX_SS2_STRIP_XYB", "1"}, {"VQX_SS2_SCHEDULE", "chain"}, {"VQX_SS2_STRIP_ROWS", "32"}},
        {{"VQX_SS2_STRIPS", "1"}, {"VQX_SS2_STRIP_MIN", "0"}, {"VQX_SS2_STRIP_XYB", "1"}, {"VQX_SS2_SEQUENTIAL", "1"}, {"VQX_SS2_STRIP_ROWS", "96"}, {"VQX_SS2_STRIP_DEPTH", "3"}}};
    for (const auto& set : knobs) {
      std::string what;
      for (const auto& [k, v] : set) {
        setenv(k, v, 1);
        what += fmt::format("{}={} ", k, v);
      }
      const std::vector<double> other = column(*run_on_pair(pair, {"ssimulacra2"}, s), "ssimulacra2");
      for (const auto& [k, v] : set) unsetenv(k);
      ASSERT_EQ(other.size(), base.size());
      for (size_t i = 0; i < base.size(); ++i)
        EXPECT_TRUE(same_bits(other[i], base[i]))
            << fmt::format("{} {}frame {}: {:.17g} vs {:.17g}", pair, what, i, other[i], base[i]);
      std::printf("strips engine %s %s: %zu frames same bits\n", pair, what.c_str(), base.size());
    }
  }
}

// The terms' inlined f64 division (div_rn_fast, with __ddiv_rn where its fast path does not
// apply) against __ddiv_rn, bit for bit, on 2 x 2^27 operand pairs of both kinds the terms divide.
TEST(Ssimulacra2CudaVariants, FastDivisionMatchesDdivRn) {
  VQX_REQUIRE_CUDA();
  const uint64_t count = uint64_t{1} << 27;
  const uint64_t bad = ssimulacra2::cuda::division_mismatches(count, 12345);
  EXPECT_EQ(bad, 0u);
  std::printf("division: %llu pairs x 2 kinds, %llu differ from __ddiv_rn\n",
              (unsigned long long)count, (unsigned long long)bad);
}

// The XYB kernel's fast cube root (VQX_SS2_XYB=fast: both divisions as __fdiv_rn's inlined fast
// path where the input is in range, cbrt_approx elsewhere) against cbrt_approx on every one of
// the 2^32 f32 bit patterns, and its EOTF (srgb_eotf01) against srgb_eotf on clamp01 of every
// pattern: their whole domains, so the fast XYB gives the same bits for any pixel.
TEST(Ssimulacra2CudaVariants, FastCbrtMatchesOnAllFloats) {
  VQX_REQUIRE_CUDA();
  uint64_t eotf_bad = 1;
  const uint64_t bad = ssimulacra2::cuda::cbrt_mismatches(&eotf_bad);
  EXPECT_EQ(bad, 0u);
  EXPECT_EQ(eotf_bad, 0u);
  std::printf("cbrt: 2^32 inputs, %llu differ from cbrt_approx; eotf: %llu differ from srgb_eotf\n",
              (unsigned long long)bad, (unsigned long long)eotf_bad);
}

// Section 16's generator (the spec's synthetic pairs).
std::pair<Picture, Picture> spec_pair(uint32_t w, uint32_t h, unsigned bpc, ChromaSubsampling layout) {
  PictureFormat f;
  f.width = w;
  f.height = h;
  f.subsampling = layout;
  f.bit_depth = uint8_t(bpc);
  Picture ref(f), dis(f);
  uint32_t state = 2463534242u;
  auto rnd = [&] {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  };
  const unsigned sh = bpc - 8;
  const int maxv = (1 << bpc) - 1;
  for (unsigned p = 0; p < 3; ++p) {
    const uint32_t pw = f.plane_width(p), ph = f.plane_height(p);
    for (uint32_t y = 0; y < ph; ++y)
      for (uint32_t x = 0; x < pw; ++x) {
        int v;
        if (p == 0) v = int(((3 * x + 2 * y) + ((x ^ y) & 15)) % 200 + 24);
        else if (p == 1) v = int(128 + ((x + 2 * y) % 48)) - 24;
        else v = int(128 + ((3 * x - y + 1000) % 40)) - 20;
        const int r = v << sh;
        int d = r + (int(rnd() % 9) - 4) * (1 << sh);
        if (((x / 8) + (y / 8)) % 5 == 0) d = (d >> (sh + 3)) << (sh + 3);
        d = d < 0 ? 0 : (d > maxv ? maxv : d);
        const size_t i = size_t{y} * pw + x;
        if (bpc > 8) {
          ref.plane<uint16_t>(p)[i] = uint16_t(r);
          dis.plane<uint16_t>(p)[i] = uint16_t(d);
        } else {
          ref.plane<uint8_t>(p)[i] = uint8_t(r);
          dis.plane<uint8_t>(p)[i] = uint8_t(d);
        }
      }
  }
  return {std::move(ref), std::move(dis)};
}

struct SpecVector {
  uint32_t w, h;
  unsigned bpc;
  ChromaSubsampling layout;
  int yuv_matrix;
  double score;
};
const SpecVector kSpecVectors[] = {
    {64, 48, 8, ChromaSubsampling::k420, 0, 82.805694376199568},
    {576, 324, 8, ChromaSubsampling::k420, 0, 66.169949761083188},
    {256, 256, 10, ChromaSubsampling::k444, 1, 73.776374750799079},
    {160, 90, 8, ChromaSubsampling::k420, 0, 78.895001255803578},
    {97, 61, 8, ChromaSubsampling::k422, 2, 82.119910909950903},
    {300, 250, 12, ChromaSubsampling::k420, 3, 67.398491710799021},
};

// The spec's vectors use the fork's scalar (f64) edge path: planes bit-identical in that mode too,
// and the device score within 1e-10 of the reference's.
TEST(Ssimulacra2CudaSynthetic, SpecVectorsStagesAndScores) {
  VQX_REQUIRE_CUDA();
  for (const SpecVector& v : kSpecVectors) {
    auto [ref, dis] = spec_pair(v.w, v.h, v.bpc, v.layout);
    const YuvMatrix m = make_yuv_matrix(v.yuv_matrix);
    const std::string label = fmt::format("spec {}x{} {}-bit {}", v.w, v.h, v.bpc, to_string(v.layout));
    expect_stages_match(ref, dis, &m, EdgeDifference::kDouble, kNumScales, label + " f64 edges");
    expect_stages_match(ref, dis, &m, EdgeDifference::kFloatGroupsOf8, kNumScales, label);
    const DebugFrame gpu = run_debug_frame(ref, dis, &m, EdgeDifference::kDouble);
    EXPECT_LE(std::fabs(gpu.score - v.score), 1e-10)
        << fmt::format("{}: spec {:.17g}, cuda {:.17g}", label, v.score, gpu.score);
  }
}

// Edge sizes: one scale by the stop rule (8..15), odd sizes, a width of 2^n + 1, R'G'B' input.
TEST(Ssimulacra2CudaSynthetic, EdgeSizesAndRgb) {
  VQX_REQUIRE_CUDA();
  const YuvMatrix m = make_yuv_matrix(0);
  const struct {
    uint32_t w, h;
    ChromaSubsampling s;
    uint8_t bpc;
  } sizes[] = {{8, 8, ChromaSubsampling::k444, 8},    {15, 9, ChromaSubsampling::k420, 8},
               {33, 17, ChromaSubsampling::k422, 10}, {65, 40, ChromaSubsampling::k420, 16},
               {129, 31, ChromaSubsampling::k444, 12}, {231, 227, ChromaSubsampling::k420, 8}};
  for (const auto& z : sizes) {
    PictureFormat f = make_format(z.w, z.h, z.s, z.bpc);
    Picture ref = make_picture(f, 11, 0), dis = make_picture(f, 11, 9);
    expect_stages_match(ref, dis, &m, EdgeDifference::kFloatGroupsOf8, kNumScales,
                        fmt::format("{}", f.describe()));
  }
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

// Same bits on every run (15.3): 100 runs of the first 8 frames of n576, and each within 1e-10
// of the CPU.
TEST(Ssimulacra2CudaDeterminism, HundredRunsSameBits) {
  VQX_REQUIRE_CUDA();
  VQX_REQUIRE_FIXTURE("n576", dir);
  RunSettings cpu_s = cpu_settings(), gpu_s = cuda_settings();
  cpu_s.frame_cnt = gpu_s.frame_cnt = 8;
  const std::vector<double> cpu = column(*run_on_pair("n576", {"ssimulacra2"}, cpu_s), "ssimulacra2");
  const std::vector<double> first = column(*run_on_pair("n576", {"ssimulacra2"}, gpu_s), "ssimulacra2");
  ASSERT_EQ(first.size(), 8u);
  double max_diff = 0.0;
  for (size_t i = 0; i < first.size(); ++i) max_diff = std::max(max_diff, std::fabs(first[i] - cpu[i]));
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

// The profiling knobs (sequential scales, the horizontal pass without float4, the row-major
// planes, the kernels before sessions 14 and 15, scales 1.. chained on side streams as at 4K,
// strips) change the schedule or the kernels, never the bits; by default scales 1.. run on side
// streams at these sizes. n576 takes the float4 horizontal pass at scales 0-4,
// odd853 the scalar one.
TEST(Ssimulacra2CudaDeterminism, SchedulesSameBits) {
  VQX_REQUIRE_CUDA();
  for (const char* pair : {"n576", "odd853"}) {
    VQX_REQUIRE_FIXTURE(pair, dir);
    RunSettings s = cuda_settings();
    s.frame_cnt = 6;
    const std::vector<double> base = column(*run_on_pair(pair, {"ssimulacra2"}, s), "ssimulacra2");
    const char* knobs[][2] = {{"VQX_SS2_SEQUENTIAL", "1"},
                              {"VQX_SS2_HBLUR", "scalar"},
                              {"VQX_SS2_VBLUR", "regs80"},
                              {"VQX_SS2_HBLUR", "poles2"},
                              {"VQX_SS2_XYB", "fast"},
                              {"VQX_SS2_XYB", "plain"},
                              {"VQX_SS2_VBLUR", "fast"},
                              {"VQX_SS2_VBLUR", "fast4"},
                              {"VQX_SS2_VBLUR", "fast2"},
                              {"VQX_SS2_XYB", "split"},
                              {"VQX_SS2_VBLUR", "plain"},
                              {"VQX_SS2_SCHEDULE", "chain"},
                              {"VQX_SS2_SCHEDULE", "concurrent"},
                              {"VQX_SS2_STRIPS", "0"},
                              {"VQX_SS2_STRIPS", "1"},
                              {"VQX_SS2_VBLUR", "leanp"}};
    for (const auto& knob : knobs) {
      setenv(knob[0], knob[1], 1);
      const std::vector<double> other =
          column(*run_on_pair(pair, {"ssimulacra2"}, s), "ssimulacra2");
      unsetenv(knob[0]);
      ASSERT_EQ(other.size(), base.size());
      for (size_t i = 0; i < base.size(); ++i)
        EXPECT_TRUE(same_bits(other[i], base[i]))
            << fmt::format("{} {}={} frame {}: {:.17g} vs {:.17g}", pair, knob[0], knob[1], i,
                           other[i], base[i]);
    }
    // Session 15: bands of the transposed kernels (strips of whole planes, XYB by strips) on
    // these small pictures, and the chain schedule (its second side stream in scale 1's linear
    // planes) with the row-major planes and with the transposed ones.
    const char* pairs[][4] = {{"VQX_SS2_BANDS", "2", "VQX_SS2_STRIP_MIN", "100"},
                              {"VQX_SS2_BANDS", "3", "VQX_SS2_STRIP_MIN", "100"},
                              {"VQX_SS2_SCHEDULE", "chain", "VQX_SS2_HBLUR", "poles2"},
                              {"VQX_SS2_SCHEDULE", "chain", "VQX_SS2_CHAIN_SPLIT", "0"},
                              {"VQX_SS2_SCHEDULE", "chain", "VQX_SS2_CHAIN_SPLIT", "1"},
                              {"VQX_SS2_SCHEDULE", "chain", "VQX_SS2_CHAIN_SPLIT", "2"},
                              {"VQX_SS2_STRIPS", "1", "VQX_SS2_STRIP_MIN", "100"}};
    for (const auto& knob : pairs) {
      setenv(knob[0], knob[1], 1);
      setenv(knob[2], knob[3], 1);
      const std::vector<double> other =
          column(*run_on_pair(pair, {"ssimulacra2"}, s), "ssimulacra2");
      unsetenv(knob[0]);
      unsetenv(knob[2]);
      ASSERT_EQ(other.size(), base.size());
      for (size_t i = 0; i < base.size(); ++i)
        EXPECT_TRUE(same_bits(other[i], base[i]))
            << fmt::format("{} {}={} {}={} frame {}: {:.17g} vs {:.17g}", pair, knob[0], knob[1],
                           knob[2], knob[3], i, other[i], base[i]);
    }
  }
}

}  // namespace
}  // namespace vqx::test
