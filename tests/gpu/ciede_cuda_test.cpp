// The CUDA twin of ciede (src/metrics/ciede/cuda) against the CPU path. The device stage on seeded
// random, near-equal, extreme and blue pictures of every chroma layout, 8 to 16 bits and edge
// sizes: every position it decides has the CPU's dE00 bits (ciede::difference_at, glibc), the
// undecided ones hold 0 and their count matches the mask, and they stay rare. The metric end to
// end, with the host computing the undecided positions, equals the CPU run, also on pictures made
// of undecided colour pairs only. Fixture parity: cuda_parity_test.
#include <fmt/format.h>

#include <bit>
#include <cstring>
#include <random>

#include "engine/cuda/cuda_check.h"
#include "engine/cuda/device_context.h"
#include "gpu/gpu_support.h"
#include "metrics/ciede/ciede_math.h"
#include "metrics/ciede/cuda/ciede_kernels.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

using cuda::check;

enum class Content { kRandom, kNearEqual, kExtreme, kBlue };

void set_sample(Picture& p, unsigned plane, size_t i, uint32_t v) {
  if (p.format().bytes_per_sample() == 1)
    p.plane<uint8_t>(plane)[i] = uint8_t(v);
  else
    p.plane<uint16_t>(plane)[i] = uint16_t(v);
}

// Blue content keeps R_T (and with it powf's ambiguous f32 result) in play: Cb well above
// neutral, Cr slightly below, small differences.
std::pair<Picture, Picture> make_pair(const PictureFormat& f, Content content, uint32_t seed) {
  std::mt19937 rng(seed);
  const uint32_t max = (1u << f.bit_depth) - 1, unit = 1u << (f.bit_depth - 8);
  Picture ref(f), dis(f);
  for (unsigned p = 0; p < 3; ++p) {
    const size_t n = size_t(f.plane_width(p)) * f.plane_height(p);
    for (size_t i = 0; i < n; ++i) {
      uint32_t a = rng() % (max + 1), b = rng() % (max + 1);
      if (content == Content::kNearEqual) b = rng() % 3 == 0 ? a : std::min<uint32_t>(max, a + rng() % 4);
      if (content == Content::kExtreme) {
        a = (rng() & 1) ? max : 0;
        b = (rng() % 4 == 0) ? a : max - a;
      }
      if (content == Content::kBlue) {
        const uint32_t centre = p == 0 ? 60 + rng() % 120 : p == 1 ? 150 + rng() % 60 : 100 + rng() % 28;
        a = centre * unit + rng() % unit;
        b = std::min<uint32_t>(max, a + (rng() % 3) * unit);
      }
      set_sample(ref, p, i, a);
      set_sample(dis, p, i, b);
    }
  }
  return {std::move(ref), std::move(dis)};
}

Picture copy_of(const Picture& p) {
  Picture c(p.format());
  std::memcpy(c.bytes(), p.bytes(), p.size_bytes());
  return c;
}

std::vector<Picture> one(const Picture& p) {
  std::vector<Picture> v;
  v.push_back(copy_of(p));
  return v;
}

struct StageResult {
  std::vector<float> values;
  std::vector<uint32_t> mask;
  uint32_t count = 0;
  size_t open() const {
    size_t n = 0;
    for (uint32_t w : mask) n += size_t(std::popcount(w));
    return n;
  }
};

StageResult run_stage(const Picture& ref, const Picture& dis) {
  const PictureFormat& f = ref.format();
  cuda::DeviceContext context{0};
  cuda::Stream stream;
  const auto layout = ciede::cuda::make_pixel_layout(f);
  const size_t bytes = f.frame_bytes();
  cuda::DeviceBuffer frames(context, 2 * bytes, "test frames");
  cuda::DeviceBuffer values(context, layout.pixels() * 4, "test values");
  cuda::DeviceBuffer mask(context, layout.mask_words() * 4, "test mask");
  cuda::DeviceBuffer count(context, 4, "test count");
  check(cudaMemcpy(frames.get(), ref.bytes(), bytes, cudaMemcpyHostToDevice), "upload");
  check(cudaMemcpy(frames.get<uint8_t>() + bytes, dis.bytes(), bytes, cudaMemcpyHostToDevice),
        "upload");
  check(cudaMemset(values.get(), 0xff, layout.pixels() * 4), "fill");  // NaN: all are written
  check(cudaMemset(mask.get(), 0xff, layout.mask_words() * 4), "fill");
  check(cudaDeviceSynchronize(), "settle");  // legacy-stream copies before the test's stream
  ciede::cuda::launch_differences(layout, frames.get<uint8_t>(), frames.get<uint8_t>() + bytes,
                                  values.get<float>(), mask.get<uint32_t>(),
                                  count.get<uint32_t>(), stream.get());
  check(cudaStreamSynchronize(stream.get()), "sync");
  StageResult r;
  r.values.resize(layout.pixels());
  r.mask.resize(layout.mask_words());
  check(cudaMemcpy(r.values.data(), values.get(), r.values.size() * 4, cudaMemcpyDeviceToHost),
        "download");
  check(cudaMemcpy(r.mask.data(), mask.get(), r.mask.size() * 4, cudaMemcpyDeviceToHost),
        "download");
  check(cudaMemcpy(&r.count, count.get(), 4, cudaMemcpyDeviceToHost), "download");
  return r;
}

// Checks every position; returns the undecided ones.
std::vector<uint64_t> expect_stage_matches_cpu(const Picture& ref, const Picture& dis,
                                               const std::string& label) {
  const StageResult r = run_stage(ref, dis);
  const uint64_t n = uint64_t(ref.format().width) * ref.format().height;
  std::vector<uint64_t> open;
  size_t failures = 0;
  for (uint64_t p = 0; p < n; ++p) {
    const bool undecided = (r.mask[p / 32] >> (p % 32)) & 1;
    const float expected =
        undecided ? 0.0f : ciede::difference_at(ref.bytes(), dis.bytes(), ref.format(), p);
    if (undecided) open.push_back(p);
    if (std::bit_cast<uint32_t>(r.values[p]) != std::bit_cast<uint32_t>(expected) &&
        failures++ < 5)
      ADD_FAILURE() << fmt::format("{} position {}: cuda {:.9g}, cpu {:.9g}{}", label, p,
                                   r.values[p], expected, undecided ? " (undecided)" : "");
  }
  for (uint64_t w = 0; w < r.mask.size(); ++w)
    for (uint64_t bit = 0; bit < 32; ++bit)
      if (w * 32 + bit >= n) {
        EXPECT_EQ((r.mask[w] >> bit) & 1, 0u) << label << " past the end";
      }
  EXPECT_EQ(r.count, r.open()) << label;
  return open;
}

TEST(CiedeCuda, EveryDecidedPositionHasTheCpusBits) {
  VQX_REQUIRE_CUDA();
  const std::pair<uint32_t, uint32_t> sizes[] = {{1, 1}, {7, 3}, {33, 17}, {64, 64}, {97, 31}};
  size_t positions = 0, open = 0;
  uint32_t seed = 1;
  for (uint8_t depth : {uint8_t(8), uint8_t(10), uint8_t(12), uint8_t(16)})
    for (auto s : {ChromaSubsampling::k420, ChromaSubsampling::k422, ChromaSubsampling::k444})
      for (auto [w, h] : sizes)
        for (Content c : {Content::kRandom, Content::kNearEqual, Content::kExtreme, Content::kBlue}) {
          const PictureFormat f = make_format(w, h, s, depth);
          const auto [ref, dis] = make_pair(f, c, seed++);
          const std::string label = fmt::format("{} content {}", f.describe(), int(c));
          open += expect_stage_matches_cpu(ref, dis, label).size();
          positions += size_t(w) * h;
        }
  std::printf("ciede stage: %zu of %zu positions undecided\n", open, positions);
  EXPECT_LT(open * 50, positions) << "the bounds decide too little";
}

// Pictures whose every position holds one colour pair the device leaves undecided: the host
// computes all of them (on its thread pool, past the metric's threshold) in the right places.
TEST(CiedeCuda, UndecidedPositionsAreComputedOnTheHost) {
  VQX_REQUIRE_CUDA();
  const PictureFormat probe = make_format(256, 256, ChromaSubsampling::k444, 8);
  const auto [ref, dis] = make_pair(probe, Content::kBlue, 99);
  const std::vector<uint64_t> open = expect_stage_matches_cpu(ref, dis, "blue probe");
  ASSERT_FALSE(open.empty()) << "no undecided colour pair in the probe";
  std::printf("blue probe: %zu of %u positions undecided\n", open.size(), 256u * 256u);

  for (size_t pick : {size_t(0), open.size() / 2, open.size() - 1}) {
    const uint64_t p = open[pick];
    for (auto [w, h] : {std::pair<uint32_t, uint32_t>{9, 5}, {160, 120}}) {
      const PictureFormat f = make_format(w, h, ChromaSubsampling::k444, 8);
      Picture flat_ref(f), flat_dis(f);
      for (unsigned plane = 0; plane < 3; ++plane)
        for (size_t i = 0; i < size_t(w) * h; ++i) {
          // Every other position keeps a decided pair, so values and host results interleave.
          const uint64_t source = (i % 2 == 0) ? p : 0;
          set_sample(flat_ref, plane, i, ref.plane<uint8_t>(plane)[source]);
          set_sample(flat_dis, plane, i, dis.plane<uint8_t>(plane)[source]);
        }
      const std::string label = fmt::format("pair {} on {}x{}", p, w, h);
      expect_stage_matches_cpu(flat_ref, flat_dis, label);
      const std::vector<Picture> r1 = one(flat_ref), d1 = one(flat_dis);
      const auto cpu = run_on_pictures(r1, d1, {"ciede"}, cpu_settings());
      const auto gpu = run_on_pictures(r1, d1, {"ciede"}, cuda_settings());
      ASSERT_EQ(gpu->backend, "cuda");
      const double a = *cpu->table.get(0, 0), b = *gpu->table.get(0, 0);
      EXPECT_TRUE(same_bits(a, b)) << fmt::format("{}: cpu {:.17g} cuda {:.17g}", label, a, b);
    }
  }
}

TEST(CiedeCuda, TheMetricEqualsTheCpuOnSyntheticClips) {
  VQX_REQUIRE_CUDA();
  uint32_t seed = 300;
  for (uint8_t depth : {uint8_t(8), uint8_t(10), uint8_t(16)})
    for (auto s : {ChromaSubsampling::k420, ChromaSubsampling::k422, ChromaSubsampling::k444})
      for (Content c : {Content::kNearEqual, Content::kBlue}) {
        const PictureFormat f = make_format(75, 41, s, depth);
        std::vector<Picture> refs, diss;
        for (int i = 0; i < 3; ++i) {
          auto [r, d] = make_pair(f, c, seed++);
          refs.push_back(std::move(r));
          diss.push_back(std::move(d));
        }
        refs.push_back(copy_of(refs[0]));  // identical pictures: +inf, as the CPU
        diss.push_back(copy_of(refs[0]));
        const auto cpu = run_on_pictures(refs, diss, {"ciede"}, cpu_settings());
        const auto gpu = run_on_pictures(refs, diss, {"ciede"}, cuda_settings());
        for (uint64_t frame = 0; frame < 4; ++frame) {
          const double a = *cpu->table.get(frame, 0), b = *gpu->table.get(frame, 0);
          EXPECT_TRUE(same_bits(a, b)) << fmt::format("{} content {} frame {}: cpu {:.17g} cuda "
                                                      "{:.17g}", f.describe(), int(c), frame, a, b);
        }
      }
}

}  // namespace
}  // namespace vqx::test
