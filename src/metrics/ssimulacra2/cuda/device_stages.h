#pragma once
// The device stages of SSIMULACRA 2 (shared/spec/ssimulacra2.md section 15), one kernel family a
// file, each behind a launcher that only enqueues on the stream it is given:
//   xyb.cu                 linear RGB, XYB and the 2x2 downsample of one scale (one kernel);
//   blur_rows.cu           the horizontal recurrence of the 15 blurs;
//   blur_columns_terms.cu  the vertical recurrence, the per-pixel terms and their block sums;
//   reduce.cu              the 108 sums of a frame.
// FramePipeline (frame_pipeline.h) runs them for the metric; the stage probe
// (ssimulacra2_cuda_testing.h) runs them with their stage outputs for the tests.
//
// The XYB planes are stored blocked and transposed: a plane is a grid of 32 x 32 blocks of 4 KB,
// each block column-major, element (x, y) in block (x / 32, y / 32) at (x % 32) * 32 + y % 32.
// The horizontal recurrence walks a row, so its parallelism is one lane per row; in this layout
// the 32 rows' samples of one column are one aligned 128-byte line, and a warp's loads of a whole
// 32-step chunk are constant offsets from one or two block addresses. Rows are padded to a
// multiple of 32, columns to a multiple of 32 plus 32 (the walk reads 4 columns past the last
// chunk); the XYB kernel writes the padding's zeros (the recurrence's padding) every frame.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/picture.h"
#include "metrics/ssimulacra2/ssimulacra2_core.h"

namespace vqx::ssimulacra2::cuda {

inline constexpr int kLines = 32;      // lines of a warp, one per lane
inline constexpr int kBlurPlanes = 5;  // mu1, mu2, s11, s22, s12 of one channel
inline constexpr int kSums = 6;        // S1, S4, A1, A4, D1, D4 of one (scale, channel)
inline constexpr size_t kResultDoubles = size_t(kNumScales) * 3 * kSums;

// A double-double partial sum (hi + lo, |lo| <= ulp(hi) / 2).
struct Dd {
  double hi, lo;
};

// The scales a picture processes (fork stop rule, section 4) and their sizes.
struct ScaleSizes {
  int count = 0;
  uint32_t width[kNumScales] = {}, height[kNumScales] = {};
};
inline ScaleSizes scale_sizes(uint32_t width, uint32_t height, int max_scales = kNumScales) {
  ScaleSizes sizes;
  for (int s = 0; s < kNumScales && s < max_scales; ++s) {
    if (width < kMinScaleSize || height < kMinScaleSize) break;
    sizes.width[s] = width;
    sizes.height[s] = height;
    sizes.count = s + 1;
    width = half_size(width);
    height = half_size(height);
  }
  return sizes;
}

// The sums of a host copy of the reduce's 108 doubles (stage 4), for the scales of `sizes`.
inline FrameSums frame_sums(const ScaleSizes& sizes, const double* result) {
  FrameSums f;
  f.scales = sizes.count;
  for (int s = 0; s < sizes.count; ++s) {
    f.pixels[size_t(s)] = uint64_t{sizes.width[s]} * sizes.height[s];
    for (int c = 0; c < 3; ++c) {
      const double* v = result + (s * 3 + c) * kSums;
      f.sums[size_t(s)][size_t(c)] = ChannelSums{v[0], v[1], v[2], v[3], v[4], v[5]};
    }
  }
  return f;
}

// A blocked plane of a w x h picture: rows_t x cols_t floats.
struct BlockedPlane {
  uint32_t rows_t = 0, cols_t = 0;
  size_t floats = 0;
};
inline BlockedPlane blocked_plane(uint32_t w, uint32_t h) {
  BlockedPlane g;
  g.rows_t = (h + 31) / 32 * 32;
  g.cols_t = (w + 31) / 32 * 32 + 32;
  g.floats = size_t(g.rows_t) * g.cols_t;
  return g;
}
// Index of element (x, y) in a blocked plane of rows_t rows.
__host__ __device__ __forceinline__ uint32_t blocked_index(uint32_t x, uint32_t y,
                                                           uint32_t rows_t) {
  return ((x >> 5) * (rows_t >> 5) + (y >> 5)) * 1024u + (x & 31u) * 32u + (y & 31u);
}

// ---- stage 1: xyb.cu ---------------------------------------------------------------------------

struct YuvMatrixDev {
  float cr_r, cb_b, cb_g, cr_g, y_scale, c_scale, y_off, c_off;
};

// Where the samples of scale 0 are: the engine's frame copy (Picture layout).
struct FrameSource {
  const uint8_t* frame[2];       // ref, dis
  unsigned long long offset[3];  // plane offsets in bytes
  uint32_t pw, ph;               // chroma plane size
  float inv_peak;
  YuvMatrixDev m;
};
// The source of a format; `matrix` null = R'G'B' samples. The frames are set per frame.
FrameSource frame_source(const PictureFormat& format, const YuvMatrix* matrix);

struct XybLaunch {
  FrameSource source;             // scale 0
  bool rgb = false;               // scale 0: R'G'B' samples (section 13), else Y'CbCr
  bool wide = false;              // scale 0: 16-bit samples
  const float* linear = nullptr;  // scales > 0: the level's 6 linear planes (then not `source`)
  uint32_t width = 0, height = 0;
  BlockedPlane plane;
  float* xyb = nullptr;          // 6 blocked planes: ref X Y B, dis X Y B
  float* down = nullptr;         // the next level's 6 linear planes; null at the last scale
  float* linear_dump = nullptr;  // tests, scale 0: its 6 linear planes
};
void launch_xyb(const XybLaunch& launch, cudaStream_t stream);

// ---- stage 2: blur_rows.cu ---------------------------------------------------------------------

// A block of 1024 ones (initialised device data): the horizontal pass forms every line as p * q,
// q = 1 for mu1 and mu2. A query of the runtime: call it at init, outside any stream capture.
const float* ones_block();

struct RowsLaunch {
  const float* xyb = nullptr;   // the scale's blocked XYB planes
  const float* ones = nullptr;  // ones_block()
  uint32_t width = 0, height = 0;
  BlockedPlane plane;
  float* hblur = nullptr;          // 15 row-major planes: per channel G(img1), G(img2), G(p11), ...
  bool vec = false;                // float4 stores: width % 4 == 0, xyb and hblur 16-byte aligned
  float* products_dump = nullptr;  // tests: 9 planes, per channel p11, p22, p12
};
void launch_blur_rows(const RowsLaunch& launch, cudaStream_t stream);

// ---- stage 3: blur_columns_terms.cu -----------------------------------------------------------

struct ColumnsLaunch {
  const float* hblur = nullptr;
  const float* xyb = nullptr;
  uint32_t width = 0, height = 0;
  BlockedPlane plane;
  uint32_t f32_end = 0;          // pixels [0, f32_end) take the f32 edge difference
  Dd* partials = nullptr;        // [3 channels][column strips][kSums]
  float* vblur_dump = nullptr;   // tests: the 15 blurred planes
  double* terms_dump = nullptr;  // tests: 9 planes, per channel d, art, det
};
// Column strips of 32 (blocks per channel) of a plane w wide: the partials per (channel, sum).
inline uint32_t column_strips(uint32_t width) { return (width + kLines - 1) / kLines; }
void launch_blur_columns_terms(const ColumnsLaunch& launch, cudaStream_t stream);

// ---- stage 4: reduce.cu ------------------------------------------------------------------------

struct ScaleTable {
  unsigned long long partial_offset[kNumScales];  // in Dd, of each scale's [3][strips][6]
  uint32_t strips[kNumScales];
  int scales;
};
// All 108 sums (zeros for absent scales) into `result`.
void launch_reduce(const Dd* partials, const ScaleTable& table, double* result,
                   cudaStream_t stream);

}  // namespace vqx::ssimulacra2::cuda
