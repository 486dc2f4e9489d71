#pragma once
// The stages of SSIMULACRA 2 as the lusoris fork computes them (shared/spec/ssimulacra2.md), each
// callable on its own so that the optimised kernels (ssimulacra2_kernels.h) and the CUDA twin can
// be compared with them stage by stage, bit for bit. Every function here is deterministic: f32
// where the fork uses float, f64 where it uses double, one rounding per operator in the bracketing
// of the spec, no contraction (the build has -ffp-contract=off) and no libm per pixel.
//
// Planes are f32, row-major with tight rows (stride = width).
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

#include "core/picture.h"
#include "metrics/ssimulacra2/ssimulacra2_eotf_lut.h"

namespace vqx::ssimulacra2 {

inline constexpr int kNumScales = 6;
// Fork stop rule (section 4): a scale narrower or lower than this is not processed.
inline constexpr uint32_t kMinScaleSize = 8;

// ---- Section 2: Y'CbCr (or R'G'B') samples -> linear RGB --------------------------------------

// Coefficients of one yuv_matrix choice (section 2.4), all f32.
struct YuvMatrix {
  float cr_r, cb_b, cb_g, cr_g;  // R = Yn + cr_r*Vn; G = Yn + cb_g*Un + cr_g*Vn; B = Yn + cb_b*Un
  float y_scale, c_scale, y_off, c_off;
};
// yuv_matrix 0 = BT.709 limited, 1 = BT.601 limited, 2 = BT.709 full, 3 = BT.601 full.
YuvMatrix make_yuv_matrix(int yuv_matrix);

// f32(1) / f32(2^bpc - 1): samples are multiplied by this rounded reciprocal (section 2.3).
float inverse_peak(unsigned bit_depth);

// sRGB EOTF by table lookup and linear interpolation (section 2.5).
inline float srgb_eotf(float x) {
  if (x <= 0.0f) return 0.0f;
  if (x >= 1.0f) return 1.0f;
  float t = x * 1023.0f;
  int i = int(t);
  float f = t - float(i);
  float a = std::bit_cast<float>(kEotfLutBits[size_t(i)]);
  float b = std::bit_cast<float>(kEotfLutBits[size_t(i) + 1]);
  return a + (b - a) * f;
}

// Linear RGB planes of one picture at the current scale.
struct RgbPlanes {
  float* c[3];
  uint32_t width, height;
};
struct ConstRgbPlanes {
  const float* c[3];
  uint32_t width, height;
};

// Rows [y0, y1) of a Y'CbCr picture (4:2:0, 4:2:2 or 4:4:4, 8..16 bit) to linear RGB at luma
// resolution: nearest chroma (2.2), normalisation (2.3), matrix and clamp (2.4), EOTF (2.5).
void yuv_to_linear_rgb(const Picture& picture, const YuvMatrix& matrix, const RgbPlanes& out,
                       uint32_t y0, uint32_t y1);
// Rows [y0, y1) of an R'G'B' picture (ColorModel::kRGB, 4:4:4): normalisation (2.3) and the same
// EOTF, without any matrix (the image mode of section 13).
void rgb_to_linear_rgb(const Picture& picture, const RgbPlanes& out, uint32_t y0, uint32_t y1);
// The same two conversions into a buffer of rows: out[c] is where row y0 of plane c goes, rows of
// `width` samples back to back (the streamed pipeline's strips). Same operations per pixel.
void yuv_to_linear_rgb_rows(const Picture& picture, const YuvMatrix& matrix, float* const out[3],
                            uint32_t y0, uint32_t y1);
void rgb_to_linear_rgb_rows(const Picture& picture, float* const out[3], uint32_t y0, uint32_t y1);

// ---- Section 3: linear RGB -> XYB --------------------------------------------------------------

// 3.1: the opsin absorbance mix and its bias, f32; each row's last entry is 1 - a - b, left to
// right, in f32. The device code uses the same constants.
inline constexpr float kM00 = 0.30f, kM02 = 0.078f;
inline constexpr float kM10 = 0.23f, kM12 = 0.078f;
inline constexpr float kM20 = 0.24342268924547819f, kM21 = 0.20476744424496821f;
inline constexpr float kM01 = (1.0f - kM00) - kM02;
inline constexpr float kM11 = (1.0f - kM10) - kM12;
inline constexpr float kM22 = (1.0f - kM20) - kM21;
inline constexpr float kOpsinBias = 0.0037930732552754493f;
static_assert(std::bit_cast<uint32_t>(kM01) == 0x3f1f3b64u);
static_assert(std::bit_cast<uint32_t>(kM11) == 0x3f3126e9u);
static_assert(std::bit_cast<uint32_t>(kM22) == 0x3f0d4369u);
static_assert(std::bit_cast<uint32_t>(kOpsinBias) == 0x3b789536u);

// Bit trick plus two Newton steps with a correctly rounded divide (3.2). Written without an early
// return so that loops over it vectorise; the result for x <= 0 (or NaN) is still exactly 0.
inline float cbrt_approx(float x) {
  uint32_t u = std::bit_cast<uint32_t>(x);
  u = u / 3u + 0x2a5137a0u;
  float y = std::bit_cast<float>(u);
  constexpr float kThird = 1.0f / 3.0f;  // 0x3eaaaaab
  y = ((2.0f * y) + (x / (y * y))) * kThird;
  y = ((2.0f * y) + (x / (y * y))) * kThird;
  return x > 0.0f ? y : 0.0f;
}

// cbrt_approx(kOpsinBias), through the same approximation, not libm (3.1).
extern const float kCbrtBias;

struct XybPixel {
  float x, y, b;
};
// One pixel: opsin mix, cube root and MakePositive (3.3). The plain twin of the XYB kernel.
XybPixel linear_rgb_to_xyb(float r, float g, float b);

// ---- Section 4: 2x2 box downsample of linear RGB -----------------------------------------------

inline uint32_t half_size(uint32_t n) { return (n + 1) / 2; }
// Output rows [oy0, oy1) of one plane; output size is (half_size(iw), half_size(ih)).
void downsample_2x2(const float* in, uint32_t iw, uint32_t ih, float* out, uint32_t oy0,
                    uint32_t oy1);
// One output row from its two input rows (row1 == row0 for the last row of an odd height).
void downsample_2x2_row(const float* row0, const float* row1, uint32_t iw, float* out);

// ---- Section 5: products -----------------------------------------------------------------------

// out[i] = a[i] * b[i] (f32) for i in [begin, end): the plain twin of the products the blur
// kernels form on the fly.
void multiply_planes(const float* a, const float* b, float* out, size_t begin, size_t end);

// ---- Section 6: recursive Gaussian, sigma 1.5, zero padding ------------------------------------

inline constexpr int kBlurRadius = 5;
struct BlurCoefficients {
  float n2[3];  // poles k = 1, 3, 5
  float d1[3];
};
// The f32 bit patterns of 6.1 (hard-coded; blur_coefficients_derivation() recomputes them).
const BlurCoefficients& blur_coefficients();
// The derivation of 6.1 in f64 with libm, for the unit test that checks the hard-coded bits.
BlurCoefficients blur_coefficients_derivation(double* beta_dot_p = nullptr);

// Plain twins: the spec's recurrence written literally, one line at a time.
// One line of n samples read with stride `in_stride` and written with stride `out_stride`.
void blur_line_reference(const float* in, size_t in_stride, float* out, size_t out_stride,
                         size_t n);
// Horizontal pass into `temp`, then vertical pass into `out` (6.3). `out` may not alias `in`.
void blur_plane_reference(const float* in, float* temp, float* out, uint32_t w, uint32_t h);

// The vertical pass of the streamed pipeline keeps each column's recurrence between strips of
// rows: column_state_floats(w) floats of state (Ssimulacra2Kernels::blur_columns_steps).
inline size_t column_state_floats(uint32_t w) { return size_t{(w + 7) / 8} * 48; }

// ---- Sections 7-9: per-pixel terms and their sums ----------------------------------------------

inline constexpr float kC2 = 0.0009f;  // 0x3a6bedfa

// The SSIM term d of one pixel (section 7), clamped at 0.
inline double ssim_term(float mu1, float mu2, float s11, float s22, float s12) {
  float mu11 = mu1 * mu1, mu22 = mu2 * mu2, mu12 = mu1 * mu2;
  float dm = mu1 - mu2;
  float num_m = 1.0f - dm * dm;
  float num_s = 2.0f * (s12 - mu12) + kC2;
  float denom_s = ((s11 - mu11) + (s22 - mu22)) + kC2;
  double q = (double(num_m) * double(num_s)) / double(denom_s);
  double d = 1.0 - q;
  return d < 0.0 ? 0.0 : d;
}

// Where the edge map forms |img - mu|. The spec (section 8) and the fork's scalar C code take the
// difference in f64. The fork's AVX2 code, which x86 builds dispatch to and which produced the
// golden scores (shared/golden/*/lusoris), subtracts in f32 and widens the absolute value, for
// every pixel of a whole group of 8 in the flattened plane; its last n % 8 pixels take the scalar
// f64 path. The two differ by up to ~1e-7 in the score (shared/golden/README.md, "--cpumask").
enum class EdgeDifference : uint8_t {
  kDouble,            // f64 everywhere: the fork's scalar path (the spec's section 16 vectors)
  kFloatGroupsOf8,    // the fork's AVX2 path: f32 for pixels [0, n - n % 8), f64 after
};

// The edge ratio r of one pixel (section 8); art = max(r, 0), det = max(-r, 0).
inline double edge_ratio_of(double e1, double e2) { return ((1.0 + e2) / (1.0 + e1)) - 1.0; }
inline double edge_ratio(float img1, float mu1, float img2, float mu2) {
  double e1 = double(img1) - double(mu1);
  double e2 = double(img2) - double(mu2);
  e1 = e1 < 0.0 ? -e1 : e1;
  e2 = e2 < 0.0 ? -e2 : e2;
  return edge_ratio_of(e1, e2);
}
// The same with the differences rounded to f32 (the fork's AVX2 lanes).
inline double edge_ratio_f32_difference(float img1, float mu1, float img2, float mu2) {
  float e1 = img1 - mu1;
  float e2 = img2 - mu2;
  e1 = e1 < 0.0f ? -e1 : e1;
  e2 = e2 < 0.0f ? -e2 : e2;
  return edge_ratio_of(double(e1), double(e2));
}

inline double quartic(double v) { return (v * v) * (v * v); }

// The six f64 accumulators of one (scale, channel), each summed in raster order (section 9).
struct ChannelSums {
  double s1 = 0, s4 = 0;  // SSIM term: sum of d and of d^4
  double a1 = 0, a4 = 0;  // ringing (artifact) term
  double d1 = 0, d4 = 0;  // blurring (detail lost) term
};

// How many leading pixels of a plane of n pixels take the f32 edge difference.
inline size_t f32_difference_count(size_t n, EdgeDifference mode) {
  return mode == EdgeDifference::kFloatGroupsOf8 ? n - n % 8 : 0;
}

// ---- Section 10: pooling -----------------------------------------------------------------------

// Sums of every processed scale; scales >= `scales` are absent.
struct FrameSums {
  int scales = 0;
  std::array<std::array<ChannelSums, 3>, kNumScales> sums{};
  std::array<uint64_t, kNumScales> pixels{};  // cw * ch of each processed scale
};

extern const std::array<double, 108> kPoolingWeights;

// Section 9's normalisation and section 10's weighted sum, polynomial and power.
double pool_score(const FrameSums& frame);

}  // namespace vqx::ssimulacra2
