#pragma once
// SpEED-chroma preprocessing of one chroma plane, stage by stage (speed.md 3, 5, 6, 7):
//   convert_plane -> prescale -> convolve(antialias) -> decimate -> remove_local_mean
// Each stage is callable on its own so that a device twin can be compared with it bit for bit.
// preprocess_plane() is the fused production path; it computes only the samples that survive the
// decimation and is tested to give the same bits as the staged path (preprocess_plane_staged).
#include <cstdint>
#include <vector>

#include "core/picture.h"
#include "metrics/speed_core/speed_params.h"

namespace vqx::speed {

// A tight row-major f32 image.
struct Image {
  uint32_t w = 0, h = 0;
  std::vector<float> px;
  void resize(uint32_t width, uint32_t height) {
    w = width;
    h = height;
    px.assign(size_t(width) * height, 0.0f);
  }
  float at(uint32_t y, uint32_t x) const { return px[size_t(y) * w + x]; }
  float* row(uint32_t y) { return px.data() + size_t(y) * w; }
  const float* row(uint32_t y) const { return px.data() + size_t(y) * w; }
};

// --- section 3: conversion -------------------------------------------------------------------

// Top-left w x h samples of `plane` (1 or 2) as f32: p / 2^(bpc-8) - 128, exact in f32.
// Supports bit depths 8, 10, 12 and 16 (the only ones upstream reads correctly).
void convert_plane(const Picture& picture, unsigned plane, uint32_t w, uint32_t h, Image& out);
// One row of the same (row `y` of the top-left region, `w` samples).
void convert_row(const Picture& picture, unsigned plane, uint32_t y, uint32_t w, float* out);

// --- section 5: prescale ---------------------------------------------------------------------

// One axis of the bilinear resampler (speed.md 5.2): for each destination index k the mirrored
// source indices i1 = M(floor t), i2 = M(ceil t) and the fraction t - i1 (f32).
struct BilinearAxis {
  std::vector<uint32_t> i1, i2;
  std::vector<float> frac;
};
BilinearAxis make_bilinear_axis(uint32_t n, uint32_t m);

// Bilinear output sample from rows y1/y2 (weights as speed.md 5.2, fixed f32 order).
void bilinear_row(const float* row1, const float* row2, float dy, const BilinearAxis& cols,
                  float* out);

// Nearest source index per destination index: trunc((f32)k * ((f32)n / (f32)m)) (speed.md 5.3).
std::vector<uint32_t> make_nearest_axis(uint32_t n, uint32_t m);

// libvmaf's bicubic (a = -0.75, 4x4 taps) and lanczos4 (9x9 taps, normalised by the weight sum)
// resamplers (speed_resample.cpp). Taps outside the picture mirror once (-t, 2(n-1) - t).
void bicubic_resample(const Image& in, uint32_t sw, uint32_t sh, Image& out);
void lanczos4_resample(const Image& in, uint32_t sw, uint32_t sh, Image& out);

// Resamples `in` to sw x sh with `method` (speed.md 5.2, 5.3; bicubic and lanczos4 as above);
// the identity when the size does not change, as upstream's vif_scale_frame_s.
void prescale(const Image& in, uint32_t sw, uint32_t sh, PrescaleMethod method, Image& out);

// --- section 6: filters ----------------------------------------------------------------------

// libvmaf's vif_get_filter_size (speed.md 6.2): n = 2^(4 - scale) + 1 scaled by ks32 in f32,
// rounded up to an odd size >= 3. Also float_vif's filter sizes.
int filter_size(int scale, float ks32);

// Gaussian taps of width L and parameter s (speed.md 6.3, f64/f32 mix, glibc exp); libvmaf's
// get_1d_gaussian_kernel, which float_vif uses with s = L / 5.
std::vector<float> gaussian_taps(int width, float s);

struct SpeedFilters {
  std::vector<float> antialias;  // L1 taps (9 for ks = 1)
  std::vector<float> mean;       // L2 taps (3 for ks = 1)
};
// Sizes and widths of speed.md 6.2 for kernel scale ks32.
SpeedFilters make_filters(float ks32);

// Separable convolution with mirrored borders, vertical pass first (speed.md 6.4).
void convolve(const Image& in, const std::vector<float>& taps, Image& out);

// Mirror without repeating the edge sample: -t below 0, 2n-2-t at or past n (speed.md 6.4).
inline int64_t mirror_index(int64_t t, int64_t n) {
  if (t < 0) return -t;
  if (t >= n) return 2 * n - 2 - t;
  return t;
}

// --- section 7: decimation and local mean ----------------------------------------------------

// D[i][j] = A[16 i][16 j] for i < oh, j < ow (phase 0).
void decimate(const Image& a, uint32_t ow, uint32_t oh, Image& out);
// E = D - conv(D, mean taps), on the full ow x oh image.
void remove_local_mean(const Image& d, const std::vector<float>& mean_taps, Image& out);

// --- whole plane -----------------------------------------------------------------------------

// Reference path: every stage above on full images. Output E is ow x oh.
void preprocess_plane_staged(const Picture& picture, unsigned plane, const Geometry& g,
                             PrescaleMethod method, const SpeedFilters& filters, Image& e);

// The same stages after the conversion, on a w x h f32 image (speed_temporal's frame differences).
void preprocess_image(const Image& source, const Geometry& g, PrescaleMethod method,
                      const SpeedFilters& filters, Image& e);

// Scratch for preprocess_plane (reused across calls by one thread).
struct PreprocessScratch {
  Image source;                    // converted plane, only when the prescale is active
  std::vector<uint8_t> converted;  // which rows of `source` hold this call's samples
  std::vector<float> rows;         // one row of the scaled image
  std::vector<float> vertical;     // vertical pass of one decimated row, sw samples
  Image decimated;
  BilinearAxis bx, by;           // cached bilinear tables
  std::vector<uint32_t> nx, ny;  // cached nearest tables
  uint32_t cached_w = 0, cached_h = 0, cached_sw = 0, cached_sh = 0;
  PrescaleMethod cached_method = PrescaleMethod::kNearest;
};

// Production path, bit-identical to preprocess_plane_staged: the vertical pass runs only on the
// rows 16 i that the decimation keeps and the horizontal pass only at the columns 16 j; the
// scaled image is produced only for the rows those need. Each kept sample is computed with the
// same operations in the same order as in the staged path.
void preprocess_plane(const Picture& picture, unsigned plane, const Geometry& g,
                      PrescaleMethod method, const SpeedFilters& filters,
                      PreprocessScratch& scratch, Image& e);

}  // namespace vqx::speed
