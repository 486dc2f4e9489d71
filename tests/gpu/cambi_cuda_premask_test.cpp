// The device preprocessing and spatial mask of cambi (one kernel) against the CPU stages
// (convert_to_10bit, anti_dither, spatial_mask), pixel for pixel: without resize (no index
// tables) and with downscaling (through the tables), at 8, 9, 10, 12 and 16 bits, on odd and tiny
// sizes (1-wide, 1-tall, narrower than a tile), flat planes and low-entropy content (so the
// zero-derivative flags and the mask threshold take both values). Skips without a CUDA device.
#include <fmt/format.h>

#include <algorithm>
#include <random>

#include "gpu/gpu_support.h"
#include "metrics/cambi/cambi_stages.h"
#include "metrics/cambi/cuda/stage_runner.h"

namespace vqx::test {
namespace {

struct Input {
  unsigned w = 0, h = 0;
  int bpc = 8;
  std::vector<uint8_t> bytes;  // 1 or 2 bytes per sample
};

// Levels from a few values (flat runs and steps), some noise, or one flat value.
Input make_input(unsigned w, unsigned h, int bpc, int kind, uint32_t seed) {
  std::mt19937 rng(seed);
  Input in;
  in.w = w, in.h = h, in.bpc = bpc;
  const unsigned max = (1u << bpc) - 1;
  in.bytes.resize(size_t(w) * h * (bpc > 8 ? 2 : 1));
  const unsigned base = rng() % (max + 1);
  for (unsigned y = 0; y < h; ++y)
    for (unsigned x = 0; x < w; ++x) {
      unsigned v = base;
      if (kind == 1) v = base + ((x / 5 + y / 3) % 3);                  // steps
      if (kind == 2) v = base + (rng() % 3 == 0 ? rng() % 4 : 0);        // sparse noise
      if (kind == 3) v = rng() % (max + 1);                              // full noise
      v = std::min(v, max);
      const size_t i = size_t(y) * w + x;
      if (bpc > 8) reinterpret_cast<uint16_t*>(in.bytes.data())[i] = uint16_t(v);
      else in.bytes[i] = uint8_t(v);
    }
  return in;
}

void expect_same(const Input& in, unsigned w, unsigned h, bool dither, const std::string& label) {
  const cambi::ResizeMap map = cambi::make_resize_map(in.w, in.h, w, h);
  std::vector<uint16_t> converted(size_t(w) * h), image(size_t(w) * h);
  cambi::convert_to_10bit(in.bytes.data(), in.w, in.bpc, map, converted.data());
  if (dither) cambi::anti_dither(converted.data(), w, h, image.data());
  else image = converted;
  const int mask_index = cambi::mask_index(w, h);
  std::vector<uint8_t> mask(size_t(w) * h);
  cambi::spatial_mask(image.data(), w, h, mask_index, mask.data());
  static cambi_cuda::StageRunner runner;
  const cambi_cuda::StageRunner::PreMask gpu =
      runner.preprocess_mask(in.bytes.data(), in.w, in.h, in.bpc, w, h, dither, mask_index);
  size_t bad_image = 0, bad_mask = 0;
  for (size_t i = 0; i < image.size(); ++i) {
    bad_image += gpu.image[i] != image[i];
    bad_mask += gpu.mask[i] != mask[i];
  }
  EXPECT_EQ(bad_image, 0u) << label;
  EXPECT_EQ(bad_mask, 0u) << label;
}

TEST(CambiCudaPremask, SizesBitDepthsAndContent) {
  VQX_REQUIRE_CUDA();
  uint32_t seed = 7;
  size_t masked = 0, total = 0;
  const std::vector<std::pair<unsigned, unsigned>> sizes = {
      {1, 1}, {1, 37}, {37, 1}, {2, 2}, {31, 7}, {32, 8}, {33, 9}, {39, 15}, {65, 17},
      {216, 216}, {301, 173}, {640, 360}};
  for (int bpc : {8, 9, 10, 12, 16}) {
    for (auto [w, h] : sizes) {
      for (int kind = 0; kind < 4; ++kind) {
        const Input in = make_input(w, h, bpc, kind, seed++);
        for (bool dither : {true, false})
          expect_same(in, w, h, dither, fmt::format("{}x{} {}-bit kind {} dither {}", w, h, bpc, kind, dither));
        // Count masked pixels once, so the test is known to see both mask values.
        std::vector<uint16_t> img(size_t(w) * h);
        cambi::convert_to_10bit(in.bytes.data(), w, bpc, cambi::make_resize_map(w, h, w, h), img.data());
        std::vector<uint8_t> m(size_t(w) * h);
        cambi::spatial_mask(img.data(), w, h, cambi::mask_index(w, h), m.data());
        for (uint8_t v : m) masked += v;
        total += m.size();
      }
    }
  }
  EXPECT_GT(masked, 0u);  // both mask values occur
  EXPECT_LT(masked, total);
}

TEST(CambiCudaPremask, Downscaling) {
  VQX_REQUIRE_CUDA();
  uint32_t seed = 99;
  const struct { unsigned iw, ih, w, h; } cases[] = {
      {1280, 720, 960, 540}, {853, 481, 427, 241}, {640, 360, 301, 173}, {300, 300, 216, 100}};
  for (const auto& c : cases)
    for (int bpc : {8, 10, 16})
      for (int kind : {1, 2, 3}) {
        const Input in = make_input(c.iw, c.ih, bpc, kind, seed++);
        expect_same(in, c.w, c.h, bpc < 10,
                    fmt::format("{}x{} -> {}x{} {}-bit kind {}", c.iw, c.ih, c.w, c.h, bpc, kind));
      }
}

}  // namespace
}  // namespace vqx::test
