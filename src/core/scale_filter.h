#pragma once
// The filters of libswscale (FFmpeg 5.1) for `-vf scale=W:H:flags=<mode>+accurate_rnd+bitexact`,
// rebuilt on the host so that another implementation of its two integer passes (the CUDA scaler)
// gives libswscale's pixels bit for bit. Built once per geometry.
//
// Every plane is resampled on its own with samples at their centres (libswscale's siting when no
// chroma position is given, which is how `ffmpeg -vf scale` calls it for progressive frames), so
// one filter per axis and plane size describes it whatever the chroma layout.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/picture.h"

namespace vqx {

// The --scale modes, named as libswscale's flags (neighbor is SWS_POINT).
enum class ScaleMode : uint8_t { kBicubic, kBilinear, kLanczos, kSpline, kNeighbor };

const char* to_string(ScaleMode mode);
std::optional<ScaleMode> parse_scale_mode(std::string_view name);

// The horizontal pass weighs with 14 fractional bits and pads each output's taps to a multiple of
// 4; the vertical pass uses 12 bits and pads to 2 (libswscale's choice on x86 and Arm; the padded
// taps take part in the normalisation, which carries each tap's rounding error into the next).
enum class ScaleAxis : uint8_t { kHorizontal, kVertical };

// Output sample i is the sum over t < taps of input[first[i] + t] * weights[i * taps + t]. Every
// read lies inside the input (libswscale folds the taps beyond an edge onto the edge sample).
struct ScaleFilter {
  uint32_t taps = 0;
  std::vector<int32_t> first;
  std::vector<int16_t> weights;
};

// Throws InputError when libswscale would not scale this pair of sizes in one step (it switches
// to a two-step scale through a temporary picture for extreme reductions, which is not rebuilt).
ScaleFilter build_scale_filter(uint32_t in_size, uint32_t out_size, ScaleMode mode, ScaleAxis axis);

struct PlaneFilters {
  ScaleFilter horizontal, vertical;
};

// The filters of each plane for scaling pictures of format `in` to the size of `out`, which must
// share its layout and depth. Throws InputError for pictures libswscale has no planar YUV format
// for (RGB, depths 11, 13 and 15) and for the sizes build_scale_filter rejects.
std::vector<PlaneFilters> build_plane_filters(const PictureFormat& in, const PictureFormat& out,
                                              ScaleMode mode);

}  // namespace vqx
