// ssimulacra2 on CUDA (shared/spec/ssimulacra2.md section 15; contract in shared/spec/README.md).
//
// Per frame, per processed scale s (no host wait; the defaults, docs/ssimulacra2.md):
//   1. xyb_down_t: linear RGB of both images (from the Y'CbCr or R'G'B' frame at s = 0, from the
//                  level-s linear planes after), XYB of every pixel, and the 2x2 box downsample of
//                  the linear planes into level s + 1. Full-resolution linear RGB never touches
//                  memory: a thread owns one 2x2 block. The XYB planes are stored blocked and
//                  transposed (ssimulacra2_transposed.cuh). (xyb_down_fast: the same block body
//                  into row-major planes; xyb_down: the plain kernel before session 14.)
//   2. blur_rows_t: the horizontal recurrence of all 15 blurs (3 channels x mu1, mu2, s11, s22,
//                  s12), the products formed on the fly; one warp per (32 rows, channel, plane),
//                  lane = row, on the transposed planes. (blur_rows_poles2 on row-major planes.)
//   3. blur_columns_terms_pipe: the vertical recurrence (one thread per column and plane,
//                  coalesced across the warp), then, from shared memory, the SSIM and edge terms
//                  of each pixel in native f64 (the CPU's exact operations; the f64 division
//                  written out as __ddiv_rn's own fast path where that path is exact), summed per
//                  thread, then per block in a fixed order; the terms of one chunk interleaved
//                  with the walk of the next. (blur_columns_terms: the kernels before session 15,
//                  and the strip schedule's.)
// and once per frame:
//   4. reduce:     the block partials of each (scale, channel) in a fixed order, rounded to f64
//                  once: 108 sums, the frame's only readback. pool_score() runs on the host.
//
// Bit-identity: every f32/f64 operation below is the single rounded operation of the CPU code in
// ssimulacra2_core.{h,cpp} / ssimulacra2_blur.cpp (section 11), written with explicit _rn
// intrinsics; the TU is also built with --fmad=false. Division and square root are IEEE. The
// tables (EOTF LUT, blur coefficients, YUV matrix, cbrt bias) come from the CPU code, not
// recomputed. Only the order of the sums differs (15.2): a tree whose shape depends only on the
// plane size, so every run gives the same bits.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/cuda/cuda_check.h"
#include "engine/cuda/device_division.cuh"
#include "engine/cuda/device_context.h"
#include "core/error.h"
#include "metrics/ssimulacra2/cuda/ssimulacra2_cuda.h"
#include "metrics/ssimulacra2/ssimulacra2_core.h"

namespace vqx::ssimulacra2::cuda {
namespace {

using vqx::cuda::check;
using vqx::cuda::allow_dynamic_smem;
using vqx::cuda::check_launch;
using vqx::cuda::div_rn_fast;

// ---- constants (section 3.1, the same literals and bits as ssimulacra2_core.cpp) ---------------

constexpr float kM00 = 0.30f, kM02 = 0.078f;
constexpr float kM10 = 0.23f, kM12 = 0.078f;
constexpr float kM20 = 0.24342268924547819f, kM21 = 0.20476744424496821f;
constexpr float kM01 = (1.0f - kM00) - kM02;
constexpr float kM11 = (1.0f - kM10) - kM12;
constexpr float kM22 = (1.0f - kM20) - kM21;
constexpr float kOpsinBias = 0.0037930732552754493f;
static_assert(std::bit_cast<uint32_t>(kM01) == 0x3f1f3b64u);
static_assert(std::bit_cast<uint32_t>(kM11) == 0x3f3126e9u);
static_assert(std::bit_cast<uint32_t>(kM22) == 0x3f0d4369u);
static_assert(std::bit_cast<uint32_t>(kOpsinBias) == 0x3b789536u);
static_assert(std::bit_cast<uint32_t>(kC2) == 0x3a6bedfau);

// The EOTF table (section 2.5), copied from the CPU's kEotfLutBits at init.
__device__ float g_eotf_lut[kEotfLutSize];

struct BlurCoef {
  float n2[3], d1[3];
};

// ---- geometry of the kernels -------------------------------------------------------------------

constexpr int kLines = 32;                   // lines per block (one per lane)
constexpr int kBlurPlanes = 5;               // mu1, mu2, s11, s22, s12 (one warp each)
constexpr int kBlockThreads = kLines * kBlurPlanes;
constexpr int kTile = 32;                    // columns per tile of the horizontal pass
constexpr int kTileElems = kLines * kTile;
constexpr int kChunkRows = 20;               // rows per step of the vertical pass (2 x 10 ring)
constexpr int kTermRows = kChunkRows / kBlurPlanes;  // pixels per thread per chunk
constexpr int kSums = 6;                     // S1, S4, A1, A4, D1, D4
static_assert(kChunkRows % kBlurPlanes == 0 && kChunkRows % 10 == 0);

// ---- per-pixel device twins (one rounded operation each, as the CPU) ---------------------------

__device__ __forceinline__ float fmul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ float fadd(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ float fsub(float a, float b) { return __fsub_rn(a, b); }

// 2.5: table lookup and lerp; int(t) truncates. Written without branches: the lookup runs for
// every x with its index clamped into the table (a no-op for 0 < x < 1, where t < 1023), and
// x <= 0 and x >= 1 select 0 and 1 afterwards, as the CPU's early returns.
__device__ __forceinline__ float srgb_eotf(float x) {
  const float t = fmul(x, 1023.0f);
  int i = __float2int_rz(t);
  constexpr int kLast = int(kEotfLutSize) - 2;
  i = i < 0 ? 0 : (i > kLast ? kLast : i);
  const float f = fsub(t, __int2float_rn(i));
  const float a = __ldg(&g_eotf_lut[i]);
  const float b = __ldg(&g_eotf_lut[i + 1]);
  const float v = fadd(a, fmul(fsub(b, a), f));
  return x <= 0.0f ? 0.0f : (x >= 1.0f ? 1.0f : v);
}

__device__ __forceinline__ float clamp01(float v) { return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v); }

// srgb_eotf for the inputs the XYB kernel gives it: clamp01's results (and the R'G'B' samples
// times 1/peak), i.e. +-0, [0, 1] and NaN (session 14, VQX_SS2_XYB=fast). There t >= 0 (or
// NaN, which truncates to 0), so the index needs only its upper clamp, and the early returns are
// what the lookup gives anyway: the table starts with +0 and ends with 1.0f, x = +-0 gives
// lut[0] + (lut[1] - lut[0]) * +-0 = +0 and x = 1 gives lut[1022] + (lut[1023] - lut[1022]) = 1
// exactly (an exact difference of two neighbours, added back). eotf_mismatches() compares it with
// srgb_eotf on clamp01 of every f32 bit pattern.
__device__ __forceinline__ float srgb_eotf01(float x) {
  const float t = fmul(x, 1023.0f);
  int i = __float2int_rz(t);
  constexpr int kLast = int(kEotfLutSize) - 2;
  i = i > kLast ? kLast : i;
  const float f = fsub(t, __int2float_rn(i));
  const float a = __ldg(&g_eotf_lut[i]);
  const float b = __ldg(&g_eotf_lut[i + 1]);
  return fadd(a, fmul(fsub(b, a), f));
}

// 3.2's seed and two Newton steps, y = (2 y + x / (y * y)) / 3 (times the f32 third), with the
// division `div` (the correctly rounded one, or div_rn_seq where it is exact).
template <typename Div>
__device__ __forceinline__ float cbrt_newton(float x, Div div) {
  uint32_t u = __float_as_uint(x);
  u = u / 3u + 0x2a5137a0u;
  float y = __uint_as_float(u);
  const float third = 1.0f / 3.0f;
  y = fmul(fadd(fmul(2.0f, y), div(x, fmul(y, y))), third);
  y = fmul(fadd(fmul(2.0f, y), div(x, fmul(y, y))), third);
  return y;
}

// 3.2, with the correctly rounded division.
__device__ __forceinline__ float cbrt_approx(float x) {
  const float y = cbrt_newton(x, [](float a, float b) { return __fdiv_rn(a, b); });
  return x > 0.0f ? y : 0.0f;
}

// Session 14 (VQX_SS2_XYB=fast): section 3.2's division x / (y * y) written out as the fast path
// that __fdiv_rn compiles to on sm_90 (MUFU.RCP of b, one Newton step, the quotient and one
// residual correction, each FFMA rounded once), without __fdiv_rn's per-division range check
// (FCHK) and branch to its slow path. cbrt_approx_seq is cbrt_approx with both divisions so;
// cbrt_seq_exact(x) is the range where the caller uses it (2^-60 <= x <= 2^60: the seed y, y * y
// and the quotient stay far from overflow, underflow and denormals, where the library's fast path
// applies); elsewhere the caller takes cbrt_approx. cbrt_mismatches() compares the two on every
// one of the 2^32 f32 bit patterns on the device.
__device__ __forceinline__ float div_rn_seq(float a, float b) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(b));
  const float e = __fmaf_rn(-b, r, 1.0f);
  const float r1 = __fmaf_rn(r, e, r);
  const float q = __fmaf_rn(a, r1, 0.0f);
  const float res = __fmaf_rn(-b, q, a);
  return __fmaf_rn(r1, res, q);
}

__device__ __forceinline__ float cbrt_approx_seq(float x) {
  return cbrt_newton(x, [](float a, float b) { return div_rn_seq(a, b); });
}

__device__ __forceinline__ bool cbrt_seq_exact(float x) {
  // 0x21800000 = 2^-60, 0x5d800000 = 2^60 (positive only: the sign bit makes the difference huge).
  return __float_as_uint(x) - 0x21800000u <= 0x5d800000u - 0x21800000u;
}

// 3.3's opsin absorbance: (l, m, s) of one linear RGB pixel, bias added.
__device__ __forceinline__ float3 opsin_lms(float3 rgb) {
  const float r = rgb.x, g = rgb.y, b = rgb.z;
  const float l = fadd(fadd(fadd(fmul(kM00, r), fmul(kM01, g)), fmul(kM02, b)), kOpsinBias);
  const float m = fadd(fadd(fadd(fmul(kM10, r), fmul(kM11, g)), fmul(kM12, b)), kOpsinBias);
  const float s = fadd(fadd(fadd(fmul(kM20, r), fmul(kM21, g)), fmul(kM22, b)), kOpsinBias);
  return make_float3(l, m, s);
}

// 3.3 from the three cube roots: X', Y', B'.
__device__ __forceinline__ float3 xyb_from_roots(float cl, float cm, float cs, float cbrt_bias) {
  const float L = fsub(cl, cbrt_bias);
  const float M = fsub(cm, cbrt_bias);
  const float S = fsub(cs, cbrt_bias);
  const float X = fmul(0.5f, fsub(L, M));
  const float Y = fmul(0.5f, fadd(L, M));
  return make_float3(fadd(fmul(X, 14.0f), 0.42f), fadd(Y, 0.01f), fadd(fsub(S, Y), 0.55f));
}

// 3.3: one pixel to X', Y', B'.
__device__ __forceinline__ float3 xyb_pixel(float3 rgb, float cbrt_bias) {
  const float3 lms = opsin_lms(rgb);
  return xyb_from_roots(cbrt_approx(lms.x), cbrt_approx(lms.y), cbrt_approx(lms.z), cbrt_bias);
}

// xyb_pixel with the three cube roots by cbrt_approx_seq where it applies (all three in range:
// one branch per pixel instead of one per division). The same operations and order otherwise.
__device__ __forceinline__ float3 xyb_pixel_fast(float3 rgb, float cbrt_bias) {
  const float3 lms = opsin_lms(rgb);
  const float l = lms.x, m = lms.y, s = lms.z;
  float cl, cm, cs;
  if (cbrt_seq_exact(l) && cbrt_seq_exact(m) && cbrt_seq_exact(s)) {
    cl = cbrt_approx_seq(l);
    cm = cbrt_approx_seq(m);
    cs = cbrt_approx_seq(s);
  } else {
    cl = cbrt_approx(l);
    cm = cbrt_approx(m);
    cs = cbrt_approx(s);
  }
  return xyb_from_roots(cl, cm, cs, cbrt_bias);
}

// Section 7's f32 factors of one pixel: num_m, num_s and denom_s, as ssim_term().
struct SsimFactors {
  float num_m, num_s, denom_s;
};
__device__ __forceinline__ SsimFactors ssim_factors(float mu1, float mu2, float s11, float s22,
                                                    float s12) {
  const float mu11 = fmul(mu1, mu1), mu22 = fmul(mu2, mu2), mu12 = fmul(mu1, mu2);
  const float dm = fsub(mu1, mu2);
  const float num_m = fsub(1.0f, fmul(dm, dm));
  const float num_s = fadd(fmul(2.0f, fsub(s12, mu12)), kC2);
  const float denom_s = fadd(fadd(fsub(s11, mu11), fsub(s22, mu22)), kC2);
  return SsimFactors{num_m, num_s, denom_s};
}

// Section 7, as ssim_term().
__device__ __forceinline__ double ssim_term(float mu1, float mu2, float s11, float s22, float s12) {
  const SsimFactors f = ssim_factors(mu1, mu2, s11, s22, s12);
  const double q = __ddiv_rn(__dmul_rn(double(f.num_m), double(f.num_s)), double(f.denom_s));
  const double d = __dsub_rn(1.0, q);
  return d < 0.0 ? 0.0 : d;
}

// Section 8's operands of the division: (1 + e2) and (1 + e1), as the CPU's edge_ratio() (f64
// differences) or edge_ratio_f32_difference() (the fork's AVX2).
__device__ __forceinline__ void edge_operands(float img1, float mu1, float img2, float mu2,
                                              bool f32_difference, double& num, double& den) {
  double e1, e2;
  if (f32_difference) {
    float a = fsub(img1, mu1), b = fsub(img2, mu2);
    a = a < 0.0f ? -a : a;
    b = b < 0.0f ? -b : b;
    e1 = double(a);
    e2 = double(b);
  } else {
    e1 = __dsub_rn(double(img1), double(mu1));
    e2 = __dsub_rn(double(img2), double(mu2));
    e1 = e1 < 0.0 ? -e1 : e1;
    e2 = e2 < 0.0 ? -e2 : e2;
  }
  num = __dadd_rn(1.0, e2);
  den = __dadd_rn(1.0, e1);
}

// Section 8, as edge_ratio() (f64 differences) or edge_ratio_f32_difference() (the fork's AVX2).
__device__ __forceinline__ double edge_ratio(float img1, float mu1, float img2, float mu2,
                                             bool f32_difference) {
  double num, den;
  edge_operands(img1, mu1, img2, mu2, f32_difference, num, den);
  return __dsub_rn(__ddiv_rn(num, den), 1.0);
}

__device__ __forceinline__ double quartic(double v) {
  return __dmul_rn(__dmul_rn(v, v), __dmul_rn(v, v));
}

// ---- double-double accumulation (15.2) ---------------------------------------------------------

struct Dd {
  double hi, lo;
};

// Knuth's TwoSum: s + err == a + b exactly.
__device__ __forceinline__ void two_sum(double a, double b, double& s, double& err) {
  s = __dadd_rn(a, b);
  const double bb = __dsub_rn(s, a);
  err = __dadd_rn(__dsub_rn(a, __dsub_rn(s, bb)), __dsub_rn(b, bb));
}

__device__ __forceinline__ Dd dd_normalise(double s, double e) {
  const double hi = __dadd_rn(s, e);
  return Dd{hi, __dsub_rn(e, __dsub_rn(hi, s))};
}

__device__ __forceinline__ Dd dd_add(Dd x, double v) {
  double s, e;
  two_sum(x.hi, v, s, e);
  return dd_normalise(s, __dadd_rn(e, x.lo));
}

__device__ __forceinline__ Dd dd_add(Dd x, Dd y) {
  double s, e;
  two_sum(x.hi, y.hi, s, e);
  return dd_normalise(s, __dadd_rn(e, __dadd_rn(x.lo, y.lo)));
}

// ---- stage 1: linear RGB, XYB, downsample ------------------------------------------------------

struct YuvMatrixDev {
  float cr_r, cb_b, cb_g, cr_g, y_scale, c_scale, y_off, c_off;
};

// Where the samples of scale 0 are: the engine's frame copy (Picture layout).
struct FrameSource {
  const uint8_t* frame[2];        // ref, dis
  unsigned long long offset[3];   // plane offsets in bytes
  uint32_t pw, ph;                // chroma plane size
  float inv_peak;
  YuvMatrixDev m;
};

// 2.2: nearest chroma index.
__device__ __forceinline__ uint32_t chroma_index(uint32_t x, uint32_t plane_size, uint32_t luma_size) {
  uint32_t s;
  if (plane_size == luma_size) s = x;
  else if (2ull * plane_size == luma_size) s = x >> 1;
  else s = uint32_t((unsigned long long)x * plane_size / luma_size);
  return s < plane_size ? s : plane_size - 1;
}

enum class Source { kYuv8, kYuv16, kRgb8, kRgb16, kLinear };

// The pixel at luma index i (and chroma index ci, 2.2) of one image; the indices are formed once
// per pixel for both images by the caller.
template <Source kSource>
__device__ __forceinline__ float3 linear_pixel(const FrameSource& fs, const float* linear, size_t n,
                                               int image, uint32_t i, uint32_t ci) {
  if constexpr (kSource == Source::kLinear) {
    const float* base = linear + size_t(3 * image) * n;
    return make_float3(__ldg(base + i), __ldg(base + n + i), __ldg(base + 2 * n + i));
  } else {
    using Sample = std::conditional_t<kSource == Source::kYuv8 || kSource == Source::kRgb8,
                                      uint8_t, uint16_t>;
    const uint8_t* frame = fs.frame[image];
    const Sample* p0 = reinterpret_cast<const Sample*>(frame + fs.offset[0]);
    const Sample* p1 = reinterpret_cast<const Sample*>(frame + fs.offset[1]);
    const Sample* p2 = reinterpret_cast<const Sample*>(frame + fs.offset[2]);
    if constexpr (kSource == Source::kRgb8 || kSource == Source::kRgb16) {
      // Image mode (section 13): normalise and linearise, no matrix.
      return make_float3(srgb_eotf(fmul(__uint2float_rn(p0[i]), fs.inv_peak)),
                         srgb_eotf(fmul(__uint2float_rn(p1[i]), fs.inv_peak)),
                         srgb_eotf(fmul(__uint2float_rn(p2[i]), fs.inv_peak)));
    } else {
      const YuvMatrixDev& m = fs.m;
      const float Y = fmul(__uint2float_rn(p0[i]), fs.inv_peak);
      const float U = fmul(__uint2float_rn(p1[ci]), fs.inv_peak);
      const float V = fmul(__uint2float_rn(p2[ci]), fs.inv_peak);
      const float yn = fmul(fsub(Y, m.y_off), m.y_scale);
      const float un = fmul(fsub(U, m.c_off), m.c_scale);
      const float vn = fmul(fsub(V, m.c_off), m.c_scale);
      const float r = fadd(yn, fmul(m.cr_r, vn));
      const float g = fadd(fadd(yn, fmul(m.cb_g, un)), fmul(m.cr_g, vn));
      const float b = fadd(yn, fmul(m.cb_b, un));
      return make_float3(srgb_eotf(clamp01(r)), srgb_eotf(clamp01(g)), srgb_eotf(clamp01(b)));
    }
  }
}

// The 2x2 block (ox, oy) of the half-size grid: its two columns and rows (the last repeated for
// odd sizes, section 4) and, for Y'CbCr sources, their chroma indices (2.2; else left as given).
template <Source kSource>
__device__ __forceinline__ void block_indices(const FrameSource& fs, uint32_t w, uint32_t h,
                                              uint32_t ox, uint32_t oy, uint32_t (&col)[2],
                                              uint32_t (&row)[2], uint32_t (&ccol)[2],
                                              uint32_t (&crow)[2]) {
#pragma unroll
  for (int d = 0; d < 2; ++d) {
    const uint32_t px = 2 * ox + d, py = 2 * oy + d;
    col[d] = px < w ? px : w - 1;
    row[d] = py < h ? py : h - 1;
    if constexpr (kSource == Source::kYuv8 || kSource == Source::kYuv16) {
      ccol[d] = chroma_index(col[d], fs.pw, w);
      crow[d] = chroma_index(row[d], fs.ph, h);
    }
  }
}

// One thread per pixel of the half-size grid: its (up to) four source pixels, both images.
// The downsample adds in the order (0,0), (0,1), (1,0), (1,1) from 0.0f, with the last row and
// column repeated for odd sizes (section 4), then multiplies by 0.25f.
// kXyb false: only the downsample (the XYB of the pixels is not formed).
template <Source kSource, bool kXyb = true>
__global__ void __launch_bounds__(256)
xyb_down_kernel(FrameSource fs, const float* __restrict__ linear, uint32_t w, uint32_t h,
                float cbrt_bias, float* __restrict__ xyb, float* __restrict__ down, bool write_down,
                float* __restrict__ debug_linear, uint32_t oy0 = 0, uint32_t oy_end = UINT32_MAX) {
  // Row range (the strip schedule): rows [oy0, oy_end) of the half-size grid, i.e. image rows
  // [2 oy0, 2 oy_end); the grid's y dimension covers that range.
  const uint32_t ow = (w + 1) / 2, oh = (h + 1) / 2;
  const uint32_t ox = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t oy = oy0 + blockIdx.y * blockDim.y + threadIdx.y;
  if (ox >= ow || oy >= oh || oy >= oy_end) return;
  const size_t n = size_t(w) * h;
  float sum[2][3] = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}};
  uint32_t col[2], row[2], ccol[2] = {0, 0}, crow[2] = {0, 0};
  block_indices<kSource>(fs, w, h, ox, oy, col, row, ccol, crow);
#pragma unroll
  for (int dy = 0; dy < 2; ++dy) {
#pragma unroll
    for (int dx = 0; dx < 2; ++dx) {
      const uint32_t px = 2 * ox + dx, py = 2 * oy + dy;
      const bool owned = px < w && py < h;
      const uint32_t ix = col[dx], iy = row[dy];
      const uint32_t li = iy * w + ix;  // a plane holds fewer than 2^32 samples (init checks)
      const uint32_t ci = crow[dy] * fs.pw + ccol[dx];
      const size_t i = li;
#pragma unroll
      for (int image = 0; image < 2; ++image) {
        const float3 rgb = linear_pixel<kSource>(fs, linear, n, image, li, ci);
        sum[image][0] = fadd(sum[image][0], rgb.x);
        sum[image][1] = fadd(sum[image][1], rgb.y);
        sum[image][2] = fadd(sum[image][2], rgb.z);
        if (kXyb && owned) {
          const float3 p = xyb_pixel(rgb, cbrt_bias);
          float* out = xyb + size_t(3 * image) * n + i;
          out[0] = p.x;
          out[n] = p.y;
          out[2 * n] = p.z;
          if (debug_linear) {
            float* dl = debug_linear + size_t(3 * image) * n + i;
            dl[0] = rgb.x;
            dl[n] = rgb.y;
            dl[2 * n] = rgb.z;
          }
        }
      }
    }
  }
  if (write_down) {
    const size_t nn = size_t(ow) * oh, o = size_t(oy) * ow + ox;
#pragma unroll
    for (int p = 0; p < 6; ++p) down[size_t(p) * nn + o] = fmul(sum[p / 3][p % 3], 0.25f);
  }
}

// The sources of the fast XYB kernel (session 14): the same operations as linear_pixel, split
// so that a chroma sample's terms can be formed once for the pixels that share it, with the
// plane pointers formed once per thread, and srgb_eotf01 for srgb_eotf (the same bits on its
// inputs).
template <Source kSource>
struct FastSource {
  using Sample = std::conditional_t<kSource == Source::kYuv8 || kSource == Source::kRgb8, uint8_t,
                                    uint16_t>;
  const Sample* p[2][3];  // [image][plane]
  __device__ __forceinline__ explicit FastSource(const FrameSource& fs) {
#pragma unroll
    for (int image = 0; image < 2; ++image)
#pragma unroll
      for (int k = 0; k < 3; ++k) p[image][k] = reinterpret_cast<const Sample*>(fs.frame[image] + fs.offset[k]);
  }
  // Section 2's chroma terms of chroma sample ci: (U, V) normalised, offset and scaled.
  __device__ __forceinline__ float2 chroma(const FrameSource& fs, int image, uint32_t ci) const {
    const float U = fmul(__uint2float_rn(p[image][1][ci]), fs.inv_peak);
    const float V = fmul(__uint2float_rn(p[image][2][ci]), fs.inv_peak);
    return make_float2(fmul(fsub(U, fs.m.c_off), fs.m.c_scale), fmul(fsub(V, fs.m.c_off), fs.m.c_scale));
  }
  __device__ __forceinline__ float3 yuv(const FrameSource& fs, int image, uint32_t li, float2 uv) const {
    const YuvMatrixDev& m = fs.m;
    const float Y = fmul(__uint2float_rn(p[image][0][li]), fs.inv_peak);
    const float yn = fmul(fsub(Y, m.y_off), m.y_scale);
    const float un = uv.x, vn = uv.y;
    const float r = fadd(yn, fmul(m.cr_r, vn));
    const float g = fadd(fadd(yn, fmul(m.cb_g, un)), fmul(m.cr_g, vn));
    const float b = fadd(yn, fmul(m.cb_b, un));
    return make_float3(srgb_eotf01(clamp01(r)), srgb_eotf01(clamp01(g)), srgb_eotf01(clamp01(b)));
  }
  __device__ __forceinline__ float3 rgb(const FrameSource& fs, int image, uint32_t li) const {
    return make_float3(srgb_eotf01(fmul(__uint2float_rn(p[image][0][li]), fs.inv_peak)),
                       srgb_eotf01(fmul(__uint2float_rn(p[image][1][li]), fs.inv_peak)),
                       srgb_eotf01(fmul(__uint2float_rn(p[image][2][li]), fs.inv_peak)));
  }
};

// The 2x2 block of the fast XYB kernels (session 14; one function for both since session 16):
// thread (ox, oy) of the half-size grid, both images. The linear RGB of its (up to) four pixels
// (the last row and column repeated for odd sizes, section 4), the XYB of those inside the
// picture (xyb_pixel_fast; the debug path also stores their linear RGB), and the downsample into
// `down`: the four added in the order (0,0), (0,1), (1,0), (1,1) from 0.0f, times 0.25f. For
// Y'CbCr sources whose 2x2 block maps to ONE chroma sample (4:2:0 with even sizes, and the
// clamped edges) that sample's terms are formed once per image instead of four times (a
// warp-uniform branch in practice; other blocks take the per-pixel chroma). Where the XYB values
// go is the Out policy's: out.pixel(image, dx, dy, p) after each pixel (Out::kZeroOutside: p = +0
// outside the picture, else unset there), out.row(image, li, owned, p) after each row of one
// image. The caller checks that
// (ox, oy) lies inside the half-size grid.
template <Source kSource, bool kXyb, bool kDebug, typename Out>
__device__ __forceinline__ void xyb_block_fast(const FrameSource& fs, const float* __restrict__ linear,
                                               uint32_t w, uint32_t h, uint32_t ox, uint32_t oy,
                                               float cbrt_bias, float* __restrict__ down,
                                               bool write_down, float* __restrict__ debug_linear,
                                               Out& out) {
  constexpr bool kYuv = kSource == Source::kYuv8 || kSource == Source::kYuv16;
  const uint32_t ow = (w + 1) / 2, oh = (h + 1) / 2;
  const uint32_t n = w * h;  // fewer than 2^32 samples (Pipeline::init checks)
  float sum[2][3] = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}};
  uint32_t col[2], row[2], ccol[2] = {0, 0}, crow[2] = {0, 0};
  block_indices<kSource>(fs, w, h, ox, oy, col, row, ccol, crow);
  const FastSource<kSource> src(fs);
  auto pixels = [&](auto&& rgb_at) {
#pragma unroll
    for (int dy = 0; dy < 2; ++dy) {
      const bool in_row = 2 * oy + dy < h;
      const bool owned[2] = {in_row && 2 * ox < w, in_row && 2 * ox + 1 < w};
      const uint32_t li[2] = {row[dy] * w + col[0], row[dy] * w + col[1]};
#pragma unroll
      for (int image = 0; image < 2; ++image) {
        float3 p[2];
#pragma unroll
        for (int dx = 0; dx < 2; ++dx) {  // the downsample's order: (dy, 0), then (dy, 1)
          const float3 rgb = rgb_at(image, li[dx], dy, dx);
          sum[image][0] = fadd(sum[image][0], rgb.x);
          sum[image][1] = fadd(sum[image][1], rgb.y);
          sum[image][2] = fadd(sum[image][2], rgb.z);
          if constexpr (Out::kZeroOutside) p[dx] = make_float3(0.0f, 0.0f, 0.0f);
          if (kXyb && owned[dx]) {
            p[dx] = xyb_pixel_fast(rgb, cbrt_bias);
            if constexpr (kDebug) {
              float* dl = debug_linear + size_t(3 * image) * n + li[dx];
              dl[0] = rgb.x;
              dl[n] = rgb.y;
              dl[2 * size_t(n)] = rgb.z;
            }
          }
          out.pixel(image, dx, dy, p[dx]);
        }
        out.row(image, li, owned, p);
      }
    }
  };
  if constexpr (kYuv) {
    if (ccol[0] == ccol[1] && crow[0] == crow[1]) {
      const uint32_t ci = crow[0] * fs.pw + ccol[0];
      const float2 uv[2] = {src.chroma(fs, 0, ci), src.chroma(fs, 1, ci)};
      pixels([&](int image, uint32_t li, int, int) { return src.yuv(fs, image, li, uv[image]); });
    } else {
      pixels([&](int image, uint32_t li, int dy, int dx) {
        return src.yuv(fs, image, li, src.chroma(fs, image, crow[dy] * fs.pw + ccol[dx]));
      });
    }
  } else if constexpr (kSource == Source::kLinear) {
    pixels([&](int image, uint32_t li, int, int) {
      return linear_pixel<kSource>(fs, linear, n, image, li, 0);
    });
  } else {
    pixels([&](int image, uint32_t li, int, int) { return src.rgb(fs, image, li); });
  }
  if (write_down) {
    const uint32_t nn = ow * oh, o = oy * ow + ox;
#pragma unroll
    for (int p = 0; p < 6; ++p) down[size_t(p) * nn + o] = fmul(sum[p / 3][p % 3], 0.25f);
  }
}

// xyb_block_fast's stores into row-major XYB planes: a row's two pixels together (one float2 per
// plane, full sectors) when both are inside the picture and the width is even (the pair then
// starts at an even index), else one by one.
template <bool kXyb>
struct RowMajorXybOut {
  static constexpr bool kZeroOutside = false;  // only owned pixels are stored
  float* plane[2][3];  // [image][X, Y, B]
  bool pairs;
  __device__ __forceinline__ void pixel(int, int, int, const float3&) {}
  __device__ __forceinline__ void row(int image, const uint32_t (&li)[2], const bool (&owned)[2],
                                      const float3 (&p)[2]) {
    if constexpr (kXyb) {
      if (pairs && owned[1]) {  // owned[1] implies owned[0]
        *reinterpret_cast<float2*>(plane[image][0] + li[0]) = make_float2(p[0].x, p[1].x);
        *reinterpret_cast<float2*>(plane[image][1] + li[0]) = make_float2(p[0].y, p[1].y);
        *reinterpret_cast<float2*>(plane[image][2] + li[0]) = make_float2(p[0].z, p[1].z);
      } else {
#pragma unroll
        for (int dx = 0; dx < 2; ++dx) {
          if (owned[dx]) {
            plane[image][0][li[dx]] = p[dx].x;
            plane[image][1][li[dx]] = p[dx].y;
            plane[image][2][li[dx]] = p[dx].z;
          }
        }
      }
    }
  }
};

// xyb_down_kernel with fewer instructions, the same bits (VQX_SS2_XYB=fast): the cube roots by
// xyb_pixel_fast, the EOTF by srgb_eotf01, the plane pointers once per thread, a row's two XYB
// pixels stored as one float2, the debug stores compiled only into the kDebug kernel, 4:2:0
// chroma once per 2x2 block (xyb_block_fast).
template <Source kSource, bool kXyb = true, bool kDebug = false>
__global__ void __launch_bounds__(256)
xyb_down_fast_kernel(FrameSource fs, const float* __restrict__ linear, uint32_t w, uint32_t h,
                     float cbrt_bias, float* __restrict__ xyb, float* __restrict__ down,
                     bool write_down, float* __restrict__ debug_linear, uint32_t oy0 = 0,
                     uint32_t oy_end = UINT32_MAX) {
  // Row range (for a strip schedule): rows [oy0, oy_end) of the half-size grid, i.e. image rows
  // [2 oy0, 2 oy_end); the grid's y dimension covers that range (0, all: the whole picture).
  const uint32_t ow = (w + 1) / 2, oh = (h + 1) / 2;
  const uint32_t ox = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t oy = oy0 + blockIdx.y * blockDim.y + threadIdx.y;
  if (ox >= ow || oy >= oh || oy >= oy_end) return;
  const uint32_t n = w * h;
  RowMajorXybOut<kXyb> out;
#pragma unroll
  for (int k = 0; k < 6; ++k) out.plane[k / 3][k % 3] = xyb + size_t(k) * n;
  out.pairs = (w & 1) == 0;
  xyb_block_fast<kSource, kXyb, kDebug>(fs, linear, w, h, ox, oy, cbrt_bias, down, write_down,
                                        debug_linear, out);
}

// ---- stage 2: horizontal pass ------------------------------------------------------------------

// Section 6.2: one step of the three-pole recurrence; returns (o1 + o3) + o5.
struct Recurrence {
  float prev1[3] = {0.0f, 0.0f, 0.0f}, prev2[3] = {0.0f, 0.0f, 0.0f};
  __device__ __forceinline__ float step(const BlurCoef& c, float sum) {
    float o[3];
#pragma unroll
    for (int k = 0; k < 3; ++k) {
      o[k] = fsub(fsub(fmul(c.n2[k], sum), fmul(c.d1[k], prev1[k])), prev2[k]);
      prev2[k] = prev1[k];
      prev1[k] = o[k];
    }
    return fadd(fadd(o[0], o[1]), o[2]);
  }
};

// Register prefetch of one horizontal-pass tile of both images, shared by every row kernel:
// load unit e = tid + kThreads * m is kWidth floats of tile row e / kUnitsPerRow. Units outside
// the picture read zeros, and so does the second image when `second` is false.
template <bool kVec, int kThreads, int kLoads, int kWidth>
__device__ __forceinline__ void prefetch_tile(float (&next1)[kLoads][kWidth],
                                              float (&next2)[kLoads][kWidth],
                                              const float* __restrict__ img1,
                                              const float* __restrict__ img2, bool second, int tid,
                                              uint32_t y0, uint32_t rows, uint32_t w, uint32_t x0) {
  constexpr int kUnits = kTileElems / kWidth;
  constexpr int kUnitsPerRow = kTile / kWidth;
  static_assert(kWidth == (kVec ? 4 : 1) && kLoads == (kUnits + kThreads - 1) / kThreads);
#pragma unroll
  for (int m = 0; m < kLoads; ++m) {
    const int e = tid + m * kThreads;
    const int r = e / kUnitsPerRow, j = (e % kUnitsPerRow) * kWidth;
    const uint32_t x = x0 + j;
    // kVec: w % 4 == 0 and x % 4 == 0, so x < w means the whole quad is inside the row.
    const bool inside = e < kUnits && uint32_t(r) < rows && x < w;
    const size_t i = inside ? size_t(y0 + r) * w + x : 0;
    if constexpr (kVec) {
      const float4 a = inside ? __ldg(reinterpret_cast<const float4*>(img1 + i))
                              : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      const float4 b = inside && second ? __ldg(reinterpret_cast<const float4*>(img2 + i))
                                        : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      next1[m][0] = a.x, next1[m][1] = a.y, next1[m][2] = a.z, next1[m][3] = a.w;
      next2[m][0] = b.x, next2[m][1] = b.y, next2[m][2] = b.z, next2[m][3] = b.w;
    } else {
      next1[m][0] = inside ? __ldg(img1 + i) : 0.0f;
      next2[m][0] = inside && second ? __ldg(img2 + i) : 0.0f;
    }
  }
}

// The row-major horizontal pass (poles2, VQX_SS2_HBLUR=poles2 and the fallback for planes the
// transposed layout cannot index with 32 bits): one thread per line, plane AND pole. Section
// 6.2's three poles are independent second-order recurrences whose outputs are only added at the
// end of each step, (o1 + o3) + o5, so each chain runs on its own thread (15 warps per block of
// 32 lines: plane p = warp / 3, pole k = warp % 3).
constexpr int kPoleWarps = kBlurPlanes * 3;
constexpr int kPoleThreads = kLines * kPoleWarps;
constexpr int kTileRow = kTile + 1;                 // a padded tile row (floats)
constexpr int kTileSlot = kLines * kTileRow;        // one tile of one image (or one pole's outputs)

// The pole-split pass with the input sums formed once per tile (poles2, the default before
// session 15): section 6.2's sum in[t - 6] + in[t + 4] of each of the 5 planes (the products of
// section 5 formed on the fly, one f32 multiply as multiply_planes) is computed for the tile's 32 steps and 32 lines by
// the whole block into shared memory, so every pole thread's step is the same 6 instructions
// (load the sum, the pole's 4 operations, store o_k) whatever its plane: no warp waits at the
// barrier for slower planes, and one copy of the walk is in the instruction cache. Per tile t, two
// phases separated by barriers: (1) the 15 pole warps walk tile t from the sums; (2) the block
// adds (o1 + o3) + o5 of tile t and stores it, forms the sums of tile t + 1 from the input ring
// (3 tiles per image: t + 1, t for in[t - 6], and t + 2 being written from the registers that
// prefetched it), and prefetches tile t + 3. The operations and their order per line are exactly
// those of section 6.2's walk (Recurrence::step); only which thread forms which sum differs.
constexpr size_t kPoles2Smem = sizeof(float) * size_t(6 + kBlurPlanes + kPoleWarps) * kTileSlot;

// Row range and ring (the strip schedule, session 14; the interface of every horizontal kernel
// that takes part in it): the kernel processes image rows [row0, row0 + rows) (one block per 32
// of them), reads the XYB rows from the full planes as before, and writes output row y to ring
// row y % ring_rows of planes whose stride is ring_rows * w (ring_rows = h: the full planes; the
// defaults: every row, whole planes).
template <bool kVec>
__global__ void __launch_bounds__(kPoleThreads, 2)
blur_rows_poles2_kernel(const float* __restrict__ xyb, uint32_t w, uint32_t h, BlurCoef coef,
                        float* __restrict__ hblur, float* __restrict__ debug_products,
                        uint32_t row0 = 0, uint32_t row_count = UINT32_MAX,
                        uint32_t ring_rows = 0) {
  if (ring_rows == 0) ring_rows = h;  // the defaults: all rows, whole planes
  if (row_count > h - row0) row_count = h - row0;
  extern __shared__ float smem[];
  float* ring = smem;                        // [3 tiles][2 images][kLines][kTileRow]
  float* sums = smem + 6 * kTileSlot;        // [5 planes][kLines][kTileRow]
  float* pout = sums + kBlurPlanes * kTileSlot;  // [15 (plane, pole)][kLines][kTileRow]
  constexpr int kWidth = kVec ? 4 : 1;
  constexpr int kUnits = kTileElems / kWidth;
  constexpr int kLoads = (kUnits + kPoleThreads - 1) / kPoleThreads;
  constexpr int kUnitsPerRow = kTile / kWidth;
  constexpr int kSumsPer = (kTileElems + kPoleThreads - 1) / kPoleThreads;  // (line, step)s
  const size_t n = size_t(w) * h;
  const int c = blockIdx.y;
  const uint32_t y0 = row0 + blockIdx.x * kLines;
  const int lane = threadIdx.x, q = threadIdx.y, tid = q * kLines + lane;
  const int plane = q / 3, pole = q % 3;
  const float n2 = coef.n2[pole], d1 = coef.d1[pole];
  const uint32_t row_end = row0 + row_count;
  const uint32_t rows = row_end - y0 < uint32_t(kLines) ? row_end - y0 : uint32_t(kLines);
  // Output planes: ring rows (ring_rows >= 32 unless ring_rows = h < 32, where y0 = 0).
  const size_t nr = size_t(w) * ring_rows;
  const uint32_t ring0 = y0 % ring_rows;
  auto ring_row = [&](int r) {
    const uint32_t y = ring0 + uint32_t(r);
    return y >= ring_rows ? y - ring_rows : y;
  };
  const float* img1 = xyb + size_t(c) * n;
  const float* img2 = xyb + size_t(3 + c) * n;
  auto slot = [](int tile) { return (tile + 1) % 3; };  // tile -1 is the zero padding
  for (int i = tid; i < kTileElems; i += kPoleThreads) {
    const int r = i / kTile, j = i % kTile;
    ring[(2 * slot(-1)) * kTileSlot + r * kTileRow + j] = 0.0f;
    ring[(2 * slot(-1) + 1) * kTileSlot + r * kTileRow + j] = 0.0f;
  }
  float next1[kLoads][kWidth], next2[kLoads][kWidth];
  auto fetch = [&](uint32_t x0) {
    prefetch_tile<kVec, kPoleThreads>(next1, next2, img1, img2, true, tid, y0, rows, w, x0);
  };
  // The prefetched tile into its ring slot (and, debug only, the products of its samples).
  auto store_tile = [&](int tile, int sl) {
    const uint32_t x0 = uint32_t(tile) * kTile;
    float* t1 = ring + (2 * sl) * kTileSlot;
    float* t2 = t1 + kTileSlot;
#pragma unroll
    for (int m = 0; m < kLoads; ++m) {
      const int e = tid + m * kPoleThreads;
      if (e < kUnits) {
        const int r = e / kUnitsPerRow, j = (e % kUnitsPerRow) * kWidth;
#pragma unroll
        for (int qq = 0; qq < kWidth; ++qq) {
          t1[r * kTileRow + j + qq] = next1[m][qq];
          t2[r * kTileRow + j + qq] = next2[m][qq];
        }
        if (debug_products) {
#pragma unroll
          for (int qq = 0; qq < kWidth; ++qq) {
            const uint32_t x = x0 + j + qq;
            if (uint32_t(r) < rows && x < w) {
              const size_t i = size_t(y0 + r) * w + x;
              float* p = debug_products + size_t(3 * c) * n + i;
              p[0] = fmul(next1[m][qq], next1[m][qq]);
              p[n] = fmul(next2[m][qq], next2[m][qq]);
              p[2 * n] = fmul(next1[m][qq], next2[m][qq]);
            }
          }
        }
      }
    }
  };
  // Section 6.2's sums of the 5 planes for tile `tile` (steps t = 32 tile - 4 + j): a = in[t - 6]
  // is column j - 10 of this tile or j + 22 of the previous one, b = in[t + 4] column j.
  auto form_sums = [&](int cur, int prev) {  // the slots of the tile and of the one before
    const float* c1 = ring + (2 * cur) * kTileSlot;
    const float* c2 = c1 + kTileSlot;
    const float* p1 = ring + (2 * prev) * kTileSlot;
    const float* p2 = p1 + kTileSlot;
#pragma unroll
    for (int m = 0; m < kSumsPer; ++m) {
      const int e = tid + m * kPoleThreads;
      if (e < kTileElems) {
        const int r = e / kTile, j = e % kTile;
        const int ib = r * kTileRow + j;
        const int ia = j >= 10 ? ib - 10 : ib + kTile - 10;
        const float b1 = c1[ib], b2 = c2[ib];
        const float a1 = j >= 10 ? c1[ia] : p1[ia], a2 = j >= 10 ? c2[ia] : p2[ia];
        float* s = sums + ib;
        s[0] = fadd(a1, b1);                                      // mu1
        s[kTileSlot] = fadd(a2, b2);                              // mu2
        s[2 * kTileSlot] = fadd(fmul(a1, a1), fmul(b1, b1));      // s11
        s[3 * kTileSlot] = fadd(fmul(a2, a2), fmul(b2, b2));      // s22
        s[4 * kTileSlot] = fadd(fmul(a1, a2), fmul(b1, b2));      // s12
      }
    }
  };
  // The thread's share of the combine, the same positions in every tile: quad/column jj of row r
  // of plane p (kStores of them), its pole outputs in shared memory and its output row in global
  // memory, computed once (kVec only: 3 quads per thread; the scalar path keeps the plain loop).
  constexpr int kStores = !kVec ? 1 : (kBlurPlanes * kUnits + kPoleThreads - 1) / kPoleThreads;
  int st_smem[kStores], st_col[kStores];
  float* st_row[kStores];
#pragma unroll
  for (int m = 0; m < kStores; ++m) {
    const int e = tid + m * kPoleThreads;
    const int p = e / kUnits;
    const int r = (e / kUnitsPerRow) % kLines, j = (e % kUnitsPerRow) * kWidth;
    const bool live = e < kBlurPlanes * kUnits && uint32_t(r) < rows;
    st_smem[m] = 3 * p * kTileSlot + r * kTileRow + j;
    st_col[m] = live ? j - 4 : INT32_MIN / 2;
    st_row[m] = live ? hblur + size_t(c * kBlurPlanes + p) * nr + size_t(ring_row(r)) * w : hblur;
  }
  const int tiles = int((long(w) + 4 + kTile - 1) / kTile);
  fetch(0);
  store_tile(0, slot(0));
  if (tiles > 1) fetch(kTile);
  __syncthreads();
  form_sums(slot(0), slot(-1));
  if (tiles > 1) store_tile(1, slot(1));
  if (tiles > 2) fetch(2 * kTile);
  __syncthreads();
  int s_prev = slot(-1), s_cur = slot(0), s_next = slot(1);  // slots of tiles t - 1, t, t + 1
  float prev1 = 0.0f, prev2 = 0.0f;
  const float* my_sums = sums + plane * kTileSlot + lane * kTileRow;
  float* out_row = pout + q * kTileSlot + lane * kTileRow;
  for (int tile = 0; tile < tiles; ++tile) {
    const long t0 = long(tile) * kTile - 4;
    const int steps = long(w) - t0 < kTile ? int(long(w) - t0) : kTile;  // > 0 by `tiles`
    // Phase 1: this thread's pole over the tile's steps.
    auto step = [&](float sum) {
      const float o = fsub(fsub(fmul(n2, sum), fmul(d1, prev1)), prev2);
      prev2 = prev1;
      prev1 = o;
      return o;
    };
    if (steps == kTile) {
#pragma unroll
      for (int j0 = 0; j0 < kTile; j0 += 16) {
        float s[16];
#pragma unroll
        for (int j = 0; j < 16; ++j) s[j] = my_sums[j0 + j];
#pragma unroll
        for (int j = 0; j < 16; ++j) out_row[j0 + j] = step(s[j]);
      }
    } else {
      for (int j = 0; j < steps; ++j) out_row[j] = step(my_sums[j]);
    }
    __syncthreads();
    // Phase 2: outputs of this tile, sums of the next, the ring and the prefetch.
    if constexpr (kVec) {
#pragma unroll
      for (int m = 0; m < kStores; ++m) {
        const long t = long(tile) * kTile + st_col[m];
        if (t >= 0 && t < long(w)) {
          const float* o = pout + st_smem[m];
          float v[4];
#pragma unroll
          for (int qq = 0; qq < 4; ++qq)
            v[qq] = fadd(fadd(o[qq], o[kTileSlot + qq]), o[2 * kTileSlot + qq]);
          *reinterpret_cast<float4*>(st_row[m] + t) = make_float4(v[0], v[1], v[2], v[3]);
        }
      }
    } else {
      for (int e = tid; e < kBlurPlanes * kUnits; e += kPoleThreads) {
        const int p = e / kUnits;
        const int r = (e / kUnitsPerRow) % kLines, j = e % kUnitsPerRow;
        const long t = t0 + j;
        if (uint32_t(r) < rows && t >= 0 && t < long(w)) {
          const float* o = pout + 3 * p * kTileSlot + r * kTileRow + j;
          hblur[size_t(c * kBlurPlanes + p) * nr + size_t(ring_row(r)) * w + size_t(t)] =
              fadd(fadd(o[0], o[kTileSlot]), o[2 * kTileSlot]);
        }
      }
    }
    // Slot of tile t + 2 = slot of tile t - 1 (read last by the sums of tile t).
    if (tile + 1 < tiles) form_sums(s_next, s_cur);
    if (tile + 2 < tiles) store_tile(tile + 2, s_prev);
    if (tile + 3 < tiles) fetch(uint32_t(tile + 3) * kTile);
    const int s_free = s_prev;
    s_prev = s_cur;
    s_cur = s_next;
    s_next = s_free;
    __syncthreads();
  }
}

// ---- session 15: transposed XYB planes and the horizontal pass on them ------------------------

#include "metrics/ssimulacra2/cuda/ssimulacra2_transposed.cuh"

// ---- stage 3: vertical pass, per-pixel terms, block sums ---------------------------------------

// A pixel's terms added to the thread's six sums (S1, S4, A1, A4, D1, D4), in this order.
__device__ __forceinline__ void add_terms(double (&acc)[kSums], double d, double art, double det) {
  acc[0] = __dadd_rn(acc[0], d);
  acc[1] = __dadd_rn(acc[1], quartic(d));
  acc[2] = __dadd_rn(acc[2], art);
  acc[3] = __dadd_rn(acc[3], quartic(art));
  acc[4] = __dadd_rn(acc[4], det);
  acc[5] = __dadd_rn(acc[5], quartic(det));
}

// The block's partials of a vertical/terms kernel: thread s adds the 160 threads' sums of
// accumulator s in thread order, in double-double (exact up to the final rounding in the reduce
// kernel), into the block's slot of channel c. block_sums: [kSums][kBlockThreads] of shared memory.
__device__ __forceinline__ void block_partials(const double (&acc)[kSums],
                                               double (*block_sums)[kBlockThreads], int tid, int c,
                                               Dd* __restrict__ partials) {
#pragma unroll
  for (int s = 0; s < kSums; ++s) block_sums[s][tid] = acc[s];
  __syncthreads();
  if (tid < kSums) {
    Dd total{block_sums[tid][0], 0.0};
    for (int i = 1; i < kBlockThreads; ++i) total = dd_add(total, block_sums[tid][i]);
    partials[(size_t(c) * gridDim.x + blockIdx.x) * kSums + tid] = total;
  }
}

// Block (32 columns, 5 planes) x grid (column strips, 3 channels). Thread (lane, k) walks column
// x of plane k, 20 rows per step: it loads the 20 inputs in[t + 4] at once, takes in[t - 6] from
// the previous 10 (registers), writes the 20 outputs to shared memory. Then each thread forms the
// terms of 4 pixels of those 20 rows (rows k, k + 5, ...) from the five blurred values and the
// XYB samples, and adds them to its own plain f64 sums, in row order (15.2's "each thread sums a
// fixed slice sequentially"; at most ceil(h / 5) <= 432 terms at 4K, all >= 0, so the relative
// error of a thread's sum is below 432 * 2^-53 = 5e-14). The block then adds its 160 threads'
// sums in double-double, in thread order. The partition of pixels to threads, and the order
// within each thread and across threads, depend only on the plane size.
// kMinBlocks: 1 lets the compiler take the registers it wants (96); 5 caps them at 80 so that
// five blocks (25 warps) fit an SM (VQX_SS2_VBLUR=regs80, for timing; same code, same bits).
// kFast (VQX_SS2_VBLUR=fast): the terms of a thread's 4 pixels of the chunk formed together
// (kBatch = 2 with 96 registers: two at a time, 4 blocks per SM; VQX_SS2_VBLUR=fast2)
// without branches (div_rn_fast, __ddiv_rn only where it does not apply; rows outside the plane
// add +0.0, which leaves a non-negative sum's bits unchanged), with 32-bit pixel indices.
// kStrip (the strip schedule, session 14): one launch walks only the chunks y0 in
// [strip.y_begin, strip.y_end) (chunk bases -20 + 20 j, the full-frame kernel's grid) and reads
// the horizontal-pass rows from a ring of strip.ring_rows rows (image row y at ring row
// y % ring_rows; plane stride ring_rows * w). Everything a thread carries from one chunk to the
// next (the three poles' recurrence state, the last 10 inputs, its six f64 accumulators) is
// loaded from strip.fstate / dstate at the start of a launch and stored at its end, so every
// column's operations and every accumulator's order of additions are those of one full-frame
// launch; the last strip adds the block's threads as the full-frame kernel does.
struct VStrip {
  int y_begin = -kChunkRows, y_end = 0;  // chunk bases y0 of this launch: y_begin <= y0 < y_end
  uint32_t ring_rows = 0;                // rows of the horizontal-pass planes
  float* fstate = nullptr;               // [16][threads]: prev1[3], prev2[3], prev_b[10]
  double* dstate = nullptr;              // [kSums][threads]
  bool first = true, last = true;        // load the state (!first); block sums (last)
};
constexpr int kStripFloats = 16;

// kXybT (session 15, with the transposed XYB planes): the XYB samples of the terms are read at
// x * xyb_rows_t + y of planes xyb_plane floats apart (ssimulacra2_transposed.cuh).
template <int kMinBlocks, bool kFast = false, int kBatch = kTermRows, bool kStrip = false,
          bool kXybT = false>
__global__ void __launch_bounds__(kBlockThreads, kMinBlocks)
blur_columns_terms_kernel(const float* __restrict__ hblur, const float* __restrict__ xyb,
                          uint32_t w, uint32_t h, BlurCoef coef, size_t f32_end,
                          Dd* __restrict__ partials, float* __restrict__ debug_vblur,
                          double* __restrict__ debug_terms, VStrip strip = VStrip{},
                          uint32_t xyb_rows_t = 0, size_t xyb_plane = 0) {
  __shared__ float blurred[kBlurPlanes][kChunkRows][kLines];
  __shared__ double block_sums[kSums][kBlockThreads];
  static_assert(!kStrip || kFast, "the strip schedule runs the fast terms kernel only");
  const size_t n = size_t(w) * h;
  const int c = blockIdx.y;
  const int lane = threadIdx.x, k = threadIdx.y, tid = k * kLines + lane;
  const uint32_t x = blockIdx.x * kLines + lane;
  const bool valid = x < w;
  const uint32_t ring = kStrip ? strip.ring_rows : h;  // rows of a horizontal-pass plane
  const float* src = hblur + size_t(c * kBlurPlanes + k) * (size_t(w) * ring) + (valid ? x : 0);
  static_assert(!kXybT || kFast, "the transposed XYB planes go with the fast terms");
  const size_t xplane = kXybT ? xyb_plane : n;
  const float* img1 = xyb + size_t(c) * xplane;
  const float* img2 = xyb + size_t(3 + c) * xplane;
  const long len = long(h);
  const long y_begin = kStrip ? long(strip.y_begin) : -long(kChunkRows);
  const long y_end = kStrip ? long(strip.y_end) : len;
  // The thread's slot in the strip state (coalesced across the warp), formed where it is used.
  auto state_threads = [&] { return gridDim.x * gridDim.y * uint32_t(kBlockThreads); };
  auto state_at = [&] { return (uint32_t(c) * gridDim.x + blockIdx.x) * kBlockThreads + tid; };

  if constexpr (kFast) {  // rows outside the plane are read (and their terms dropped): finite
    for (int i = tid; i < kBlurPlanes * kChunkRows * kLines; i += kBlockThreads)
      (&blurred[0][0][0])[i] = 0.0f;
    __syncthreads();
  }
  Recurrence rec;
  double acc[kSums];
#pragma unroll
  for (int s = 0; s < kSums; ++s) acc[s] = 0.0;
  float prev_b[10];  // in[t + 4] of the previous chunk's last 10 steps = in[t - 6] of this one's
#pragma unroll
  for (int i = 0; i < 10; ++i) prev_b[i] = 0.0f;
  if constexpr (kStrip) {
    if (!strip.first) {
      const uint32_t st = state_threads();
      const float* f = strip.fstate + state_at();
      const double* d = strip.dstate + state_at();
#pragma unroll
      for (int p = 0; p < 3; ++p) {
        rec.prev1[p] = f[p * st];
        rec.prev2[p] = f[(3 + p) * st];
      }
#pragma unroll
      for (int i = 0; i < 10; ++i) prev_b[i] = f[(6 + i) * st];
#pragma unroll
      for (int s = 0; s < kSums; ++s) acc[s] = d[s * st];
    }
  }

  // Chunk base y0 = -20 holds the warm-up steps t = -4 ... -1 (spec 6.2 starts at t = -N + 1).
  // The next chunk's inputs are loaded into registers while this one is walked.
  float b_next[kChunkRows];
  auto fetch = [&](long y0) {
    if constexpr (kFast) {  // rows wholly inside the plane (all but the first and last chunks)
      const long r0 = y0 + 4;
      if (valid && r0 >= 0 && r0 + kChunkRows <= len) {
        if constexpr (kStrip) {  // ring row r0 % ring, wrapping to ring row 0
          uint32_t rr = uint32_t(r0) % ring;
#pragma unroll
          for (int i = 0; i < kChunkRows; ++i) {
            b_next[i] = __ldg(src + rr * w);
            rr = rr + 1 == ring ? 0u : rr + 1;
          }
        } else {
          const float* p = src + size_t(r0) * w;
#pragma unroll
          for (int i = 0; i < kChunkRows; ++i, p += w) b_next[i] = __ldg(p);
        }
        return;
      }
    }
#pragma unroll
    for (int i = 0; i < kChunkRows; ++i) {
      const long row = y0 + i + 4;
      b_next[i] = valid && row >= 0 && row < len ? __ldg(src + size_t(kStrip ? row % long(ring) : row) * w) : 0.0f;
    }
  };
  fetch(y_begin);
  for (long y0 = y_begin; y0 < y_end; y0 += kChunkRows) {
    float b[kChunkRows];
#pragma unroll
    for (int i = 0; i < kChunkRows; ++i) b[i] = b_next[i];
    // kFast: the XYB samples of this chunk's terms are loaded now, so that their latency passes
    // during the walk instead of stalling the terms.
    float pre1[kTermRows], pre2[kTermRows];
    if constexpr (kFast) {
#pragma unroll
      for (int m = 0; m < kTermRows; ++m) {
        const long y = y0 + k + kBlurPlanes * m;
        const bool in = valid && y >= 0 && y < len;
        const uint32_t p = !in ? 0u : kXybT ? blocked_index(x, uint32_t(y), xyb_rows_t) : uint32_t(y) * w + x;
        pre1[m] = __ldg(img1 + p);
        pre2[m] = __ldg(img2 + p);
      }
    }
    if (y0 + kChunkRows < y_end) fetch(y0 + kChunkRows);
    if constexpr (kFast) {
      // Every row of the chunk steps, without the range test: the steps before t = -4 see zero
      // inputs and zero state, and their o = ((n2 * +0) - (d1 * +0)) - +0 is +0 for each pole
      // (d1 < 0, and -0 - -0 = +0), so the state stays exactly +0 as if they had not run; the
      // steps after t = h - 1 only follow the last output. Their rows' terms are dropped.
      auto walk = [&](auto debug) {
#pragma unroll
        for (int i = 0; i < kChunkRows; ++i) {
          const float a = i < 10 ? prev_b[i] : b[i - 10];
          const float o = rec.step(coef, fadd(a, b[i]));
          blurred[k][i][lane] = o;
          if constexpr (decltype(debug)::value) {
            const long t = y0 + i;
            if (valid && t >= 0 && t < len)
              debug_vblur[size_t(c * kBlurPlanes + k) * n + size_t(t) * w + x] = o;
          }
        }
      };
      if (debug_vblur) walk(std::true_type{});
      else walk(std::false_type{});
    } else {
#pragma unroll
    for (int i = 0; i < kChunkRows; ++i) {
      const long t = y0 + i;
      const float a = i < 10 ? prev_b[i] : b[i - 10];
      if (t >= -kBlurRadius + 1 && t < len) {
        const float o = rec.step(coef, fadd(a, b[i]));
        blurred[k][i][lane] = o;
        if (debug_vblur && valid && t >= 0)
          debug_vblur[size_t(c * kBlurPlanes + k) * n + size_t(t) * w + x] = o;
      }
    }
    }
#pragma unroll
    for (int i = 0; i < 10; ++i) prev_b[i] = b[i + 10];
    __syncthreads();
    if constexpr (kFast) {
#pragma unroll
     for (int m0 = 0; m0 < kTermRows; m0 += kBatch) {
      double sa[kBatch], sb[kBatch], sq[kBatch], ea[kBatch], eb[kBatch],
          eq[kBatch];
      bool sfast[kBatch], efast[kBatch], ok[kBatch];
      uint32_t pix[kBatch];
#pragma unroll
      for (int m = 0; m < kBatch; ++m) {
        const int i = k + kBlurPlanes * (m0 + m);
        const long y = y0 + i;
        ok[m] = valid && y >= 0 && y < len;
        pix[m] = ok[m] ? uint32_t(y) * w + x : 0u;
        const float mu1 = blurred[0][i][lane], mu2 = blurred[1][i][lane];
        // Section 7, as ssim_term().
        const SsimFactors f =
            ssim_factors(mu1, mu2, blurred[2][i][lane], blurred[3][i][lane], blurred[4][i][lane]);
        sa[m] = __dmul_rn(double(f.num_m), double(f.num_s));
        sb[m] = double(f.denom_s);
        sq[m] = div_rn_fast(sa[m], sb[m], sfast[m]);
        edge_operands(pre1[m0 + m], mu1, pre2[m0 + m], mu2, pix[m] < f32_end,
                      ea[m], eb[m]);
        eq[m] = div_rn_fast(ea[m], eb[m], efast[m]);
      }
#pragma unroll
      for (int m = 0; m < kBatch; ++m) {
        if (!sfast[m]) sq[m] = __ddiv_rn(sa[m], sb[m]);
        if (!efast[m]) eq[m] = __ddiv_rn(ea[m], eb[m]);
      }
#pragma unroll
      for (int m = 0; m < kBatch; ++m) {
        double d = __dsub_rn(1.0, sq[m]);
        d = d < 0.0 ? 0.0 : d;
        const double r = __dsub_rn(eq[m], 1.0);
        double art = r > 0.0 ? r : 0.0;
        double det = r < 0.0 ? -r : 0.0;
        if (!ok[m]) d = art = det = 0.0;
        add_terms(acc, d, art, det);
        if (debug_terms && ok[m]) {
          double* dt = debug_terms + size_t(3 * c) * n + pix[m];
          dt[0] = d;
          dt[n] = art;
          dt[2 * n] = det;
        }
      }
     }
    } else {
#pragma unroll
    for (int m = 0; m < kTermRows; ++m) {
      const int i = k + kBlurPlanes * m;
      const long y = y0 + i;
      if (valid && y >= 0 && y < len) {
        const size_t p = size_t(y) * w + x;
        const float mu1 = blurred[0][i][lane], mu2 = blurred[1][i][lane];
        const double d = ssim_term(mu1, mu2, blurred[2][i][lane], blurred[3][i][lane],
                                   blurred[4][i][lane]);
        const double r = edge_ratio(__ldg(img1 + p), mu1, __ldg(img2 + p), mu2, p < f32_end);
        const double art = r > 0.0 ? r : 0.0;
        const double det = r < 0.0 ? -r : 0.0;
        add_terms(acc, d, art, det);
        if (debug_terms) {
          double* dt = debug_terms + size_t(3 * c) * n + p;
          dt[0] = d;
          dt[n] = art;
          dt[2 * n] = det;
        }
      }
    }
    }
    __syncthreads();
  }
  if constexpr (kStrip) {
    if (!strip.last) {  // the state for the next strip's launch
      const uint32_t st = state_threads();
      float* f = strip.fstate + state_at();
      double* d = strip.dstate + state_at();
#pragma unroll
      for (int p = 0; p < 3; ++p) {
        f[p * st] = rec.prev1[p];
        f[(3 + p) * st] = rec.prev2[p];
      }
#pragma unroll
      for (int i = 0; i < 10; ++i) f[(6 + i) * st] = prev_b[i];
#pragma unroll
      for (int s = 0; s < kSums; ++s) d[s * st] = acc[s];
      return;
    }
  }
  block_partials(acc, block_sums, tid, c, partials);
}

// ---- stage 3, session 15 (leanp, the default): the fast terms with fewer instructions ---------
//
// blur_columns_terms_pipe_kernel keeps the partition, walk, chunks and sums' tree of
// blur_columns_terms_kernel<3, true> (every column's recurrence steps and every accumulator's
// additions are the same operations in the same order); the terms of a pixel are formed with
// fewer instructions:
// - One range test per pixel instead of three per division: both divisions take div_rn_fast's
//   sequence (its own range tests unused, so the compiler drops them) when
//   z = (num_m * num_s) * (denom_s * (1 + (|e1| + |e2|))) (f32) is finite and nonzero. Then
//   num_m, num_s, denom_s are finite and nonzero and the f32 differences e1, e2 finite, so
//   |num_m * num_s| (exact in f64) lies in [2^-298, 2^256], |denom_s| in [2^-149, 2^128], the
//   quotient in [2^-426, 2^405]; the edge operands 1 + e lie in [1, 2^129] and their quotient in
//   [2^-129, 2^129]: all inside div_rn_fast's range (a >= 2^-967, b, q >= 2^-1000, all < 2^900),
//   where its sequence is __ddiv_rn's result. A product that under- or overflows only sends a
//   chunk's pixels to __ddiv_rn. One branch per chunk.
// - |e| as fabsf: a < 0 ? -a : a differs from it only for -0 (and a NaN's sign), and
//   1 + double(+-0) = 1 either way.
// - The clamps as predicated additions: art = max(r, 0) added to a sum adds +0 when r <= 0, which
//   leaves the (non-negative, never -0) sum's bits unchanged; likewise d < 0 and rows outside the
//   plane. quartic(det) = quartic(-r) = quartic(r) bit for bit ((-r) * (-r) == r * r), so one
//   quartic(r) serves both edge sums.
// - The f64 edge differences (kFloatGroupsOf8's last n % 8 pixels, kDouble's every pixel) in a
//   branch taken only by threads that hold such a pixel in the chunk: there the edge ratio is
//   formed again with the f64 differences and __ddiv_rn.
// - 32-bit row and pixel indices (the dispatch takes it for planes of fewer than 2^32 pixels).
// The XYB samples of the terms are read through XybColumn only (the XYB planes' layout lives
// there): kXybT = false, row-major planes of w floats per row; true, the blocked transposed planes
// of ssimulacra2_transposed.cuh (element (x, y) at blocked_index(x, y, rows_t)).
template <bool kXybT>
struct XybColumn {
  const char* base;    // the column's sample in row 0
  uint32_t row_bytes;  // row-major: from one row's sample to the next
  __device__ __forceinline__ float at(uint32_t y) const {
    if constexpr (kXybT) {  // blocked_index(x, y, rows_t) - blocked_index(x, 0, rows_t)
      const uint32_t off = (y & ~31u) * 31u + y;  // (y / 32) * 1024 + y % 32
      return __ldg(reinterpret_cast<const float*>(base + uint64_t(off) * sizeof(float)));
    } else {
      return __ldg(reinterpret_cast<const float*>(base + uint64_t(y) * row_bytes));
    }
  }
};
// Column x (< w) of a w x h plane (rows_t: the transposed plane's rows).
template <bool kXybT>
__device__ __forceinline__ XybColumn<kXybT> xyb_column(const float* plane, uint32_t x, uint32_t w,
                                                       uint32_t rows_t) {
  if constexpr (kXybT)
    return XybColumn<kXybT>{reinterpret_cast<const char*>(plane + blocked_index(x, 0, rows_t)), 0u};
  else
    return XybColumn<kXybT>{reinterpret_cast<const char*>(plane + x), w * uint32_t(sizeof(float))};
}

// cp.async helpers of the pipelined kernel (inputs and, with kXybT, the XYB samples).
__device__ __forceinline__ void cp_async4(float* smem, const float* gmem, uint32_t bytes) {
  const uint32_t dst = uint32_t(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(gmem), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }
__device__ __forceinline__ void cp_async_wait_group1() { asm volatile("cp.async.wait_group 1;\n" ::: "memory"); }
__device__ __forceinline__ void cp_async16(float* smem, const float* gmem, uint32_t bytes) {
  const uint32_t dst = uint32_t(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem), "r"(bytes)
               : "memory");
}

// Session 15, VQX_SS2_VBLUR=leanp (the default): software-pipelined. Iteration j forms the terms
// of chunk j (from one shared buffer) and walks chunk j + 1 (into the other) in one branch-free
// stretch of code, so that the walk's f32 recurrence chains and the terms' f64 division chains
// interleave in each thread; one barrier per chunk: the walk of chunk j + 2 writes the buffer
// that the terms of chunk j read, and every thread has finished those terms before it passed the
// barrier of chunk j + 1. The inputs come by cp.async into the thread's own shared slots
// (zero-filled outside the plane), the XYB samples of chunk j + 1 are loaded during iteration j.
// After the last chunk the walk runs once more on stale (finite) inputs and its outputs are never
// read. kDebug: also the debug planes.
template <int kMinBlocks, bool kDebug, bool kXybT = false>
__global__ void __launch_bounds__(kBlockThreads, kMinBlocks)
blur_columns_terms_pipe_kernel(const float* __restrict__ hblur, const float* __restrict__ xyb,
                               uint32_t w, uint32_t h, BlurCoef coef, uint32_t f32_end,
                               Dd* __restrict__ partials, float* __restrict__ debug_vblur,
                               double* __restrict__ debug_terms, uint32_t xyb_rows_t,
                               size_t xyb_plane) {
  __shared__ __align__(16) float blurred_buf[2][kBlurPlanes][kChunkRows][kLines];
  __shared__ __align__(16) float inbuf[kBlurPlanes][kChunkRows][kLines];
  // kXybT: the XYB samples of a chunk (2 planes x 5 quads of rows x 32 columns x 4 rows), copied
  // coalesced by the block (one 16-byte cp.async per thread and plane: a quad of rows of one
  // column is contiguous in the blocked layout), two buffers.
  __shared__ __align__(16) float xs[kXybT ? 2 : 1][2][kChunkRows / 4][kLines][4];
  // The block sums reuse the walk's buffers after the last chunk (48 KB of static shared memory).
  double (*block_sums)[kBlockThreads] = reinterpret_cast<double (*)[kBlockThreads]>(&blurred_buf[0][0][0][0]);
  static_assert(sizeof(double) * kSums * kBlockThreads <= sizeof(float) * 2 * kBlurPlanes * kChunkRows * kLines);
  const uint32_t n = w * h;
  const int c = blockIdx.y;
  const int lane = threadIdx.x, k = threadIdx.y, tid = k * kLines + lane;
  const uint32_t x = blockIdx.x * kLines + lane;
  const bool valid = x < w;
  const float* src = hblur + size_t(c * kBlurPlanes + k) * n + (valid ? x : 0u);
  const size_t xplane = kXybT ? xyb_plane : size_t(n);
  const auto col1 = xyb_column<kXybT>(xyb + size_t(c) * xplane, valid ? x : 0u, w, xyb_rows_t);
  const auto col2 = xyb_column<kXybT>(xyb + size_t(3 + c) * xplane, valid ? x : 0u, w, xyb_rows_t);
  const int len = int(h);

  // (No zero fill: every walk writes all rows of its buffer before the terms read any.)
  Recurrence rec;
  double acc[kSums];
#pragma unroll
  for (int s = 0; s < kSums; ++s) acc[s] = 0.0;
  float prev_b[10];
#pragma unroll
  for (int i = 0; i < 10; ++i) prev_b[i] = 0.0f;

  float* my_in = &inbuf[k][0][lane];
  auto fetch_async = [&](int y0) {
    const int r0 = y0 + 4;
    if (valid && r0 >= 0 && r0 + kChunkRows <= len) {
      const float* p = src + uint32_t(r0) * w;
#pragma unroll
      for (int i = 0; i < kChunkRows; ++i, p += w) cp_async4(my_in + i * kLines, p, 4u);
    } else {
#pragma unroll
      for (int i = 0; i < kChunkRows; ++i) {
        const int row = r0 + i;
        const bool in = valid && row >= 0 && row < len;
        cp_async4(my_in + i * kLines, src + (in ? uint32_t(row) * w : 0u), in ? 4u : 0u);
      }
    }
    cp_async_commit();
  };
  // kXybT: thread tid copies rows y0c + 4q .. + 3 (q = tid % 5) of column tid / 5 of the block's
  // 32 columns, both planes (rows outside the padded plane zero-filled; never read as terms).
  const int cq = tid % 5, cc = tid / 5;
  const uint32_t cbase = kXybT ? blocked_index(blockIdx.x * kLines + uint32_t(cc), 0u, xyb_rows_t) : 0u;
  const float* xcol1 = xyb + size_t(c) * xplane + cbase;
  const float* xcol2 = xyb + size_t(3 + c) * xplane + cbase;
  auto fetch_xyb = [&](int y0c, int buf) {
    const int y = y0c + 4 * cq;
    const bool in = y >= 0 && uint32_t(y) < xyb_rows_t;
    const uint32_t off = in ? (uint32_t(y) & ~31u) * 31u + uint32_t(y) : 0u;  // blocked offset
    cp_async16(&xs[kXybT ? buf : 0][0][cq][cc][0], xcol1 + off, in ? 16u : 0u);
    cp_async16(&xs[kXybT ? buf : 0][1][cq][cc][0], xcol2 + off, in ? 16u : 0u);
    cp_async_commit();
  };
  // Walk chunk y0 from the copied inputs into out (every row, no range test: see the kFast walk).
  // kWaitAll: every copy this thread issued; else all but the most recent group (kXybT: the XYB
  // copies of the next chunk, issued after the inputs of this one).
  auto walk = [&](int y0, float (&out)[kBlurPlanes][kChunkRows][kLines], auto wait_all) {
    if constexpr (decltype(wait_all)::value || !kXybT) cp_async_wait_all();  // own copies
    else cp_async_wait_group1();
    float b[kChunkRows];
#pragma unroll
    for (int i = 0; i < kChunkRows; ++i) b[i] = my_in[i * kLines];
#pragma unroll
    for (int i = 0; i < kChunkRows; ++i) {
      const float a = i < 10 ? prev_b[i] : b[i - 10];
      const float o = rec.step(coef, fadd(a, b[i]));
      out[k][i][lane] = o;
      if constexpr (kDebug) {
        const int t = y0 + i;
        if (valid && uint32_t(t) < h) debug_vblur[size_t(c * kBlurPlanes + k) * n + size_t(t) * w + x] = o;
      }
    }
#pragma unroll
    for (int i = 0; i < 10; ++i) prev_b[i] = b[i + 10];
  };
  float pre1[kTermRows], pre2[kTermRows];
  auto load_xyb = [&](int y0) {
#pragma unroll
    for (int m = 0; m < kTermRows; ++m) {
      const int y = y0 + k + kBlurPlanes * m;
      const uint32_t yy = uint32_t(y) < h ? uint32_t(y) : 0u;  // rows outside: any sample
      pre1[m] = col1.at(yy);
      pre2[m] = col2.at(yy);
    }
  };

  fetch_async(-kChunkRows);
  walk(-kChunkRows, blurred_buf[0], std::true_type{});
  if constexpr (kXybT) {
    fetch_xyb(-kChunkRows, 0);
    if (0 < len) fetch_async(0);
    else cp_async_commit();
    cp_async_wait_group1();  // the XYB copies (this thread's); visible to all after the barrier
  } else {
    if (0 < len) fetch_async(0);
    load_xyb(-kChunkRows);
  }
  __syncthreads();
  for (int y0 = -kChunkRows; y0 < len; y0 += kChunkRows) {
    const int j = (y0 + kChunkRows) / kChunkRows;
    float (&blurred)[kBlurPlanes][kChunkRows][kLines] = blurred_buf[j & 1];
    const int y_last = min(y0 + k + kBlurPlanes * (kTermRows - 1), len - 1);
    const bool tail = valid && y_last >= 0 && uint32_t(y_last) * w + x >= f32_end;
    if constexpr (kXybT) fetch_xyb(y0 + kChunkRows, (j + 1) & 1);  // the next chunk's samples
    double sa[kTermRows], sb[kTermRows], sq[kTermRows], ea[kTermRows], eb[kTermRows], eq[kTermRows];
    float t_img1[kTermRows], t_img2[kTermRows], t_mu1[kTermRows], t_mu2[kTermRows];
    bool fast = true;
#pragma unroll
    for (int m = 0; m < kTermRows; ++m) {
      const int i = k + kBlurPlanes * m;
      t_img1[m] = kXybT ? xs[kXybT ? j & 1 : 0][0][i >> 2][lane][i & 3] : pre1[m];
      t_img2[m] = kXybT ? xs[kXybT ? j & 1 : 0][1][i >> 2][lane][i & 3] : pre2[m];
      const float mu1 = blurred[0][i][lane], mu2 = blurred[1][i][lane];
      // Section 7, as ssim_term().
      const SsimFactors f =
          ssim_factors(mu1, mu2, blurred[2][i][lane], blurred[3][i][lane], blurred[4][i][lane]);
      const float num_m = f.num_m, num_s = f.num_s, denom_s = f.denom_s;
      sa[m] = __dmul_rn(double(num_m), double(num_s));
      sb[m] = double(denom_s);
      // Section 8 with the f32 differences (edge_ratio_f32_difference).
      const float e1 = fabsf(fsub(t_img1[m], mu1)), e2 = fabsf(fsub(t_img2[m], mu2));
      ea[m] = __dadd_rn(1.0, double(e2));
      eb[m] = __dadd_rn(1.0, double(e1));
      bool unused;
      sq[m] = div_rn_fast(sa[m], sb[m], unused);
      eq[m] = div_rn_fast(ea[m], eb[m], unused);
      const float z = fmul(fmul(num_m, num_s), fmul(denom_s, fadd(1.0f, fadd(e1, e2))));
      fast = fast && fabsf(z) < __int_as_float(0x7f800000) && z != 0.0f;
    }
    // (t_img1, t_img2: this chunk's XYB samples, kept for the tail pixels' f64 edge operands.)
    // The next chunk: its walk (into the other buffer) and its XYB samples (no branch between
    // here and the divisions above, so that their instructions can interleave).
    walk(y0 + kChunkRows, blurred_buf[(j + 1) & 1], std::false_type{});
    if constexpr (!kXybT) load_xyb(y0 + kChunkRows);
    if (!fast) {  // rare: every pixel of the chunk by __ddiv_rn
#pragma unroll
      for (int m = 0; m < kTermRows; ++m) {
        sq[m] = __ddiv_rn(sa[m], sb[m]);
        eq[m] = __ddiv_rn(ea[m], eb[m]);
      }
    }
    if (tail) {  // the f64 differences (edge_ratio) where the pixel index is >= f32_end
#pragma unroll
      for (int m = 0; m < kTermRows; ++m) {
        const int y = y0 + k + kBlurPlanes * m;
        const int i = k + kBlurPlanes * m;
        t_mu1[m] = blurred[0][i][lane];
        t_mu2[m] = blurred[1][i][lane];
        if (valid && uint32_t(y) < h && uint32_t(y) * w + x >= f32_end) {
          double num, den;
          edge_operands(t_img1[m], t_mu1[m], t_img2[m], t_mu2[m], false, num, den);
          eq[m] = __ddiv_rn(num, den);
        }
      }
    }
#pragma unroll
    for (int m = 0; m < kTermRows; ++m) {
      const int y = y0 + k + kBlurPlanes * m;
      const bool ok = valid && uint32_t(y) < h;
      const double d = __dsub_rn(1.0, sq[m]);
      const double r = __dsub_rn(eq[m], 1.0);
      const double d4 = quartic(d), r4 = quartic(r);
      if (ok && !(d < 0.0)) {
        acc[0] = __dadd_rn(acc[0], d);
        acc[1] = __dadd_rn(acc[1], d4);
      }
      if (ok && r > 0.0) {
        acc[2] = __dadd_rn(acc[2], r);
        acc[3] = __dadd_rn(acc[3], r4);
      }
      if (ok && r < 0.0) {
        acc[4] = __dadd_rn(acc[4], -r);
        acc[5] = __dadd_rn(acc[5], r4);
      }
      if constexpr (kDebug) {
        if (ok) {
          double* dt = debug_terms + size_t(3 * c) * n + (uint32_t(y) * w + x);
          dt[0] = d < 0.0 ? 0.0 : d;
          dt[n] = r > 0.0 ? r : 0.0;
          dt[size_t(2) * n] = r < 0.0 ? -r : 0.0;
        }
      }
    }
    if (y0 + 2 * kChunkRows < len) fetch_async(y0 + 2 * kChunkRows);  // the walk has read inbuf
    else if (kXybT) cp_async_commit();  // an empty group: the next wait skips exactly one
    if constexpr (kXybT) cp_async_wait_group1();  // the next chunk's XYB copies (own), then ...
    __syncthreads();                               // ... everyone's, after the barrier
  }
  block_partials(acc, block_sums, tid, c, partials);
}

// ---- stage 4: the 108 sums ---------------------------------------------------------------------

struct ScaleTable {
  unsigned long long partial_offset[kNumScales];  // in Dd, of each scale's [3][strips][6]
  uint32_t strips[kNumScales];
  int scales;
};

// Block (scale, channel), thread s: the strips' partials of accumulator s in strip order.
__global__ void reduce_kernel(const Dd* __restrict__ partials, ScaleTable table,
                              double* __restrict__ result) {
  const int scale = blockIdx.x, c = blockIdx.y, s = threadIdx.x;
  if (s >= kSums) return;
  double value = 0.0;
  if (scale < table.scales) {
    const uint32_t strips = table.strips[scale];
    const Dd* p = partials + table.partial_offset[scale] + size_t(c) * strips * kSums + s;
    Dd total = p[0];
    for (uint32_t i = 1; i < strips; ++i) total = dd_add(total, p[size_t(i) * kSums]);
    value = __dadd_rn(total.hi, total.lo);
  }
  result[(scale * 3 + c) * kSums + s] = value;
}

// ---- the per-frame schedule ---------------------------------------------------------------------

uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

// Scales 1.. run on side streams, concurrently with scale 0, when each scale can have its own XYB
// and horizontal-blur planes within this many bytes (up to about 2560x1440).
constexpr size_t kConcurrentBytes = size_t{640} << 20;
// Otherwise (4K) scales 1.. run one after the other on ONE side stream, in one set of planes
// sized for scale 1, concurrently with scale 0, when scale 0's and that set fit in this many
// bytes: 831 MiB at 3840x2160, about 965 MiB peak with the linear pyramid and the engine's
// frames. Larger pictures run every scale in sequence in one set of planes.
constexpr size_t kChainBytes = size_t{880} << 20;
// With the strip schedule: the metric's planes (with the linear pyramid) within this many bytes,
// so that the engine's default (as many replicas as fit 1 GiB with its frame slots) keeps two
// frames in flight at 4K: 2 x 440 MiB + 4 slots of two 4K 4:2:0 frames (95 MiB) < 1 GiB.
constexpr size_t kStripBudgetBytes = size_t{440} << 20;

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// Device buffers and launches for one geometry; shared by the metric, the debug path and the
// device-time benchmark.
class Pipeline {
 public:
  void init(const PictureFormat& format, const YuvMatrix* matrix, EdgeDifference edge_difference,
            vqx::cuda::DeviceContext& device, const PipelineOptions& options) {
    const bool debug = options.debug;
    const int max_scales = options.max_scales;
    vblur_low_regs_ = options.vblur_low_regs;
    fast_terms_ = options.fast_terms;
    terms_batch_ = options.terms_batch;
    vblur_pipe_ = options.vblur_pipe;
    split_xyb_ = options.split_xyb;
    fast_xyb_ = options.fast_xyb;
    xyb_strips_ = options.strip_xyb && !options.split_xyb;
    format_ = format;
    edge_difference_ = edge_difference;
    rgb_ = matrix == nullptr;
    const BlurCoefficients& bc = blur_coefficients();
    for (int k = 0; k < 3; ++k) {
      coef_.n2[k] = bc.n2[k];
      coef_.d1[k] = bc.d1[k];
    }
    cbrt_bias_ = ssimulacra2::cbrt_approx(kOpsinBias);  // the CPU's function (section 3.1)
    source_.offset[0] = format.plane_offset(0);
    source_.offset[1] = format.plane_offset(1);
    source_.offset[2] = format.plane_offset(2);
    source_.pw = format.plane_width(1);
    source_.ph = format.plane_height(1);
    source_.inv_peak = inverse_peak(format.bit_depth);
    if (matrix)
      source_.m = YuvMatrixDev{matrix->cr_r,    matrix->cb_b,    matrix->cb_g,  matrix->cr_g,
                               matrix->y_scale, matrix->c_scale, matrix->y_off, matrix->c_off};
    const char* what = "ssimulacra2: pole kernel shared memory";
    allow_dynamic_smem(blur_rows_poles2_kernel<true>, kPoles2Smem, what);
    allow_dynamic_smem(blur_rows_poles2_kernel<false>, kPoles2Smem, what);
    check(cudaMemcpyToSymbol(g_eotf_lut, kEotfLutBits.data(), sizeof(float) * kEotfLutSize),
          "ssimulacra2: EOTF table upload");
    // A copy from pageable memory may return before its DMA has landed, and the kernels run on
    // non-blocking streams, which do not wait for the legacy stream: wait for that stream here,
    // once per geometry.
    check(cudaStreamSynchronize(nullptr), "ssimulacra2: EOTF table upload");

    // The kernels index a plane with 32 bits.
    if (uint64_t{format.width} * format.height > UINT32_MAX)
      throw InputError("ssimulacra2: " + format.describe() +
                       " has 2^32 or more pixels, more than the CUDA path indexes");
    // Scales processed (fork stop rule, section 4) and their sizes.
    uint32_t cw = format.width, ch = format.height;
    scales_ = 0;
    size_t linear_floats = 0, partial_dd = 0, pyramid = 0;
    for (int s = 0; s < kNumScales && s < max_scales; ++s) {
      if (cw < kMinScaleSize || ch < kMinScaleSize) break;
      width_[s] = cw;
      height_[s] = ch;
      table_.partial_offset[s] = partial_dd;
      table_.strips[s] = ceil_div(cw, kLines);
      partial_dd += size_t(3) * table_.strips[s] * kSums;
      if (s > 0) linear_floats += size_t(6) * cw * ch;
      pyramid += size_t(cw) * ch;
      ++scales_;
      cw = half_size(cw);
      ch = half_size(ch);
    }
    table_.scales = scales_;
    // The next level's linear planes are written only when that level is processed.
    if (scales_ == 0) return;
    const size_t n0 = size_t(format.width) * format.height;
    const size_t n1 = scales_ > 1 ? size_t(width_[1]) * height_[1] : 0;
    // The schedule: forced by the options (tests, profiling) where it applies, else by size.
    // The strip schedule (session 14): scales at least strip_min_height rows high run their
    // horizontal pass in strips of strip_rows rows into a ring of planes, the vertical pass
    // following strip by strip (enqueue_strips). Only the default kernels take part.
    // The transposed XYB planes and the walk on them (session 15): with the default kernels,
    // whenever a transposed plane can be indexed with 32 bits.
    const bool t_kernels = options.transposed_xyb && fast_xyb_ && !split_xyb_ && fast_terms_ &&
                           terms_batch_ == kTermRows && !vblur_low_regs_ &&
                           transposed_geometry(format.width, format.height).plane <= size_t{UINT32_MAX};
    // Bands (session 15): without strip rows of their own, tall planes run as `bands` strips of
    // whole planes (no ring) with their XYB by strips too, so that the walk of band i + 1 runs
    // beside the vertical pass of band i and the XYB of band i + 1 beside the walk of band i.
    const bool bands = options.strip_rows == 0 && options.bands > 1 && t_kernels && options.concurrent;
    if (bands) xyb_strips_ = !options.split_xyb;
    const bool strip_kernels = (options.strip_rows > 0 || bands) && options.fast_terms &&
                               !options.vblur_low_regs && options.terms_batch == kTermRows;
    size_t hpx[kNumScales] = {};  // pixels of one horizontal-pass plane of scale s
    strips_any_ = false;
    size_t state_threads = 0;
    for (int s = 0; s < scales_; ++s) {
      StripPlan& p = strip_[s];
      p = StripPlan{};
      const uint32_t h = height_[s];
      if (strip_kernels && h >= uint32_t(std::max(options.strip_min_height, 1)) &&
          size_t(width_[s]) * h <= size_t{UINT32_MAX}) {
        p.on = true;
        const uint32_t rows = bands ? ceil_div(h, uint32_t(options.bands)) : uint32_t(options.strip_rows);
        p.rows = std::max<uint32_t>(32, (rows + 31) / 32 * 32);
        p.count = int(ceil_div(h, p.rows));
        p.depth = bands ? p.count : std::min(std::max(options.strip_depth, 1), p.count);
        const uint64_t ring = uint64_t(p.depth) * p.rows + 32;
        p.ring_rows = ring >= h || (debug && !options.strip_debug_ring) ? h : uint32_t(ring);
        // Chunk bases (-20 + 20 j) of each strip's vertical launch: those whose inputs
        // (rows y0 + 4 ... y0 + 23) lie in the rows the strips so far have written.
        int y = -kChunkRows;
        for (int i = 0; i < p.count; ++i) {
          const uint32_t avail = std::min<uint64_t>(uint64_t(i + 1) * p.rows, h);
          const int end = avail == h ? int(h) : kChunkRows * int((avail - 4) / kChunkRows);
          p.y_begin.push_back(y);
          p.y_end.push_back(end);
          y = end;
        }
        p.state_offset = state_threads;
        state_threads += size_t(3) * table_.strips[s] * kBlockThreads;
        strips_any_ = true;
      }
      hpx[s] = size_t(width_[s]) * (p.on ? p.ring_rows : height_[s]);
    }
    // The schedule: forced by the options (tests, profiling) where it applies, else by size.
    bool rings_any = false;  // strips whose horizontal-pass planes are a ring (memory saved)
    for (int s = 0; s < scales_; ++s) rings_any |= strip_[s].on && strip_[s].ring_rows < height_[s];
    size_t sum_n = 0, sum_h = 0, max_h = 0, rest_h = 0;
    for (int s = 0; s < scales_; ++s) {
      sum_n += size_t(width_[s]) * height_[s];
      sum_h += hpx[s];
      max_h = std::max(max_h, hpx[s]);
      if (s > 0) rest_h = std::max(rest_h, hpx[s]);
    }
    const size_t concurrent_bytes = sizeof(float) * (6 * sum_n + 15 * sum_h);
    const size_t chain_bytes = sizeof(float) * (6 * (n0 + n1) + 15 * (hpx[0] + rest_h));
    const size_t pyramid_bytes = sizeof(float) * linear_floats;
    schedule_ = Schedule::kSequential;
    if (options.concurrent && scales_ > 1) {
      if (options.force_chain) schedule_ = Schedule::kChain;
      else if (options.force_concurrent) schedule_ = Schedule::kConcurrent;
      else if (strips_any_ && rings_any) {
        // With strips, the schedule that keeps the metric within kStripBudgetBytes (so that the
        // engine keeps two frames in flight within its 1 GiB), preferring concurrency.
        if (concurrent_bytes <= kConcurrentBytes &&
            concurrent_bytes + pyramid_bytes <= kStripBudgetBytes)
          schedule_ = Schedule::kConcurrent;
        else if (chain_bytes + pyramid_bytes <= kStripBudgetBytes)
          schedule_ = Schedule::kChain;
      } else if (sizeof(float) * 21 * pyramid <= kConcurrentBytes)
        schedule_ = Schedule::kConcurrent;
      else if (sizeof(float) * 21 * (n0 + n1) <= kChainBytes)
        schedule_ = Schedule::kChain;
    }
    concurrent_ = schedule_ != Schedule::kSequential;
    // The transposed XYB planes (session 15): with the default kernels and no strips, whenever
    // a transposed plane can be indexed with 32 bits.
    xyb_t_ = t_kernels;
    size_t xn[kNumScales] = {};  // floats of one XYB plane of scale s
    for (int s = 0; s < scales_; ++s) {
      tgeo_[s] = transposed_geometry(width_[s], height_[s]);
      xn[s] = xyb_t_ ? tgeo_[s].plane : size_t(width_[s]) * height_[s];
    }
    size_t xn_sum = 0;
    for (int s = 0; s < scales_; ++s) xn_sum += xn[s];
    const size_t xyb_set = schedule_ == Schedule::kConcurrent ? xn_sum
                           : schedule_ == Schedule::kChain    ? xn[0] + xn[1]
                                                              : xn[0];
    const size_t hblur_set = schedule_ == Schedule::kConcurrent ? sum_h
                             : schedule_ == Schedule::kChain    ? hpx[0] + rest_h
                                                                : max_h;
    xyb_ = vqx::cuda::DeviceBuffer(device, sizeof(float) * 6 * xyb_set, "ssimulacra2 XYB planes");
    if (xyb_t_) {
      ones_ = vqx::cuda::DeviceBuffer(device, sizeof(float) * 1024, "ssimulacra2 ones");
      const std::vector<float> ones(1024, 1.0f);
      check(cudaMemcpy(ones_.get(), ones.data(), sizeof(float) * 1024, cudaMemcpyHostToDevice),
            "ssimulacra2: ones");
      check(cudaStreamSynchronize(nullptr), "ssimulacra2: ones");  // (pageable copy: see above)
    }
    hblur_ = vqx::cuda::DeviceBuffer(device, sizeof(float) * 15 * hblur_set,
                                     "ssimulacra2 horizontal blur planes");
    for (size_t s = 0, xo = 0, ho = 0; s < size_t(scales_); ++s) {
      xyb_at_[s] = xyb_.get<float>() + 6 * xo;
      hblur_at_[s] = hblur_.get<float>() + 15 * ho;
      if (schedule_ == Schedule::kConcurrent || (schedule_ == Schedule::kChain && s == 0)) {
        xo += xn[s];
        ho += hpx[s];
      }
    }
    if (strips_any_) {
      strip_fstate_ = vqx::cuda::DeviceBuffer(device, sizeof(float) * kStripFloats * state_threads,
                                              "ssimulacra2 strip state");
      strip_dstate_ = vqx::cuda::DeviceBuffer(device, sizeof(double) * kSums * state_threads,
                                              "ssimulacra2 strip sums");
      strip_state_threads_ = state_threads;
      for (int s = 0; s < scales_; ++s) {
        StripPlan& p = strip_[s];
        if (!p.on) continue;
        p.start = std::make_unique<vqx::cuda::Event>(false);
        p.x_end = std::make_unique<vqx::cuda::Event>(false);
        p.xyb_stream = std::make_unique<vqx::cuda::Stream>();
        for (int i = 0; i < p.depth; ++i) p.streams.push_back(std::make_unique<vqx::cuda::Stream>());
        for (int i = 0; i < p.count; ++i) {
          p.h_done.push_back(std::make_unique<vqx::cuda::Event>(false));
          p.v_done.push_back(std::make_unique<vqx::cuda::Event>(false));
          p.x_done.push_back(std::make_unique<vqx::cuda::Event>(false));
        }
      }
    }
    const int side_streams = schedule_ == Schedule::kConcurrent ? scales_ - 1
                             : schedule_ == Schedule::kChain    ? 1
                                                                : 0;
    for (int s = 1; s <= side_streams; ++s) {
      side_[s] = std::make_unique<vqx::cuda::Stream>();
      side_done_[s] = std::make_unique<vqx::cuda::Event>();
    }
    if (concurrent_)
      for (int s = 0; s < scales_; ++s) xyb_done_[s] = std::make_unique<vqx::cuda::Event>();
    for (int s = 0; s < scales_; ++s)
      vec_rows_[s] = !options.scalar_rows && width_[s] % 4 == 0 && aligned16(xyb_at_[s]) &&
                     aligned16(hblur_at_[s]);
    if (linear_floats)
      linear_ = vqx::cuda::DeviceBuffer(device, sizeof(float) * linear_floats,
                                        "ssimulacra2 linear RGB pyramid");
    partials_ = vqx::cuda::DeviceBuffer(device, sizeof(Dd) * partial_dd, "ssimulacra2 partial sums");
    size_t offset = 0;
    for (int s = 1; s < scales_; ++s) {
      level_[s] = linear_.get<float>() + offset;
      offset += size_t(6) * width_[s] * height_[s];
    }
    // The chain schedule's further side streams (session 15). The linear planes of level s - 1
    // are read only by the XYB kernel of scale s - 1, which scale s's XYB waits for anyway (it
    // writes scale s's linear planes); so scale s's planes can live there, on a stream of its
    // own that starts right after that kernel, in no extra memory. split_chain 1: scales 2.. in
    // sequence in level 1's planes; 2: every scale s >= 2 whose planes fit in level s - 1's on
    // its own stream, the others after the scale before them in its planes.
    split_chain_ = false;
    for (bool& own : own_stream_) own = false;
    bool strips_beyond_0 = false;
    for (int s = 1; s < scales_; ++s) strips_beyond_0 |= strip_[s].on;
    auto fits = [&](int s) {
      return 6 * xn[s] + 15 * hpx[s] <= size_t(6) * width_[s - 1] * height_[s - 1];
    };
    if (schedule_ == Schedule::kChain && scales_ >= 3 && !strips_beyond_0 && !split_xyb_ &&
        options.split_chain > 0 && fits(2)) {
      split_chain_ = true;
      for (int s = 2; s < scales_; ++s) {
        own_stream_[s] = s == 2 || (options.split_chain >= 2 && fits(s));
        if (own_stream_[s]) {
          xyb_at_[s] = level_[s - 1];
          hblur_at_[s] = level_[s - 1] + 6 * xn[s];
          side_[s] = std::make_unique<vqx::cuda::Stream>();
          side_done_[s] = std::make_unique<vqx::cuda::Event>();
        } else {  // after scale s - 1, in its set (sized for s - 1: larger)
          xyb_at_[s] = xyb_at_[s - 1];
          hblur_at_[s] = hblur_at_[s - 1];
        }
        vec_rows_[s] = !options.scalar_rows && width_[s] % 4 == 0 && aligned16(xyb_at_[s]) &&
                       aligned16(hblur_at_[s]);
      }
    }
    if (debug) {
      debug_linear_ = vqx::cuda::DeviceBuffer(device, sizeof(float) * 6 * n0, "debug linear");
      debug_products_ = vqx::cuda::DeviceBuffer(device, sizeof(float) * 9 * n0, "debug products");
      debug_vblur_ = vqx::cuda::DeviceBuffer(device, sizeof(float) * 15 * n0, "debug vblur");
      debug_terms_ = vqx::cuda::DeviceBuffer(device, sizeof(double) * 9 * n0, "debug terms");
    }
  }

  int scales() const { return scales_; }
  bool concurrent() const { return concurrent_; }

  // Stages 1-3 of scale s. Stage marks 3 s, 3 s + 1, 3 s + 2.
  void enqueue_scale(int s, const uint8_t* ref, const uint8_t* dis, cudaStream_t stream,
                     StageMarks* marks) {
    if (marks) marks->stage(stream, size_t(3 * s));
    if (!xyb_in_strips(s)) traced("XYB", s, -1, stream, [&] { enqueue_xyb(s, ref, dis, stream); });
    if (marks) marks->stage(stream, size_t(3 * s + 1));
    if (strip_[s].on) {
      if (xyb_in_strips(s)) enqueue_strips(s, stream, ref, dis);
      else enqueue_strips(s, stream);
      if (marks) marks->stage(stream, size_t(3 * s + 2));
      return;
    }
    traced("H", s, -1, stream, [&] { enqueue_rows(s, stream); });
    if (marks) marks->stage(stream, size_t(3 * s + 2));
    traced("V", s, -1, stream, [&] { enqueue_columns(s, stream); });
  }

  // Stages 2-3 of scale s, by strips where its plan says so.
  void enqueue_blurs(int s, cudaStream_t stream) {
    if (strip_[s].on) {
      enqueue_strips(s, stream);
      return;
    }
    traced("H", s, -1, stream, [&] { enqueue_rows(s, stream); });
    traced("V", s, -1, stream, [&] { enqueue_columns(s, stream); });
  }

  // The strip schedule of scale s (session 14): for strip i (image rows [i R, i R + R)), the
  // horizontal pass into the ring on H stream i % depth, after the vertical launch of strip
  // i - depth (the last reader of those ring rows); then, on `stream`, the vertical launch of
  // the chunks whose inputs strips 0..i have written, carrying the columns' state to the next.
  // So H of strips i + 1 .. i + depth runs beside V of strip i. Every H stream joins `stream`
  // through the h_done events; no host wait, graph-capturable.
  //
  // With ref/dis (VQX_SS2_STRIP_XYB=1): the scale's XYB + downsample also runs by strips, on
  // its own stream ahead of the H streams (a three-stage pipeline XYB -> H -> V); `xyb_done`, if
  // given, is recorded after the last strip's XYB (the next scale's linear planes are complete).
  bool xyb_in_strips(int s) const { return strip_[s].on && xyb_strips_; }

  void enqueue_strips(int s, cudaStream_t stream, const uint8_t* ref = nullptr,
                      const uint8_t* dis = nullptr, cudaEvent_t xyb_done = nullptr) {
    StripPlan& p = strip_[s];
    const uint32_t h = height_[s];
    const bool with_xyb = ref != nullptr;
    check(cudaEventRecord(p.start->get(), stream), "ssimulacra2: strips fork");
    cudaStream_t xs = with_xyb ? p.xyb_stream->get() : nullptr;
    if (with_xyb) {
      check(cudaStreamWaitEvent(xs, p.start->get(), 0), "ssimulacra2: strips fork");
      for (int i = 0; i < p.count; ++i) {
        const uint32_t row0 = uint32_t(i) * p.rows;
        const uint32_t row_end = std::min(row0 + p.rows, h);
        traced("XYB", s, i, xs, [&] { enqueue_xyb_rows(s, ref, dis, xs, row0 / 2, (row_end + 1) / 2); });
        check(cudaEventRecord(p.x_done[size_t(i)]->get(), xs), "ssimulacra2: strips");
      }
      if (xyb_done) check(cudaEventRecord(xyb_done, xs), "ssimulacra2: strips");
    }
    for (int i = 0; i < p.count; ++i) {
      cudaStream_t hs = p.streams[size_t(i % p.depth)]->get();
      check(cudaStreamWaitEvent(hs, i < p.depth ? p.start->get() : p.v_done[size_t(i - p.depth)]->get(), 0),
            "ssimulacra2: strips");
      if (with_xyb) check(cudaStreamWaitEvent(hs, p.x_done[size_t(i)]->get(), 0), "ssimulacra2: strips");
      const uint32_t row0 = uint32_t(i) * p.rows;
      traced("H", s, i, hs, [&] {
        enqueue_rows_range(s, hs, row0, std::min(p.rows, h - row0), p.ring_rows);
      });
      check(cudaEventRecord(p.h_done[size_t(i)]->get(), hs), "ssimulacra2: strips");
      check(cudaStreamWaitEvent(stream, p.h_done[size_t(i)]->get(), 0), "ssimulacra2: strips");
      traced("V", s, i, stream, [&] { enqueue_columns_strip(s, stream, i); });
      if (i + p.depth < p.count)
        check(cudaEventRecord(p.v_done[size_t(i)]->get(), stream), "ssimulacra2: strips");
    }
    if (with_xyb) {  // the XYB stream joins (already an ancestor through the H strips)
      check(cudaEventRecord(p.x_end->get(), xs), "ssimulacra2: strips join");
      check(cudaStreamWaitEvent(stream, p.x_end->get(), 0), "ssimulacra2: strips join");
    }
  }

  // The XYB + downsample of rows [oy0, oy_end) of the half-size grid of scale s (image rows
  // [2 oy0, 2 oy_end)): xyb_down_kernel with its row range, for the XYB by strips.
  void enqueue_xyb_rows(int s, const uint8_t* ref, const uint8_t* dis, cudaStream_t stream,
                        uint32_t oy0, uint32_t oy_end) {
    const uint32_t w = width_[s], h = height_[s];
    FrameSource fs = source_;
    fs.frame[0] = ref;
    fs.frame[1] = dis;
    const bool write_down = s + 1 < scales_;
    float* down = write_down ? level_[s + 1] : nullptr;
    float* dl = debug_linear_.get() != nullptr && s == 0 ? debug_linear_.get<float>() : nullptr;
    float* xyb = xyb_at_[s];
    if (xyb_t_) {  // 32-row blocks: oy0 is a multiple of 16 (strip rows are multiples of 32)
      launch_xyb_t(s, fs, write_down ? down : nullptr, write_down, dl, stream, oy0 / kTBlock,
                   oy_end >= half_size(h) ? UINT32_MAX : ceil_div(oy_end, kTBlock));
      check_launch("ssimulacra2: xyb_down_t_kernel (strip)");
      return;
    }
    const dim3 block(32, 8);
    const dim3 grid(ceil_div(half_size(w), 32), ceil_div(oy_end - oy0, 8));
    if (fast_xyb_ && s > 0)  // the fast XYB kernel (the default), with the same row range
      xyb_down_fast_kernel<Source::kLinear><<<grid, block, 0, stream>>>(
          fs, level_[s], w, h, cbrt_bias_, xyb, down, write_down, nullptr, oy0, oy_end);
    else if (fast_xyb_ && dl)
      launch_xyb_fast<true, true>(fs, grid, block, w, h, xyb, down, write_down, dl, stream, oy0, oy_end);
    else if (fast_xyb_)
      launch_xyb_fast<true, false>(fs, grid, block, w, h, xyb, down, write_down, nullptr, stream, oy0,
                                   oy_end);
    else if (s > 0)
      xyb_down_kernel<Source::kLinear><<<grid, block, 0, stream>>>(
          fs, level_[s], w, h, cbrt_bias_, xyb, down, write_down, nullptr, oy0, oy_end);
    else if (rgb_ && format_.bit_depth > 8)
      xyb_down_kernel<Source::kRgb16><<<grid, block, 0, stream>>>(
          fs, nullptr, w, h, cbrt_bias_, xyb, down, write_down, dl, oy0, oy_end);
    else if (rgb_)
      xyb_down_kernel<Source::kRgb8><<<grid, block, 0, stream>>>(
          fs, nullptr, w, h, cbrt_bias_, xyb, down, write_down, dl, oy0, oy_end);
    else if (format_.bit_depth > 8)
      xyb_down_kernel<Source::kYuv16><<<grid, block, 0, stream>>>(
          fs, nullptr, w, h, cbrt_bias_, xyb, down, write_down, dl, oy0, oy_end);
    else
      xyb_down_kernel<Source::kYuv8><<<grid, block, 0, stream>>>(
          fs, nullptr, w, h, cbrt_bias_, xyb, down, write_down, dl, oy0, oy_end);
    check_launch("ssimulacra2: xyb_down_kernel (strip)");
  }

  // The horizontal pass of image rows [row0, row0 + rows) of scale s into planes of ring_rows
  // rows (blur_rows_t on the transposed planes, poles2 on the row-major ones).
  void enqueue_rows_range(int s, cudaStream_t stream, uint32_t row0, uint32_t rows,
                          uint32_t ring_rows) {
    const uint32_t w = width_[s], h = height_[s];
    const bool debug = debug_linear_.get() != nullptr;
    float* products = debug ? debug_products_.get<float>() : nullptr;
    if (xyb_t_) {  // session 15: the transposed walk over rows [row0, row0 + rows)
      const TransposedGeometry& g = tgeo_[s];
      blur_rows_t_kernel<<<dim3(3 * kBlurPlanes, ceil_div(rows, kLines)), kLines, 0, stream>>>(
          xyb_at_[s], ones_.get<float>(), w, h, g.rows_t, g.plane, coef_, hblur_at_[s], products,
          vec_rows_[s], row0, rows, ring_rows);
      check_launch("ssimulacra2: blur_rows_t_kernel (strip)");
      return;
    }
    const dim3 grid(ceil_div(rows, kLines), 3);
    const dim3 pblock(kLines, kPoleWarps);
    auto kernel = vec_rows_[s] ? blur_rows_poles2_kernel<true> : blur_rows_poles2_kernel<false>;
    kernel<<<grid, pblock, kPoles2Smem, stream>>>(xyb_at_[s], w, h, coef_, hblur_at_[s], products,
                                                  row0, rows, ring_rows);
    check_launch("ssimulacra2: blur_rows_poles2_kernel (strip)");
  }

  // What every vertical pass + terms launch of scale s takes: the plane, the debug switch, one
  // block per 32 columns and channel, and the first pixel index whose edge difference is f64
  // (kFloatGroupsOf8: the last n % 8 pixels; kDouble: all).
  struct ColumnsLaunch {
    uint32_t w, h;
    size_t n;
    bool debug;
    dim3 block, grid;
    size_t f32_end;
  };
  ColumnsLaunch columns_launch(int s) const {
    const uint32_t w = width_[s], h = height_[s];
    const size_t n = size_t(w) * h;
    return ColumnsLaunch{w, h, n, debug_linear_.get() != nullptr, dim3(kLines, kBlurPlanes),
                         dim3(table_.strips[s], 3),
                         edge_difference_ == EdgeDifference::kFloatGroupsOf8 ? n - n % 8 : 0};
  }

  // The vertical pass + terms of strip i of scale s (the fast terms kernel, kStrip).
  void enqueue_columns_strip(int s, cudaStream_t stream, int i) {
    const StripPlan& p = strip_[s];
    const auto [w, h, n, debug, block, grid, f32_end] = columns_launch(s);
    VStrip v;
    v.y_begin = p.y_begin[size_t(i)];
    v.y_end = p.y_end[size_t(i)];
    v.ring_rows = p.ring_rows;
    v.fstate = strip_fstate_.get<float>() + kStripFloats * p.state_offset;
    v.dstate = strip_dstate_.get<double>() + kSums * p.state_offset;
    v.first = i == 0;
    v.last = i + 1 == p.count;
    // A scale's state: [16][its threads] floats and [6][its threads] doubles, after the scales
    // before it.
    auto kernel = xyb_t_ ? blur_columns_terms_kernel<3, true, kTermRows, true, true>
                         : blur_columns_terms_kernel<3, true, kTermRows, true>;
    kernel<<<grid, block, 0, stream>>>(
        hblur_at_[s], xyb_at_[s], w, h, coef_, f32_end,
        partials_.get<Dd>() + table_.partial_offset[s],
        debug ? debug_vblur_.get<float>() : nullptr, debug ? debug_terms_.get<double>() : nullptr, v,
        tgeo_[s].rows_t, tgeo_[s].plane);
    check_launch("ssimulacra2: blur_columns_terms_kernel (strip)");
  }

  // Stage 1 of scale s: XYB of scale s and the linear planes of scale s + 1.
  // part 0: XYB and downsample in one kernel; 1: only the downsample (the next level's linear
  // planes, what the next scale waits for); 2: only the XYB (VQX_SS2_XYB=split).
  void enqueue_xyb(int s, const uint8_t* ref, const uint8_t* dis, cudaStream_t stream,
                   int part = 0) {
    const uint32_t w = width_[s], h = height_[s];
    const bool debug = debug_linear_.get() != nullptr;
    FrameSource fs = source_;
    fs.frame[0] = ref;
    fs.frame[1] = dis;
    const bool write_down = s + 1 < scales_ && part != 2;
    if (part == 1 && !write_down) return;
    float* down = write_down ? level_[s + 1] : nullptr;
    const dim3 block(32, 8);
    const dim3 grid(ceil_div(half_size(w), 32), ceil_div(half_size(h), 8));
    float* dl = debug && s == 0 ? debug_linear_.get<float>() : nullptr;
    if (xyb_t_) {  // (never split: part 0)
      launch_xyb_t(s, fs, down, write_down, dl, stream);
      check_launch("ssimulacra2: xyb_down_t_kernel");
      return;
    }
    if (part == 1) launch_xyb<false>(s, fs, grid, block, down, write_down, nullptr, stream);
    else launch_xyb<true>(s, fs, grid, block, down, write_down, dl, stream);
    check_launch("ssimulacra2: xyb_down_kernel");
  }

  // The XYB + downsample of scale s with the XYB planes transposed (session 15): the grid covers
  // the padded planes, 32 x 32 pixels per block.
  // by0 / by_end: the block rows (32 image rows each) of a strip; by_end beyond the last block
  // row: to the end of the padded plane.
  void launch_xyb_t(int s, const FrameSource& fs, float* down, bool write_down, float* dl,
                    cudaStream_t stream, uint32_t by0 = 0, uint32_t by_end = UINT32_MAX) {
    const uint32_t w = width_[s], h = height_[s];
    const TransposedGeometry& g = tgeo_[s];
    const uint32_t nby = g.rows_t / (2 * kTBlock);
    by_end = std::min(by_end, nby);
    const dim3 grid(g.cols_t / (2 * kTBlock), by_end - by0), block(kTBlock, kTBlock);
    float* xyb = xyb_at_[s];
    auto go = [&](auto kernel, const float* linear, float* debug) {
      kernel<<<grid, block, 0, stream>>>(fs, linear, w, h, cbrt_bias_, xyb, g.rows_t, g.plane, down,
                                         write_down, debug, by0);
    };
    if (s > 0) go(xyb_down_t_kernel<Source::kLinear>, level_[s], nullptr);
    else if (dl && rgb_ && format_.bit_depth > 8) go(xyb_down_t_kernel<Source::kRgb16, true>, nullptr, dl);
    else if (dl && rgb_) go(xyb_down_t_kernel<Source::kRgb8, true>, nullptr, dl);
    else if (dl && format_.bit_depth > 8) go(xyb_down_t_kernel<Source::kYuv16, true>, nullptr, dl);
    else if (dl) go(xyb_down_t_kernel<Source::kYuv8, true>, nullptr, dl);
    else if (rgb_ && format_.bit_depth > 8) go(xyb_down_t_kernel<Source::kRgb16>, nullptr, nullptr);
    else if (rgb_) go(xyb_down_t_kernel<Source::kRgb8>, nullptr, nullptr);
    else if (format_.bit_depth > 8) go(xyb_down_t_kernel<Source::kYuv16>, nullptr, nullptr);
    else go(xyb_down_t_kernel<Source::kYuv8>, nullptr, nullptr);
  }

  template <bool kXyb>
  void launch_xyb(int s, const FrameSource& fs, dim3 grid, dim3 block, float* down,
                  bool write_down, float* dl, cudaStream_t stream) {
    const uint32_t w = width_[s], h = height_[s];
    float* xyb = xyb_at_[s];
    if (fast_xyb_) {  // VQX_SS2_XYB=fast: the same bits with fewer instructions
      if (s > 0)
        xyb_down_fast_kernel<Source::kLinear, kXyb><<<grid, block, 0, stream>>>(
            fs, level_[s], w, h, cbrt_bias_, xyb, down, write_down, nullptr);
      else if constexpr (kXyb) {
        if (dl)  // the debug path (tests): linear RGB of scale 0 written too
          launch_xyb_fast<true, true>(fs, grid, block, w, h, xyb, down, write_down, dl, stream);
        else
          launch_xyb_fast<true, false>(fs, grid, block, w, h, xyb, down, write_down, nullptr, stream);
      } else
        launch_xyb_fast<false, false>(fs, grid, block, w, h, xyb, down, write_down, nullptr, stream);
      return;
    }
    if (s > 0)
      xyb_down_kernel<Source::kLinear, kXyb><<<grid, block, 0, stream>>>(
          fs, level_[s], w, h, cbrt_bias_, xyb, down, write_down, nullptr);
    else if (rgb_ && format_.bit_depth > 8)
      xyb_down_kernel<Source::kRgb16, kXyb><<<grid, block, 0, stream>>>(
          fs, nullptr, w, h, cbrt_bias_, xyb, down, write_down, dl);
    else if (rgb_)
      xyb_down_kernel<Source::kRgb8, kXyb><<<grid, block, 0, stream>>>(
          fs, nullptr, w, h, cbrt_bias_, xyb, down, write_down, dl);
    else if (format_.bit_depth > 8)
      xyb_down_kernel<Source::kYuv16, kXyb><<<grid, block, 0, stream>>>(
          fs, nullptr, w, h, cbrt_bias_, xyb, down, write_down, dl);
    else
      xyb_down_kernel<Source::kYuv8, kXyb><<<grid, block, 0, stream>>>(
          fs, nullptr, w, h, cbrt_bias_, xyb, down, write_down, dl);
  }

  template <bool kXyb, bool kDebug>
  void launch_xyb_fast(const FrameSource& fs, dim3 grid, dim3 block, uint32_t w, uint32_t h,
                       float* xyb, float* down, bool write_down, float* dl, cudaStream_t stream,
                       uint32_t oy0 = 0, uint32_t oy_end = UINT32_MAX) {
    if (rgb_ && format_.bit_depth > 8)
      xyb_down_fast_kernel<Source::kRgb16, kXyb, kDebug><<<grid, block, 0, stream>>>(
          fs, nullptr, w, h, cbrt_bias_, xyb, down, write_down, dl, oy0, oy_end);
    else if (rgb_)
      xyb_down_fast_kernel<Source::kRgb8, kXyb, kDebug><<<grid, block, 0, stream>>>(
          fs, nullptr, w, h, cbrt_bias_, xyb, down, write_down, dl, oy0, oy_end);
    else if (format_.bit_depth > 8)
      xyb_down_fast_kernel<Source::kYuv16, kXyb, kDebug><<<grid, block, 0, stream>>>(
          fs, nullptr, w, h, cbrt_bias_, xyb, down, write_down, dl, oy0, oy_end);
    else
      xyb_down_fast_kernel<Source::kYuv8, kXyb, kDebug><<<grid, block, 0, stream>>>(
          fs, nullptr, w, h, cbrt_bias_, xyb, down, write_down, dl, oy0, oy_end);
  }

  // Stage 2 of scale s: the horizontal pass of its 15 blurs.
  void enqueue_rows(int s, cudaStream_t stream) {
    const uint32_t w = width_[s], h = height_[s];
    const bool debug = debug_linear_.get() != nullptr;
    const dim3 grid(ceil_div(h, kLines), 3);
    float* products = debug ? debug_products_.get<float>() : nullptr;
    if (xyb_t_) {  // session 15: the walk on the transposed XYB planes
      const TransposedGeometry& g = tgeo_[s];
      blur_rows_t_kernel<<<dim3(3 * kBlurPlanes, ceil_div(h, kLines)), kLines, 0, stream>>>(
          xyb_at_[s], ones_.get<float>(), w, h, g.rows_t, g.plane, coef_, hblur_at_[s], products,
          vec_rows_[s]);
      check_launch("ssimulacra2: blur_rows_t_kernel");
      return;
    }
    // The row-major planes (VQX_SS2_HBLUR=poles2, or planes too large for the transposed layout).
    const dim3 pblock(kLines, kPoleWarps);
    if (vec_rows_[s])
      blur_rows_poles2_kernel<true><<<grid, pblock, kPoles2Smem, stream>>>(
          xyb_at_[s], w, h, coef_, hblur_at_[s], products);
    else
      blur_rows_poles2_kernel<false><<<grid, pblock, kPoles2Smem, stream>>>(
          xyb_at_[s], w, h, coef_, hblur_at_[s], products);
    check_launch("ssimulacra2: blur_rows_poles2_kernel");
  }

  // Stage 3 of scale s: the vertical pass, the terms and their block sums.
  void enqueue_columns(int s, cudaStream_t stream) {
    const auto [w, h, n, debug, block, grid, f32_end] = columns_launch(s);
    auto kernel = vblur_low_regs_ ? blur_columns_terms_kernel<5> : blur_columns_terms_kernel<1>;
    if (fast_terms_ && n <= size_t{UINT32_MAX})
      kernel = vblur_low_regs_ ? blur_columns_terms_kernel<4, true>
               : terms_batch_ == 2 ? blur_columns_terms_kernel<4, true, 2>
                                   : blur_columns_terms_kernel<3, true>;
    if (xyb_t_) kernel = blur_columns_terms_kernel<3, true, kTermRows, false, true>;
    // Session 15: the pipelined kernel (leanp, the default), on row-major or transposed XYB
    // planes; VQX_SS2_VBLUR=fast / plain / ... the kernels before it.
    if (vblur_pipe_ && n <= size_t{UINT32_MAX} && w < (1u << 28)) {
      auto pipe = xyb_t_ ? (debug ? blur_columns_terms_pipe_kernel<3, true, true>
                                  : blur_columns_terms_pipe_kernel<3, false, true>)
                         : (debug ? blur_columns_terms_pipe_kernel<3, true, false>
                                  : blur_columns_terms_pipe_kernel<3, false, false>);
      pipe<<<grid, block, 0, stream>>>(
          hblur_at_[s], xyb_at_[s], w, h, coef_, uint32_t(f32_end),
          partials_.get<Dd>() + table_.partial_offset[s],
          debug ? debug_vblur_.get<float>() : nullptr, debug ? debug_terms_.get<double>() : nullptr,
          tgeo_[s].rows_t, tgeo_[s].plane);
      check_launch("ssimulacra2: blur_columns_terms_pipe_kernel");
      return;
    }
    kernel<<<grid, block, 0, stream>>>(
        hblur_at_[s], xyb_at_[s], w, h, coef_, f32_end,
        partials_.get<Dd>() + table_.partial_offset[s],
        debug ? debug_vblur_.get<float>() : nullptr, debug ? debug_terms_.get<double>() : nullptr,
        VStrip{}, tgeo_[s].rows_t, tgeo_[s].plane);
    check_launch("ssimulacra2: blur_columns_terms_kernel");
  }

  // Timeline of one frame (bench only): each stage enqueued through traced() gets timing events
  // before and after it on its stream (graph nodes when captured).
  struct TraceMark {
    const char* what;
    int scale, strip;
    std::unique_ptr<vqx::cuda::Event> begin, end;
  };
  void set_trace(std::vector<TraceMark>* trace) { trace_ = trace; }

  template <typename F>
  void traced(const char* what, int s, int strip, cudaStream_t stream, F&& enqueue) {
    if (!trace_) {
      enqueue();
      return;
    }
    trace_->push_back(TraceMark{what, s, strip, std::make_unique<vqx::cuda::Event>(),
                                std::make_unique<vqx::cuda::Event>()});
    TraceMark& m = trace_->back();  // reserved by the caller: no reallocation
    check(cudaEventRecordWithFlags(m.begin->get(), stream, cudaEventRecordExternal), "trace");
    enqueue();
    check(cudaEventRecordWithFlags(m.end->get(), stream, cudaEventRecordExternal), "trace");
  }

  // Stage 4: writes all 108 sums (zeros for absent scales) to `result`.
  void enqueue_reduce(cudaStream_t stream, double* result) {
    reduce_kernel<<<dim3(kNumScales, 3), 32, 0, stream>>>(partials_.get<Dd>(), table_, result);
    check_launch("ssimulacra2: reduce_kernel");
  }

  std::vector<std::string> stage_names() const {
    std::vector<std::string> names;
    if (concurrent_) {
      names = {xyb_in_strips(0) ? "s0 (XYB in the strips)" : "s0 yuv->linear->xyb+down",
               xyb_in_strips(0) ? "s0 XYB + blur H + V + terms, strips"
               : strip_[0].on   ? "s0 blur H + V + terms, strips"
                                : "s0 blur H (15 planes)",
               strip_[0].on ? "s0 (in the strips)" : "s0 blur V + terms + sums",
               "scales 1.. (side streams) beyond s0", "reduce 108 sums"};
      return names;
    }
    for (int s = 0; s < kNumScales; ++s) {
      const std::string scale = "s" + std::to_string(s) + " ";
      names.push_back(scale + (xyb_in_strips(s) ? "(XYB in the strips)"
                               : s == 0         ? "yuv->linear->xyb+down"
                                                : "xyb+down"));
      names.push_back(scale + (xyb_in_strips(s) ? "XYB + blur H + V + terms, strips"
                               : strip_[s].on   ? "blur H + V + terms, strips"
                                                : "blur H (15 planes)"));
      names.push_back(scale + (strip_[s].on ? "(in the strips)" : "blur V + terms + sums"));
    }
    names.push_back("reduce 108 sums");
    return names;
  }

  // The whole frame on `stream` (and, when concurrent, on the side streams it forks and joins:
  // scale s waits only for the XYB/downsample of scale s - 1, which wrote its linear planes).
  void enqueue_frame(const uint8_t* ref, const uint8_t* dis, cudaStream_t stream, double* result,
                     StageMarks* marks) {
    if (scales_ == 0) {  // smaller than 8x8: no scale, score 100 (the fork's rule)
      check(cudaMemsetAsync(result, 0, sizeof(double) * kNumScales * 3 * kSums, stream),
            "ssimulacra2: clear");
      return;
    }
    if (!concurrent_) {
      for (int s = 0; s < scales_; ++s) enqueue_scale(s, ref, dis, stream, marks);
      if (marks) marks->stage(stream, size_t(3 * kNumScales));
      enqueue_reduce(stream, result);
      return;
    }
    if (marks) marks->stage(stream, 0);
    if (xyb_in_strips(0)) {  // scale 0's XYB, H and V by strips; the side streams fork from it
      if (marks) marks->stage(stream, 1);
      enqueue_strips(0, stream, ref, dis, xyb_done_[0]->get());
      if (marks) marks->stage(stream, 2);
    } else {
      traced("XYB", 0, -1, stream, [&] { enqueue_xyb(0, ref, dis, stream, split_xyb_ ? 1 : 0); });
      check(cudaEventRecord(xyb_done_[0]->get(), stream), "ssimulacra2: fork");
      if (split_xyb_) enqueue_xyb(0, ref, dis, stream, 2);
    }
    if (schedule_ == Schedule::kChain) {
      // Scales 1.. in order on one side stream, in one set of planes: each scale's XYB follows
      // the previous scale's vertical pass, the last reader of that set.
      cudaStream_t side = side_[1]->get();
      check(cudaStreamWaitEvent(side, xyb_done_[0]->get(), 0), "ssimulacra2: fork");
      for (int s = 1, owner = 1; s < scales_ && split_chain_; ++s) {
        if (s >= 2 && own_stream_[s]) owner = s;
        cudaStream_t on = side_[owner]->get();
        if (s >= 2 && own_stream_[s])
          check(cudaStreamWaitEvent(on, xyb_done_[s - 1]->get(), 0), "ssimulacra2: fork");
        traced("XYB", s, -1, on, [&] { enqueue_xyb(s, ref, dis, on); });
        check(cudaEventRecord(xyb_done_[s]->get(), on), "ssimulacra2: fork");
        enqueue_blurs(s, on);
        if (s + 1 == scales_ || (s + 1 < scales_ && own_stream_[s + 1]))
          if (s >= 2) check(cudaEventRecord(side_done_[owner]->get(), on), "ssimulacra2: join");
      }
      for (int s = 1; s < scales_ && !split_chain_; ++s) {
        if (xyb_in_strips(s)) {
          enqueue_strips(s, side, ref, dis);
          continue;
        }
        traced("XYB", s, -1, side, [&] { enqueue_xyb(s, ref, dis, side); });
        enqueue_blurs(s, side);
      }
      check(cudaEventRecord(side_done_[1]->get(), side), "ssimulacra2: join");
    }
    for (int s = 1; s < scales_ && schedule_ == Schedule::kConcurrent; ++s) {
      cudaStream_t side = side_[s]->get();
      check(cudaStreamWaitEvent(side, xyb_done_[s - 1]->get(), 0), "ssimulacra2: fork");
      if (xyb_in_strips(s)) {
        enqueue_strips(s, side, ref, dis, xyb_done_[s]->get());
      } else {
        traced("XYB", s, -1, side, [&] { enqueue_xyb(s, ref, dis, side, split_xyb_ ? 1 : 0); });
        check(cudaEventRecord(xyb_done_[s]->get(), side), "ssimulacra2: fork");
        if (split_xyb_) enqueue_xyb(s, ref, dis, side, 2);
        enqueue_blurs(s, side);
      }
      check(cudaEventRecord(side_done_[s]->get(), side), "ssimulacra2: join");
    }
    if (!xyb_in_strips(0)) {  // (otherwise enqueued above, before the side streams fork)
      if (marks) marks->stage(stream, 1);
      if (strip_[0].on) {
        enqueue_strips(0, stream);
        if (marks) marks->stage(stream, 2);
      } else {
        traced("H", 0, -1, stream, [&] { enqueue_rows(0, stream); });
        if (marks) marks->stage(stream, 2);
        traced("V", 0, -1, stream, [&] { enqueue_columns(0, stream); });
      }
    }
    if (marks) marks->stage(stream, 3);
    for (int s = 1; s < scales_; ++s)
      if (side_done_[s]) check(cudaStreamWaitEvent(stream, side_done_[s]->get(), 0), "ssimulacra2: join");
    if (marks) marks->stage(stream, 4);
    traced("reduce", 0, -1, stream, [&] { enqueue_reduce(stream, result); });
  }

  FrameSums frame_sums(const double* result) const {
    FrameSums f;
    f.scales = scales_;
    for (int s = 0; s < scales_; ++s) {
      f.pixels[size_t(s)] = uint64_t{width_[s]} * height_[s];
      for (int c = 0; c < 3; ++c) {
        const double* v = result + (s * 3 + c) * kSums;
        f.sums[size_t(s)][size_t(c)] = ChannelSums{v[0], v[1], v[2], v[3], v[4], v[5]};
      }
    }
    return f;
  }

  // Debug reads of the current scale's planes (after a synchronise).
  DebugScale read_debug_scale(int s) const {
    DebugScale d;
    d.width = width_[s];
    d.height = height_[s];
    const size_t n = size_t(d.width) * d.height;
    auto get = [](auto& v, const void* src, size_t count) {
      v.resize(count);
      check(cudaMemcpy(v.data(), src, sizeof(v[0]) * count, cudaMemcpyDeviceToHost), "debug read");
    };
    get(d.linear, s == 0 ? debug_linear_.get() : level_[s], 6 * n);
    if (xyb_t_) {  // back to the row-major layout of the CPU's planes
      const TransposedGeometry& g = tgeo_[s];
      std::vector<float> t;
      get(t, xyb_at_[s], 6 * g.plane);
      d.xyb.resize(6 * n);
      for (size_t p = 0; p < 6; ++p)
        for (size_t y = 0; y < d.height; ++y)
          for (size_t x = 0; x < d.width; ++x)
            d.xyb[p * n + y * d.width + x] =
                t[p * g.plane + blocked_index(uint32_t(x), uint32_t(y), g.rows_t)];
    } else {
      get(d.xyb, xyb_at_[s], 6 * n);
    }
    get(d.products, debug_products_.get(), 9 * n);
    // A ring (strip_debug_ring) holds only the last rows: no full plane to read back.
    if (!strip_[s].on || strip_[s].ring_rows == d.height) get(d.hblur, hblur_at_[s], 15 * n);
    get(d.vblur, debug_vblur_.get(), 15 * n);
    get(d.terms, debug_terms_.get(), 9 * n);
    return d;
  }

 private:
  PictureFormat format_;
  EdgeDifference edge_difference_ = EdgeDifference::kFloatGroupsOf8;
  enum class Schedule { kSequential, kConcurrent, kChain };
  bool rgb_ = false, concurrent_ = false, vblur_low_regs_ = false, fast_terms_ = false;
  int terms_batch_ = 4;
  bool vblur_pipe_ = false;
  bool split_xyb_ = false;
  bool fast_xyb_ = false;
  bool xyb_t_ = false;                   // XYB planes transposed (session 15)
  bool split_chain_ = false;             // chain: scales 2.. on further side streams
  bool own_stream_[kNumScales] = {};     // split_chain_: scale s on a stream of its own
  TransposedGeometry tgeo_[kNumScales];  // their geometry per scale
  Schedule schedule_ = Schedule::kSequential;
  // The strip schedule of one scale (enqueue_strips).
  struct StripPlan {
    bool on = false;
    uint32_t rows = 0;       // image rows per strip (a multiple of 32)
    int count = 0;           // strips
    int depth = 1;           // strips of the ring: H of strip i waits for V of strip i - depth
    uint32_t ring_rows = 0;  // rows of the horizontal-pass planes (depth * rows + 32, or h)
    std::vector<int> y_begin, y_end;  // chunk bases of each strip's vertical launch
    size_t state_offset = 0;          // this scale's threads in the strip state
    std::vector<std::unique_ptr<vqx::cuda::Stream>> streams;  // depth streams for H
    std::unique_ptr<vqx::cuda::Event> start, x_end;
    std::vector<std::unique_ptr<vqx::cuda::Event>> h_done, v_done, x_done;
    std::unique_ptr<vqx::cuda::Stream> xyb_stream;  // xyb_strips_: the strips' XYB
  };
  bool xyb_strips_ = false;
  StripPlan strip_[kNumScales];
  std::vector<TraceMark>* trace_ = nullptr;
  bool strips_any_ = false;
  size_t strip_state_threads_ = 0;
  vqx::cuda::DeviceBuffer strip_fstate_, strip_dstate_;
  bool vec_rows_[kNumScales] = {};
  BlurCoef coef_{};
  float cbrt_bias_ = 0.0f;
  FrameSource source_{};
  int scales_ = 0;
  uint32_t width_[kNumScales] = {}, height_[kNumScales] = {};
  ScaleTable table_{};
  float* level_[kNumScales] = {};
  float* xyb_at_[kNumScales] = {};    // 6 planes of scale s (one shared set unless concurrent)
  float* hblur_at_[kNumScales] = {};  // 15 planes of scale s
  std::unique_ptr<vqx::cuda::Stream> side_[kNumScales];
  std::unique_ptr<vqx::cuda::Event> xyb_done_[kNumScales], side_done_[kNumScales];
  vqx::cuda::DeviceBuffer xyb_, hblur_, linear_, partials_;
  vqx::cuda::DeviceBuffer ones_;  // xyb_t_: one block of 1.0f (the horizontal pass's q of mu1, mu2)
  vqx::cuda::DeviceBuffer debug_linear_, debug_products_, debug_vblur_, debug_terms_;
};

constexpr size_t kResultDoubles = size_t(kNumScales) * 3 * kSums;

class Ssimulacra2Cuda final : public CudaMetric {
 public:
  explicit Ssimulacra2Cuda(const OptionValues& options)
      : matrix_(make_yuv_matrix(int(options.get_int("yuv_matrix")))) {}

  std::vector<std::string> feature_names() const override { return {"ssimulacra2"}; }

  std::vector<std::string> stage_names() const override { return pipeline_.stage_names(); }

  void init(const CudaMetricContext& context) override {
    const PictureFormat& f = context.format;
    rgb_ = f.color == ColorModel::kRGB;
    // The CPU twin's checks and messages (ssimulacra2.cpp); no fmt in this TU (nvcc's C++20
    // front end rejects fmt's consteval format strings).
    if (f.subsampling == ChromaSubsampling::k400)
      throw InputError("ssimulacra2: " + f.describe() +
                       " input has no chroma; the metric needs colour (4:2:0, 4:2:2 or 4:4:4)");
    if (rgb_ && f.subsampling != ChromaSubsampling::k444)
      throw InputError("ssimulacra2: RGB input must have three full-resolution planes");
    if (rgb_ && (f.width < 8 || f.height < 8))
      throw InputError("ssimulacra2: RGB image " + std::to_string(f.width) + "x" +
                       std::to_string(f.height) + " is smaller than the 8x8 minimum");
    // The CPU metric's edge mode: the fork's AVX2 arithmetic (the goldens).
    // Profiling knobs (docs/ssimulacra2.md; none changes a bit of the result):
    // VQX_SS2_HBLUR=poles2 the row-major XYB planes and the session-14 horizontal kernel,
    // VQX_SS2_HBLUR=scalar the horizontal pass without float4 loads and stores;
    // VQX_SS2_VBLUR=leanp the default vertical pass + terms, fast session 14's kernel, plain the
    // terms kernel before session 13, regs80 that kernel capped at 80 registers, fast2 / fast4 the
    // fast terms two at a time / at 96 registers; VQX_SS2_XYB=split the downsample in its own
    // kernel before the XYB, plain the XYB kernel before session 14; VQX_SS2_SEQUENTIAL=1 runs the
    // scales one after the other (a per-scale stage table), VQX_SS2_SCHEDULE=chain runs scales 1..
    // on side streams in one set of planes (4K's schedule) at any size.
    PipelineOptions options;
    const char* walk = std::getenv("VQX_SS2_HBLUR");
    const char* sequential = std::getenv("VQX_SS2_SEQUENTIAL");
    const char* schedule = std::getenv("VQX_SS2_SCHEDULE");
    const char* vblur = std::getenv("VQX_SS2_VBLUR");
    options.scalar_rows = walk && std::string(walk) == "scalar";
    if (walk && std::string(walk) == "poles2") options.transposed_xyb = false;  // before session 15
    if (vblur && std::string(vblur) == "regs80") {
      options.vblur_low_regs = true;
      options.fast_terms = false;
    }
    if (vblur && std::string(vblur) == "fast") options.fast_terms = true;
    if (vblur && std::string(vblur) == "fast2") {
      options.fast_terms = true;
      options.terms_batch = 2;
    }
    if (vblur && std::string(vblur) == "fast4") options.fast_terms = options.vblur_low_regs = true;
    if (vblur && std::string(vblur) == "plain") options.fast_terms = false;
    // The kernels before session 15 (plain, regs80, fast, fast2, fast4) leave the pipelined one.
    if (vblur && (std::string(vblur) == "plain" || std::string(vblur) == "regs80" ||
                  std::string(vblur).rfind("fast", 0) == 0))
      options.vblur_pipe = false;
    if (vblur && std::string(vblur) == "leanp") options.vblur_pipe = true;
    options.concurrent = !(sequential && std::string(sequential) == "1");
    options.force_chain = schedule && std::string(schedule) == "chain";
    options.force_concurrent = schedule && std::string(schedule) == "concurrent";
    // The strip schedule (session 14): VQX_SS2_STRIPS=1 (or VQX_SS2_STRIP_ROWS=N, rows per strip)
    // turns it on, VQX_SS2_STRIPS=0 off (every scale's blurs on whole planes, the default);
    // VQX_SS2_STRIP_DEPTH (strips in the ring), VQX_SS2_STRIP_MIN (the smallest plane height
    // that runs in strips) and VQX_SS2_STRIP_XYB=1 (the XYB by strips too) tune it.
    auto env_int = [](const char* name, int fallback) {
      const char* v = std::getenv(name);
      if (!v || !*v) return fallback;
      char* end = nullptr;
      const long x = std::strtol(v, &end, 10);
      return end && *end == '\0' && x >= 0 && x <= (1 << 20) ? int(x) : fallback;
    };
    // Rows per strip when only VQX_SS2_STRIPS=1 is given: with depth 1 and planes of at least
    // 1440 rows (the defaults), a 4K frame's metric takes 435 MiB, so the engine keeps two frames
    // in flight within 1 GiB (docs/ssimulacra2.md, session 14).
    constexpr int kStripRowsOn = 768;
    const int strips = env_int("VQX_SS2_STRIPS", -1);
    options.strip_rows = env_int("VQX_SS2_STRIP_ROWS", strips == 1 ? kStripRowsOn : options.strip_rows);
    if (strips == 0) options.strip_rows = 0;
    options.strip_depth = env_int("VQX_SS2_STRIP_DEPTH", options.strip_depth);
    options.strip_min_height = env_int("VQX_SS2_STRIP_MIN", options.strip_min_height);
    options.strip_xyb = env_int("VQX_SS2_STRIP_XYB", options.strip_xyb ? 1 : 0) != 0;
    // VQX_SS2_BANDS=N: tall planes (VQX_SS2_STRIP_MIN rows and up) in N bands (0 or 1: off).
    options.bands = env_int("VQX_SS2_BANDS", options.bands);
    // VQX_SS2_CHAIN_SPLIT=0/1/2: PipelineOptions::split_chain.
    options.split_chain = env_int("VQX_SS2_CHAIN_SPLIT", options.split_chain);
    const char* xyb = std::getenv("VQX_SS2_XYB");
    if (xyb && std::string(xyb) == "split") options.split_xyb = true;
    if (xyb && std::string(xyb) == "fused") options.split_xyb = false;
    // VQX_SS2_XYB=fast (the default) / plain: the session-14 XYB kernel / the one before it.
    if (xyb && std::string(xyb) == "fast") options.fast_xyb = true;
    if (xyb && std::string(xyb) == "plain") options.fast_xyb = false;
    pipeline_.init(f, rgb_ ? nullptr : &matrix_, EdgeDifference::kFloatGroupsOf8, *context.device,
                   options);
  }

  size_t result_bytes() const override { return sizeof(double) * kResultDoubles; }

  void enqueue(const CudaFrame& frame, uint64_t, cudaStream_t stream, void* result,
               StageMarks& marks) override {
    pipeline_.enqueue_frame(frame.ref, frame.dis, stream, static_cast<double*>(result), &marks);
  }

  // Sections 9-10 on the host with the CPU's code.
  void collect(const void* result, uint64_t frame, FeatureWriter& out) override {
    out.put(frame, 0, pool_score(pipeline_.frame_sums(static_cast<const double*>(result))));
  }

 private:
  YuvMatrix matrix_;
  bool rgb_ = false;
  Pipeline pipeline_;
};

}  // namespace

DebugFrame run_debug_frame(const Picture& ref, const Picture& dis, const YuvMatrix* matrix,
                           EdgeDifference edge_difference, int max_scales,
                           const PipelineOptions& variant) {
  vqx::cuda::DeviceContext device(0);
  Pipeline pipeline;
  PipelineOptions options = variant;
  options.debug = true;
  options.max_scales = max_scales;
  pipeline.init(ref.format(), matrix, edge_difference, device, options);
  DebugFrame result;
  const size_t bytes = ref.format().frame_bytes();
  vqx::cuda::DeviceBuffer frames(device, 2 * bytes, "debug frames");
  vqx::cuda::DeviceBuffer sums(device, sizeof(double) * kResultDoubles, "debug sums");
  check(cudaMemcpy(frames.get(), ref.bytes(), bytes, cudaMemcpyHostToDevice), "debug upload");
  check(cudaMemcpy(frames.get<uint8_t>() + bytes, dis.bytes(), bytes, cudaMemcpyHostToDevice),
        "debug upload");
  // Pageable copies may return before the data has landed; the kernels below run on a
  // non-blocking stream (this race gave stale samples in the first round of session 13).
  check(cudaDeviceSynchronize(), "debug upload");
  vqx::cuda::Stream stream;
  for (int s = 0; s < pipeline.scales(); ++s) {
    pipeline.enqueue_scale(s, frames.get<uint8_t>(), frames.get<uint8_t>() + bytes, stream.get(),
                           nullptr);
    check(cudaStreamSynchronize(stream.get()), "debug scale");
    result.scales.push_back(pipeline.read_debug_scale(s));
  }
  std::array<double, kResultDoubles> host{};
  if (pipeline.scales() > 0) {
    pipeline.enqueue_reduce(stream.get(), sums.get<double>());
    check(cudaStreamSynchronize(stream.get()), "debug reduce");
    check(cudaMemcpy(host.data(), sums.get(), sizeof(host), cudaMemcpyDeviceToHost), "debug read");
  }
  result.sums = pipeline.frame_sums(host.data());
  result.score = pool_score(result.sums);
  return result;
}

DeviceTiming time_device_frames(const Picture& ref, const Picture& dis, const YuvMatrix* matrix,
                                const PipelineOptions& options, int frames, int in_flight) {
  vqx::cuda::DeviceContext device(0);
  const int k_max = in_flight < 1 ? 1 : in_flight;
  std::vector<std::unique_ptr<Pipeline>> pipelines;
  std::vector<vqx::cuda::DeviceBuffer> sums;
  std::vector<std::unique_ptr<vqx::cuda::Stream>> streams;
  for (int k = 0; k < k_max; ++k) {
    pipelines.push_back(std::make_unique<Pipeline>());
    pipelines.back()->init(ref.format(), matrix, EdgeDifference::kFloatGroupsOf8, device, options);
    sums.emplace_back(device, sizeof(double) * kResultDoubles, "timing sums");
    streams.push_back(std::make_unique<vqx::cuda::Stream>());
  }
  const size_t bytes = ref.format().frame_bytes();
  vqx::cuda::DeviceBuffer input(device, 2 * bytes, "timing frames");
  check(cudaMemcpy(input.get(), ref.bytes(), bytes, cudaMemcpyHostToDevice), "timing upload");
  check(cudaMemcpy(input.get<uint8_t>() + bytes, dis.bytes(), bytes, cudaMemcpyHostToDevice),
        "timing upload");
  check(cudaDeviceSynchronize(), "timing upload");  // pageable copies: see run_debug_frame
  // The metric's frame as the engine runs it: one CUDA graph per pipeline, replayed; with
  // in_flight > 1, frame i replays pipeline i % in_flight's graph on its own stream (several
  // frames in flight, as an engine with that many replicas would run them).
  std::vector<vqx::cuda::GraphExec> execs(static_cast<size_t>(k_max));
  for (int k = 0; k < k_max; ++k) {
    cudaStream_t st = streams[size_t(k)]->get();
    execs[size_t(k)] = vqx::cuda::GraphExec::capture(st, [&] {
      pipelines[size_t(k)]->enqueue_frame(input.get<uint8_t>(), input.get<uint8_t>() + bytes, st,
                                          sums[size_t(k)].get<double>(), nullptr);
    });
  }
  for (int i = 0; i < 50; ++i)  // clocks up
    execs[size_t(i % k_max)].launch(streams[size_t(i % k_max)]->get());
  check(cudaDeviceSynchronize(), "warm-up");
  vqx::cuda::Event begin, end;
  std::vector<std::unique_ptr<vqx::cuda::Event>> done;
  cudaStream_t main = streams[0]->get();
  check(cudaEventRecord(begin.get(), main), "record");
  for (int k = 1; k < k_max; ++k)
    check(cudaStreamWaitEvent(streams[size_t(k)]->get(), begin.get(), 0), "fork");
  for (int i = 0; i < frames; ++i)
    execs[size_t(i % k_max)].launch(streams[size_t(i % k_max)]->get());
  for (int k = 1; k < k_max; ++k) {
    done.push_back(std::make_unique<vqx::cuda::Event>());
    check(cudaEventRecord(done.back()->get(), streams[size_t(k)]->get()), "join");
    check(cudaStreamWaitEvent(main, done.back()->get(), 0), "join");
  }
  check(cudaEventRecord(end.get(), main), "record");
  check(cudaEventSynchronize(end.get()), "timing");
  DeviceTiming t;
  t.ms_per_frame = double(vqx::cuda::elapsed_ms(begin, end)) / frames;
  t.peak_bytes = device.peak_bytes();
  t.concurrent = pipelines[0]->concurrent();
  std::array<double, kResultDoubles> host{};
  check(cudaMemcpy(host.data(), sums[0].get(), sizeof(host), cudaMemcpyDeviceToHost), "timing read");
  t.score = pool_score(pipelines[0]->frame_sums(host.data()));
  for (int k = 1; k < k_max; ++k) {  // every replica gives the same bits
    std::array<double, kResultDoubles> other{};
    check(cudaMemcpy(other.data(), sums[size_t(k)].get(), sizeof(other), cudaMemcpyDeviceToHost),
          "timing read");
    if (std::memcmp(other.data(), host.data(), sizeof(host)) != 0) t.replicas_differ = true;
  }
  return t;
}

std::vector<TraceEvent> trace_device_frame(const Picture& ref, const Picture& dis,
                                           const YuvMatrix* matrix, const PipelineOptions& options) {
  vqx::cuda::DeviceContext device(0);
  Pipeline pipeline;
  pipeline.init(ref.format(), matrix, EdgeDifference::kFloatGroupsOf8, device, options);
  vqx::cuda::DeviceBuffer sums(device, sizeof(double) * kResultDoubles, "trace sums");
  const size_t bytes = ref.format().frame_bytes();
  vqx::cuda::DeviceBuffer input(device, 2 * bytes, "trace frames");
  check(cudaMemcpy(input.get(), ref.bytes(), bytes, cudaMemcpyHostToDevice), "trace upload");
  check(cudaMemcpy(input.get<uint8_t>() + bytes, dis.bytes(), bytes, cudaMemcpyHostToDevice),
        "trace upload");
  check(cudaDeviceSynchronize(), "trace upload");
  vqx::cuda::Stream stream;
  std::vector<Pipeline::TraceMark> marks;
  marks.reserve(4096);
  vqx::cuda::Event base;
  pipeline.set_trace(&marks);
  vqx::cuda::GraphExec exec = vqx::cuda::GraphExec::capture(stream.get(), [&] {
    check(cudaEventRecordWithFlags(base.get(), stream.get(), cudaEventRecordExternal), "trace");
    pipeline.enqueue_frame(input.get<uint8_t>(), input.get<uint8_t>() + bytes, stream.get(),
                           sums.get<double>(), nullptr);
  });
  pipeline.set_trace(nullptr);
  for (int i = 0; i < 30; ++i) exec.launch(stream.get());  // clocks up; the last one is read
  check(cudaStreamSynchronize(stream.get()), "trace");
  std::vector<TraceEvent> out;
  for (const auto& m : marks)
    out.push_back(TraceEvent{m.what, m.scale, m.strip, vqx::cuda::elapsed_ms(base, *m.begin),
                             vqx::cuda::elapsed_ms(base, *m.end)});
  return out;
}

namespace {

__device__ __forceinline__ uint32_t mix32(uint64_t x) {  // splitmix64's finaliser, high half
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return uint32_t((x ^ (x >> 31)) >> 32);
}

// A float from random bits, with the special values every 64th draw.
__device__ __forceinline__ float random_float(uint64_t key) {
  const uint32_t u = mix32(key);
  const uint32_t pick = mix32(key ^ 0x5555555555555555ull);
  if (pick % 64 == 0) {
    const float specials[8] = {0.0f, -0.0f, 1.0f, 1e-45f, 1e-38f, 3.0e38f, kC2, 0.5f};
    return specials[(pick >> 8) % 8];
  }
  return __uint_as_float(u);
}

__global__ void division_check_kernel(uint64_t count, uint32_t seed,
                                      unsigned long long* mismatches) {
  unsigned long long bad = 0;
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < count;
       i += uint64_t(gridDim.x) * blockDim.x) {
    const uint64_t key = (uint64_t(seed) << 40) ^ (i * 4);
    // Section 7: (f64(num_m) * f64(num_s)) / f64(denom_s), any f32 operands.
    const float f0 = random_float(key), f1 = random_float(key + 1), f2 = random_float(key + 2);
    double a = __dmul_rn(double(f0), double(f1)), b = double(f2);
    bool fast;
    double q = div_rn_fast(a, b, fast);
    if (!fast) q = __ddiv_rn(a, b);
    bad += __double_as_longlong(q) != __double_as_longlong(__ddiv_rn(a, b));
    // Section 8: (1 + e2) / (1 + e1), e = |f32 difference| or an f64 difference of two f32.
    const float g = fabsf(random_float(key + 3)), g2 = fabsf(f2);
    const uint32_t mode = mix32(key ^ 0xaaaaaaaaull);
    double num, den;
    if (mode & 1) edge_operands(g, 0.0f, g2, 0.0f, true, num, den);
    else edge_operands(f0 * 1e-30f, f1 * 1e-30f, g, g2, false, num, den);
    q = div_rn_fast(num, den, fast);
    if (!fast) q = __ddiv_rn(num, den);
    bad += __double_as_longlong(q) != __double_as_longlong(__ddiv_rn(num, den));
  }
  // Integer atomics: the count does not depend on the order.
  if (bad) atomicAdd(mismatches, bad);
}

// Every f32 bit pattern x = base + i: the fast cube root (cbrt_approx_seq where cbrt_seq_exact,
// as xyb_pixel_fast takes it) against cbrt_approx.
__global__ void cbrt_check_kernel(uint64_t base, uint64_t count, unsigned long long* mismatches) {
  unsigned long long bad = 0, eotf_bad = 0;
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < count;
       i += uint64_t(gridDim.x) * blockDim.x) {
    const float x = __uint_as_float(uint32_t(base + i));
    const float fast = cbrt_seq_exact(x) ? cbrt_approx_seq(x) : cbrt_approx(x);
    bad += __float_as_uint(fast) != __float_as_uint(cbrt_approx(x));
    // The EOTF on its inputs in the XYB kernel: clamp01 of anything (the R'G'B' samples times
    // 1/peak lie in [0, 1], a subset).
    const float c = clamp01(x);
    eotf_bad += __float_as_uint(srgb_eotf01(c)) != __float_as_uint(srgb_eotf(c));
  }
  if (bad) atomicAdd(mismatches, bad);
  if (eotf_bad) atomicAdd(mismatches + 1, eotf_bad);
}

}  // namespace

uint64_t cbrt_mismatches(uint64_t* eotf_mismatches) {
  vqx::cuda::DeviceContext device(0);
  vqx::cuda::DeviceBuffer counter(device, 2 * sizeof(unsigned long long), "cbrt check");
  check(cudaMemset(counter.get(), 0, 2 * sizeof(unsigned long long)), "cbrt check");
  // The EOTF table, as Pipeline::init uploads it (this check may run before any pipeline did).
  check(cudaMemcpyToSymbol(g_eotf_lut, kEotfLutBits.data(), sizeof(float) * kEotfLutSize),
        "cbrt check: EOTF table");
  cbrt_check_kernel<<<4096, 256>>>(0, uint64_t{1} << 32, counter.get<unsigned long long>());
  check_launch("ssimulacra2: cbrt_check_kernel");
  unsigned long long host[2] = {0, 0};
  check(cudaMemcpy(host, counter.get(), sizeof(host), cudaMemcpyDeviceToHost), "cbrt check");
  if (eotf_mismatches) *eotf_mismatches = host[1];
  return host[0];
}

uint64_t division_mismatches(uint64_t count, uint32_t seed) {
  vqx::cuda::DeviceContext device(0);
  vqx::cuda::DeviceBuffer counter(device, sizeof(unsigned long long), "division check");
  check(cudaMemset(counter.get(), 0, sizeof(unsigned long long)), "division check");
  division_check_kernel<<<1024, 256>>>(count, seed, counter.get<unsigned long long>());
  check_launch("ssimulacra2: division_check_kernel");
  unsigned long long host = 0;
  check(cudaMemcpy(&host, counter.get(), sizeof(host), cudaMemcpyDeviceToHost), "division check");
  return host;
}

}  // namespace vqx::ssimulacra2::cuda

namespace vqx {

std::unique_ptr<CudaMetric> make_ssimulacra2_cuda(const OptionValues& options) {
  return std::make_unique<ssimulacra2::cuda::Ssimulacra2Cuda>(options);
}

}  // namespace vqx
