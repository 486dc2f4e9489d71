// The device c-value stage of cambi (tiled column histograms in shared memory: compact cells per
// tile, dense kernel for the tiles that need more) against the CPU stage cambi::c_values, pixel
// for pixel and bit for bit, on random and edge inputs: windows 1..65 (33 and 65 included), five
// planes of a real scale pyramid in one launch (every scale), odd and tiny sizes (narrower and
// shorter than the window), levels at and just outside the band, runs of length one, long flat
// runs, masked holes, tile heights from 1 row to the whole plane, the frame's schedule (compact
// and dense tiles side by side) and every tile through the dense kernel, dense tiles whole and in
// two row pieces (the schedules from 4K and below it), and the level bands of bt1886, PQ (the
// widest, 66 KB of shared memory for the dense kernel) and mlc 0..5. Skips without a CUDA device.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "gpu/gpu_support.h"
#include "metrics/cambi/cambi_stages.h"
#include "metrics/cambi/cuda/stage_runner.h"

namespace vqx::test {
namespace {

using cambi::LevelParams;
using cambi_cuda::StageRunner;
using Route = StageRunner::Route;

StageRunner& runner() {
  static StageRunner r;
  return r;
}

struct Plane {
  unsigned w = 0, h = 0;
  std::vector<uint16_t> image;
  std::vector<uint8_t> mask;
};

enum class Content { kNoise, kPatches, kGradient, kDither, kEdges };

const char* name_of(Content c) {
  switch (c) {
    case Content::kNoise: return "noise";
    case Content::kPatches: return "patches";
    case Content::kGradient: return "gradient";
    case Content::kDither: return "dither";
    case Content::kEdges: return "edges";
  }
  return "?";
}

// 10-bit codes around the band of `p` (some below and above it) and a 0/1 mask.
Plane make_plane(unsigned w, unsigned h, Content content, const LevelParams& p, uint32_t seed) {
  std::mt19937 rng(seed);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Plane pl;
  pl.w = w, pl.h = h;
  pl.image.resize(size_t(w) * h);
  pl.mask.resize(size_t(w) * h);
  const int lo = std::max(0, p.base - 3), hi = std::min(1023, p.base + p.band + 2);
  const int centre = uni(lo, hi);
  // Patches: a grid of flat rectangles with random levels near a centre, some masked out.
  const unsigned pw = unsigned(uni(1, 40)), ph = unsigned(uni(1, 40));
  std::vector<int> patch_level(size_t((w / pw + 1) * (h / ph + 1)));
  std::vector<uint8_t> patch_mask(patch_level.size());
  for (size_t i = 0; i < patch_level.size(); ++i) {
    patch_level[i] = std::clamp(centre + uni(-8, 8), 0, 1023);
    patch_mask[i] = uni(0, 9) != 0;
  }
  const int edges[] = {p.base - 1, p.base, p.base + 1, p.base + p.band - 2, p.base + p.band - 1,
                       p.base + p.band};
  for (unsigned y = 0; y < h; ++y)
    for (unsigned x = 0; x < w; ++x) {
      int v = 0;
      bool m = true;
      switch (content) {
        case Content::kNoise:
          v = uni(lo, hi);
          m = uni(0, 3) != 0;
          break;
        case Content::kPatches: {
          const size_t k = size_t(y / ph) * (w / pw + 1) + x / pw;
          v = patch_level[k];
          m = patch_mask[k] && uni(0, 63) != 0;
          break;
        }
        case Content::kGradient:
          v = std::min(1023, int(200 + (3 * x) / 37 + y / 41 + (uni(0, 99) == 0 ? uni(1, 6) : 0)));
          m = ((y / 32) % 4) != 3;
          break;
        case Content::kDither:
          v = std::clamp(centre + int((x + y) & 1) - int((x / 7 + y / 5) % 3 == 0), 0, 1023);
          m = uni(0, 31) != 0;
          break;
        case Content::kEdges:
          v = std::clamp(edges[uni(0, 5)], 0, 1023);
          m = uni(0, 4) != 0;
          if (uni(0, 3) == 0 && x > 0) v = pl.image[size_t(y) * w + x - 1];  // some runs
          break;
      }
      pl.image[size_t(y) * w + x] = uint16_t(v);
      pl.mask[size_t(y) * w + x] = uint8_t(m);
    }
  return pl;
}

struct Outcome {
  size_t pixels = 0, nonzero = 0;
  unsigned dense = 0;  // tiles the frame's schedule gave the dense kernel
};

// Runs the device stage on all planes in one launch, once per route (the frame's schedule, every
// tile dense) and dense piece count (1, 2), and compares each plane with the CPU stage (computed
// once).
void expect_same_c_values(const std::vector<Plane>& planes, unsigned window, const LevelParams& p,
                          unsigned tile_rows, const std::string& label_in,
                          Outcome* outcome = nullptr) {
  std::vector<StageRunner::CValuePlane> in;
  for (const Plane& pl : planes) in.push_back({pl.image.data(), pl.mask.data(), pl.w, pl.h});
  std::vector<std::vector<float>> cpu(planes.size());
  for (size_t s = 0; s < planes.size(); ++s) {
    const Plane& pl = planes[s];
    cpu[s].resize(size_t(pl.w) * pl.h);
    cambi::c_values(pl.image.data(), pl.mask.data(), pl.w, pl.h, window, p, cpu[s].data(), nullptr);
  }
  for (int pieces : {1, 2})
  for (Route route : {Route::kFrame, Route::kEveryTileDense}) {
    const std::string label = fmt::format("{} {} pieces {}", label_in,
                                          route == Route::kFrame ? "frame" : "all-dense", pieces);
    const StageRunner::CValues gpu = runner().c_values(in, window, p, tile_rows, pieces, route);
    if (outcome && route == Route::kFrame) outcome->dense += gpu.dense_tiles;
    ASSERT_EQ(gpu.planes.size(), planes.size()) << label;
    for (size_t s = 0; s < planes.size(); ++s) {
      const Plane& pl = planes[s];
      ASSERT_EQ(gpu.planes[s].size(), cpu[s].size()) << label;
      size_t bad = 0;
      for (size_t i = 0; i < cpu[s].size(); ++i) {
        if (std::memcmp(&cpu[s][i], &gpu.planes[s][i], sizeof(float)) == 0) {
          if (outcome) outcome->nonzero += cpu[s][i] != 0.0f;
          continue;
        }
        if (++bad <= 3)
          ADD_FAILURE() << fmt::format("{} plane {} ({}x{}) pixel ({}, {}): cpu {:.9g}, cuda {:.9g}",
                                       label, s, pl.w, pl.h, i % pl.w, i / pl.w, cpu[s][i],
                                       gpu.planes[s][i]);
      }
      EXPECT_EQ(bad, 0u) << label << " plane " << s;
      if (outcome) outcome->pixels += cpu[s].size();
    }
  }
}

LevelParams bt1886(int mlc = 2, double vlt = 0.0) {
  return cambi::make_level_params(cambi::Eotf::kBt1886, 0.019, mlc, vlt);
}
LevelParams pq(int mlc) { return cambi::make_level_params(cambi::Eotf::kPq, 0.019, mlc, 0.0); }

// The scale pyramid of a w x h frame: (w+1)/2 x (h+1)/2 each step, five planes.
std::vector<std::pair<unsigned, unsigned>> pyramid(unsigned w, unsigned h) {
  std::vector<std::pair<unsigned, unsigned>> out;
  for (int s = 0; s < cambi::kNumScales; ++s) {
    out.emplace_back(w, h);
    w = (w + 1) / 2, h = (h + 1) / 2;
  }
  return out;
}

TEST(CambiCudaCValues, EveryScaleOfAPyramidInOneLaunch) {
  VQX_REQUIRE_CUDA();
  const LevelParams p = bt1886();
  uint32_t seed = 1;
  Outcome total;
  for (unsigned window : {33u, 65u}) {
    for (auto [fw, fh] : {std::pair{853u, 481u}, std::pair{960u, 540u}}) {
      for (Content c : {Content::kNoise, Content::kPatches, Content::kGradient, Content::kDither,
                        Content::kEdges}) {
        std::vector<Plane> planes;
        for (auto [w, h] : pyramid(fw, fh)) planes.push_back(make_plane(w, h, c, p, seed++));
        for (unsigned rows : {64u, 37u}) {
          expect_same_c_values(planes, window, p, rows,
                               fmt::format("{}x{} ws {} {} rows {}", fw, fh, window, name_of(c), rows),
                               &total);
        }
      }
    }
  }
  std::printf("cambi cuda c-values: %zu pixels compared, %zu non-zero, %u dense tiles, all identical\n",
              total.pixels, total.nonzero, total.dense);
  EXPECT_GT(total.nonzero, total.pixels / 50);  // the comparison is not all zeros
  EXPECT_GT(total.dense, 0u);                   // the frame's schedule gave the dense kernel tiles
}

TEST(CambiCudaCValues, EveryWindowAndTileHeight) {
  VQX_REQUIRE_CUDA();
  const LevelParams p = bt1886();
  uint32_t seed = 100;
  for (unsigned window : {1u, 3u, 9u, 17u, 33u, 63u, 65u}) {
    for (unsigned rows : {1u, 5u, 32u, 64u, 1000u}) {
      for (Content c : {Content::kNoise, Content::kPatches, Content::kEdges}) {
        std::vector<Plane> planes = {make_plane(203, 97, c, p, seed++)};
        expect_same_c_values(planes, window, p, rows,
                             fmt::format("203x97 ws {} rows {} {}", window, rows, name_of(c)));
      }
    }
  }
}

TEST(CambiCudaCValues, TinyAndOddSizes) {
  VQX_REQUIRE_CUDA();
  const LevelParams p = bt1886();
  uint32_t seed = 500;
  const std::vector<std::pair<unsigned, unsigned>> sizes = {
      {1, 1}, {1, 50}, {50, 1}, {2, 2}, {31, 7}, {32, 32}, {33, 65}, {65, 33}, {63, 64},
      {97, 3}, {3, 97}, {129, 130}, {95, 96}, {96, 95}, {161, 11}};
  for (unsigned window : {33u, 65u, 9u}) {
    for (auto [w, h] : sizes) {
      for (Content c : {Content::kNoise, Content::kPatches, Content::kEdges, Content::kDither}) {
        std::vector<Plane> planes = {make_plane(w, h, c, p, seed++)};
        expect_same_c_values(planes, window, p, 64,
                             fmt::format("{}x{} ws {} {}", w, h, window, name_of(c)));
        expect_same_c_values(planes, window, p, 3,
                             fmt::format("{}x{} ws {} {} rows 3", w, h, window, name_of(c)));
      }
    }
  }
}

// Other level bands and contrast counts: PQ (about 1028 levels), mlc 0..5 (1..32 contrasts), a
// visibility threshold that removes the lowest levels.
TEST(CambiCudaCValues, EveryBandAndContrastCount) {
  VQX_REQUIRE_CUDA();
  uint32_t seed = 900;
  std::vector<std::pair<std::string, LevelParams>> bands;
  for (int mlc = 0; mlc <= 5; ++mlc) bands.emplace_back(fmt::format("bt1886 mlc {}", mlc), bt1886(mlc));
  for (int mlc : {0, 2, 3, 5}) bands.emplace_back(fmt::format("pq mlc {}", mlc), pq(mlc));
  bands.emplace_back("bt1886 vlt 1", bt1886(2, 1.0));
  bands.emplace_back("bt1886 vlt 10", bt1886(3, 10.0));
  for (const auto& [label, p] : bands) {
    for (Content c : {Content::kNoise, Content::kPatches, Content::kDither, Content::kEdges}) {
      std::vector<Plane> planes;
      for (auto [w, h] : pyramid(427, 241)) planes.push_back(make_plane(w, h, c, p, seed++));
      for (unsigned window : {33u, 65u})
        expect_same_c_values(planes, window, p, 64,
                             fmt::format("{} {} ws {}", label, name_of(c), window));
    }
  }
}

// A 4K plane with window 65, the largest case a frame runs (patches: long flat runs; gradient).
TEST(CambiCudaCValues, UhdPlane) {
  VQX_REQUIRE_CUDA();
  const LevelParams p = bt1886();
  std::vector<Plane> planes = {make_plane(3840, 2160, Content::kPatches, p, 4242),
                               make_plane(3840, 2160, Content::kGradient, p, 4243)};
  expect_same_c_values(planes, 65, p, 64, "3840x2160 ws 65");
}

}  // namespace
}  // namespace vqx::test
