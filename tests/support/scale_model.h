#pragma once
// The plain C++ model of libswscale's two passes (the CUDA scaler's twin) and libswscale itself,
// called as `ffmpeg -vf scale=W:H:flags=<mode>+accurate_rnd+bitexact` calls it, for tests.
#include <string>
#include <vector>

#include "core/picture.h"
#include "core/scale_filter.h"

namespace vqx::test {

inline constexpr ScaleMode kScaleModes[] = {ScaleMode::kBicubic, ScaleMode::kBilinear,
                                            ScaleMode::kLanczos, ScaleMode::kSpline,
                                            ScaleMode::kNeighbor};

// Scales `in` to the size of `out` (same layout and depth) with build_plane_filters' filters and
// the integer steps of core/scale_rounding.h, row by row as libswscale does.
void scale_with_model(const Picture& in, Picture& out, ScaleMode mode);

// The same through libswscale (io/scaler.h: sws_scale, flags <mode> | SWS_ACCURATE_RND |
// SWS_BITEXACT, as vqx scales on the CPU).
void scale_with_libswscale(const Picture& in, Picture& out, ScaleMode mode);

// Content that reaches every clip: uniform noise, full-swing stripes and a smooth ramp, by plane.
Picture scale_test_picture(const PictureFormat& format, uint32_t seed);

// Fails the test naming the first few samples where `actual` differs from libswscale's `expected`.
void expect_same_samples(const Picture& actual, const Picture& expected, const std::string& label);

// The geometries both twins are checked on: ladder rungs up to the reference (720p, 540p and
// 360p to 1080p), odd and tiny sizes, one axis unscaled, reductions (past 2x the raw weights lose
// bits), near-unit steps, every depth libswscale has, every chroma layout.
struct ScaleCase {
  PictureFormat in;
  uint32_t out_width = 0, out_height = 0;
};
const std::vector<ScaleCase>& scale_cases();
std::string scale_case_name(const ScaleCase& c);

// Fixture frames scaled to the ladder's sizes, 8 and 10-bit, odd sizes, 4K. A case with a rung
// size first reduces the frame to it with libswscale (bicubic), as an encoding ladder would.
struct FixtureScaleCase {
  const char* pair;
  uint32_t rung_width, rung_height;  // 0: the fixture's own size
  uint32_t out_width, out_height;
};
inline constexpr FixtureScaleCase kFixtureScaleCases[] = {
    {"n576", 0, 0, 1920, 1080},          {"band1080", 0, 0, 3840, 2160},
    {"band1080", 1280, 720, 1920, 1080}, {"band1080", 960, 540, 1920, 1080},
    {"odd853", 0, 0, 1920, 1080},        {"hbd720", 0, 0, 1920, 1080},
    {"hbd720", 960, 540, 1280, 720},     {"uhd4k", 0, 0, 1280, 720}};

// The input of a fixture case: the first frame of the pair's distorted clip, at the rung's size.
Picture fixture_scale_input(const FixtureScaleCase& c, const std::string& dir);

PictureFormat resized(PictureFormat format, uint32_t width, uint32_t height);

}  // namespace vqx::test
