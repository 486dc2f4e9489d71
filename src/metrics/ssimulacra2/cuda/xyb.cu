// Stage 1 of SSIMULACRA 2 on the device: the linear RGB of both images (from the Y'CbCr or
// R'G'B' frame at scale 0, from the level's linear planes after; sections 2 and 13), their XYB
// (section 3) into blocked planes (device_stages.h), and the 2x2 box downsample of the linear
// planes into the next level (section 4), in one kernel: full-resolution linear RGB never reaches
// memory. A thread owns one 2x2 block of pixels, a block of 16 x 16 threads one 32 x 32 block of
// the planes.
#include <cstdint>
#include <type_traits>

#include "engine/cuda/cuda_check.h"
#include "metrics/ssimulacra2/cuda/device_math.cuh"
#include "metrics/ssimulacra2/cuda/ssimulacra2_cuda_testing.h"

namespace vqx::ssimulacra2::cuda {
namespace {

using vqx::cuda::check_launch;

// ---- section 2.5: the EOTF ---------------------------------------------------------------------

struct EotfTable {
  float value[kEotfLutSize];
};
constexpr EotfTable eotf_table() {
  EotfTable t{};
  for (size_t i = 0; i < kEotfLutSize; ++i) t.value[i] = std::bit_cast<float>(kEotfLutBits[i]);
  return t;
}
// The CPU's table, as initialised device data.
__device__ const EotfTable g_eotf_lut = eotf_table();

__device__ __forceinline__ float clamp01(float v) {
  return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
}

// 2.5 as srgb_eotf() writes it: table lookup and lerp, int(t) truncates, x <= 0 and x >= 1
// selected afterwards as the CPU's early returns (the lookup runs with its index clamped into the
// table). The reference of srgb_eotf01 in the device check.
__device__ __forceinline__ float srgb_eotf(float x) {
  const float t = fmul(x, 1023.0f);
  int i = __float2int_rz(t);
  constexpr int kLast = int(kEotfLutSize) - 2;
  i = i < 0 ? 0 : (i > kLast ? kLast : i);
  const float f = fsub(t, __int2float_rn(i));
  const float a = __ldg(&g_eotf_lut.value[i]);
  const float b = __ldg(&g_eotf_lut.value[i + 1]);
  const float v = fadd(a, fmul(fsub(b, a), f));
  return x <= 0.0f ? 0.0f : (x >= 1.0f ? 1.0f : v);
}

// srgb_eotf for the inputs the kernel gives it: clamp01's results (and the R'G'B' samples times
// 1/peak), i.e. +-0, [0, 1] and NaN. There t >= 0 (or NaN, which truncates to 0), so the index
// needs only its upper clamp, and the early returns are what the lookup gives anyway: the table
// starts with +0 and ends with 1.0f, x = +-0 gives lut[0] + (lut[1] - lut[0]) * +-0 = +0 and x = 1
// gives lut[1022] + (lut[1023] - lut[1022]) = 1 exactly (an exact difference of two neighbours,
// added back). The device check compares it with srgb_eotf on clamp01 of every f32 bit pattern.
__device__ __forceinline__ float srgb_eotf01(float x) {
  const float t = fmul(x, 1023.0f);
  int i = __float2int_rz(t);
  constexpr int kLast = int(kEotfLutSize) - 2;
  i = i > kLast ? kLast : i;
  const float f = fsub(t, __int2float_rn(i));
  const float a = __ldg(&g_eotf_lut.value[i]);
  const float b = __ldg(&g_eotf_lut.value[i + 1]);
  return fadd(a, fmul(fsub(b, a), f));
}

// ---- section 3: the cube root and XYB ----------------------------------------------------------

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

// Section 3.2's division x / (y * y) written out as the fast path that __fdiv_rn compiles to on
// sm_90 (MUFU.RCP of b, one Newton step, the quotient and one residual correction, each FFMA
// rounded once), without __fdiv_rn's per-division range check (FCHK) and branch to its slow path.
// cbrt_approx_seq is cbrt_approx with both divisions so; cbrt_seq_exact(x) is the range where the
// caller uses it (2^-60 <= x <= 2^60: the seed y, y * y and the quotient stay far from overflow,
// underflow and denormals, where the library's fast path applies); elsewhere the caller takes
// cbrt_approx. The device check compares the two on every one of the 2^32 f32 bit patterns.
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

// 3.3: one pixel to X', Y', B', the cube roots by cbrt_approx_seq where it applies (all three in
// range: one branch per pixel instead of one per division).
__device__ __forceinline__ float3 xyb_pixel(float3 rgb, float cbrt_bias) {
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

// ---- sections 2 and 13: the samples of scale 0 --------------------------------------------------

// 2.2: nearest chroma index.
__device__ __forceinline__ uint32_t chroma_index(uint32_t x, uint32_t plane_size,
                                                 uint32_t luma_size) {
  uint32_t s;
  if (plane_size == luma_size)
    s = x;
  else if (2ull * plane_size == luma_size)
    s = x >> 1;
  else
    s = uint32_t((unsigned long long)x * plane_size / luma_size);
  return s < plane_size ? s : plane_size - 1;
}

enum class Source { kYuv8, kYuv16, kRgb8, kRgb16, kLinear };
template <Source kSource>
constexpr bool kYuvSource = kSource == Source::kYuv8 || kSource == Source::kYuv16;

// Section 2's operations on the frame's samples, split so that a chroma sample's terms can be
// formed once for the pixels that share it, with the plane pointers formed once per thread.
template <Source kSource>
struct FrameSamples {
  using Sample =
      std::conditional_t<kSource == Source::kYuv8 || kSource == Source::kRgb8, uint8_t, uint16_t>;
  const Sample* p[2][3];  // [image][plane]
  __device__ __forceinline__ explicit FrameSamples(const FrameSource& fs) {
#pragma unroll
    for (int image = 0; image < 2; ++image)
#pragma unroll
      for (int k = 0; k < 3; ++k)
        p[image][k] = reinterpret_cast<const Sample*>(fs.frame[image] + fs.offset[k]);
  }
  // Section 2's chroma terms of chroma sample ci: (U, V) normalised, offset and scaled.
  __device__ __forceinline__ float2 chroma(const FrameSource& fs, int image, uint32_t ci) const {
    const float U = fmul(__uint2float_rn(p[image][1][ci]), fs.inv_peak);
    const float V = fmul(__uint2float_rn(p[image][2][ci]), fs.inv_peak);
    return make_float2(fmul(fsub(U, fs.m.c_off), fs.m.c_scale),
                       fmul(fsub(V, fs.m.c_off), fs.m.c_scale));
  }
  // 2.3-2.5: luma sample li with its chroma terms to linear RGB.
  __device__ __forceinline__ float3 yuv(const FrameSource& fs, int image, uint32_t li,
                                        float2 uv) const {
    const YuvMatrixDev& m = fs.m;
    const float Y = fmul(__uint2float_rn(p[image][0][li]), fs.inv_peak);
    const float yn = fmul(fsub(Y, m.y_off), m.y_scale);
    const float un = uv.x, vn = uv.y;
    const float r = fadd(yn, fmul(m.cr_r, vn));
    const float g = fadd(fadd(yn, fmul(m.cb_g, un)), fmul(m.cr_g, vn));
    const float b = fadd(yn, fmul(m.cb_b, un));
    return make_float3(srgb_eotf01(clamp01(r)), srgb_eotf01(clamp01(g)), srgb_eotf01(clamp01(b)));
  }
  // Section 13: an R'G'B' pixel normalised and linearised, no matrix.
  __device__ __forceinline__ float3 rgb(const FrameSource& fs, int image, uint32_t li) const {
    return make_float3(srgb_eotf01(fmul(__uint2float_rn(p[image][0][li]), fs.inv_peak)),
                       srgb_eotf01(fmul(__uint2float_rn(p[image][1][li]), fs.inv_peak)),
                       srgb_eotf01(fmul(__uint2float_rn(p[image][2][li]), fs.inv_peak)));
  }
};

// Pixel i of a level's linear planes (ref R G B, dis R G B, n pixels each).
__device__ __forceinline__ float3 level_pixel(const float* linear, size_t n, int image,
                                              uint32_t i) {
  const float* base = linear + size_t(3 * image) * n;
  return make_float3(__ldg(base + i), __ldg(base + n + i), __ldg(base + 2 * n + i));
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
    if constexpr (kYuvSource<kSource>) {
      ccol[d] = chroma_index(col[d], fs.pw, w);
      crow[d] = chroma_index(row[d], fs.ph, h);
    }
  }
}

// ---- the kernel --------------------------------------------------------------------------------

constexpr int kTBlock = 16;  // threads per block side: a block covers 32 x 32 pixels
using XybTile = float[6][2 * kTBlock][2 * kTBlock + 1];  // [plane][x][y]

// Thread (ox, oy) of the half-size grid, both images: the linear RGB of its (up to) four pixels
// (the last row and column repeated for odd sizes, section 4), the XYB of those inside the picture
// into the block's tile (+0 outside it; kDump: their linear RGB into `linear_dump` too), and the
// downsample into `down`: the four added in the order (0,0), (0,1), (1,0), (1,1) from 0.0f, times
// 0.25f. For Y'CbCr sources whose 2x2 block maps to ONE chroma sample (4:2:0 with even sizes, and
// the clamped edges) that sample's terms are formed once per image instead of four times (a
// warp-uniform branch in practice; other blocks take the per-pixel chroma). The caller checks that
// (ox, oy) lies inside the half-size grid.
template <Source kSource, bool kDump>
__device__ __forceinline__ void xyb_block(const FrameSource& fs, const float* __restrict__ linear,
                                          uint32_t w, uint32_t h, uint32_t ox, uint32_t oy,
                                          float cbrt_bias, float* __restrict__ down,
                                          bool write_down, float* __restrict__ linear_dump,
                                          XybTile& tile) {
  const uint32_t ow = (w + 1) / 2, oh = (h + 1) / 2;
  const uint32_t n = w * h;  // fewer than 2^32 samples (FramePipeline::init checks)
  const int tx = threadIdx.x, ty = threadIdx.y;
  float sum[2][3] = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}};
  uint32_t col[2], row[2], ccol[2] = {0, 0}, crow[2] = {0, 0};
  block_indices<kSource>(fs, w, h, ox, oy, col, row, ccol, crow);
  const FrameSamples<kSource> src(fs);
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
          p[dx] = make_float3(0.0f, 0.0f, 0.0f);
          if (owned[dx]) {
            p[dx] = xyb_pixel(rgb, cbrt_bias);
            if constexpr (kDump) {
              float* dl = linear_dump + size_t(3 * image) * n + li[dx];
              dl[0] = rgb.x;
              dl[n] = rgb.y;
              dl[2 * size_t(n)] = rgb.z;
            }
          }
          tile[3 * image][2 * tx + dx][2 * ty + dy] = p[dx].x;
          tile[3 * image + 1][2 * tx + dx][2 * ty + dy] = p[dx].y;
          tile[3 * image + 2][2 * tx + dx][2 * ty + dy] = p[dx].z;
        }
      }
    }
  };
  if constexpr (kYuvSource<kSource>) {
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
    pixels([&](int image, uint32_t li, int, int) { return level_pixel(linear, n, image, li); });
  } else {
    pixels([&](int image, uint32_t li, int, int) { return src.rgb(fs, image, li); });
  }
  if (write_down) {
    const uint32_t nn = ow * oh, o = oy * ow + ox;
#pragma unroll
    for (int p = 0; p < 6; ++p) down[size_t(p) * nn + o] = fmul(sum[p / 3][p % 3], 0.25f);
  }
}

// A block of 16 x 16 threads covers a 32 x 32 pixel block of the planes; the grid covers the
// padded planes, and threads wholly outside the picture store zeros, so the padding is rewritten
// every frame (the chain and sequential schedules share one set of planes between scales of
// different sizes). The XYB values go to a shared tile, then each warp stores whole 32-row
// columns (128 bytes): the tile is one 4 KB block of each plane. The downsample into the next
// level keeps the row-major layout.
template <Source kSource, bool kDump = false>
__global__ void __launch_bounds__(kTBlock* kTBlock)
    xyb_downsample_kernel(FrameSource fs, const float* __restrict__ linear, uint32_t w, uint32_t h,
                          float cbrt_bias, float* __restrict__ xyb_t, uint32_t rows_t,
                          size_t plane_t, float* __restrict__ down, bool write_down,
                          float* __restrict__ linear_dump) {
  __shared__ XybTile tile;
  const uint32_t ow = (w + 1) / 2, oh = (h + 1) / 2;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const uint32_t ox = blockIdx.x * kTBlock + tx;
  const uint32_t oy = blockIdx.y * kTBlock + ty;
  if (ox >= ow || oy >= oh) {  // the whole 2x2 block lies outside the picture: padding
#pragma unroll
    for (int p = 0; p < 6; ++p)
#pragma unroll
      for (int d = 0; d < 4; ++d) tile[p][2 * tx + (d & 1)][2 * ty + (d >> 1)] = 0.0f;
  } else {
    xyb_block<kSource, kDump>(fs, linear, w, h, ox, oy, cbrt_bias, down, write_down, linear_dump,
                              tile);
  }
  __syncthreads();
  const int warp = (ty * kTBlock + tx) / 32, lane = (ty * kTBlock + tx) % 32;
  const size_t block0 = (size_t(blockIdx.x) * (rows_t >> 5) + blockIdx.y) * 1024;
  constexpr int kWarps = kTBlock * kTBlock / 32;
#pragma unroll 4
  for (int e = warp; e < 6 * 2 * kTBlock; e += kWarps) {
    const int p = e / (2 * kTBlock), xl = e % (2 * kTBlock);
    xyb_t[size_t(p) * plane_t + block0 + size_t(xl) * 32 + lane] = tile[p][xl][lane];
  }
}

// ---- the device check of the fast cube root and EOTF (tests) ----------------------------------

// Every f32 bit pattern x = base + i: the cube root as xyb_pixel takes it (cbrt_approx_seq where
// cbrt_seq_exact) against cbrt_approx, and srgb_eotf01 against srgb_eotf on clamp01(x) (the R'G'B'
// samples times 1/peak lie in [0, 1], a subset).
__global__ void cbrt_check_kernel(uint64_t base, uint64_t count, unsigned long long* mismatches) {
  unsigned long long bad = 0, eotf_bad = 0;
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < count;
       i += uint64_t(gridDim.x) * blockDim.x) {
    const float x = __uint_as_float(uint32_t(base + i));
    const float fast = cbrt_seq_exact(x) ? cbrt_approx_seq(x) : cbrt_approx(x);
    bad += __float_as_uint(fast) != __float_as_uint(cbrt_approx(x));
    const float c = clamp01(x);
    eotf_bad += __float_as_uint(srgb_eotf01(c)) != __float_as_uint(srgb_eotf(c));
  }
  // Integer atomics: the counts do not depend on the order.
  if (bad) atomicAdd(mismatches, bad);
  if (eotf_bad) atomicAdd(mismatches + 1, eotf_bad);
}

}  // namespace

FrameSource frame_source(const PictureFormat& format, const YuvMatrix* matrix) {
  FrameSource fs{};
  for (unsigned k = 0; k < 3; ++k) fs.offset[k] = format.plane_offset(k);
  fs.pw = format.plane_width(1);
  fs.ph = format.plane_height(1);
  fs.inv_peak = inverse_peak(format.bit_depth);
  if (matrix)
    fs.m = YuvMatrixDev{matrix->cr_r,    matrix->cb_b,    matrix->cb_g,  matrix->cr_g,
                        matrix->y_scale, matrix->c_scale, matrix->y_off, matrix->c_off};
  return fs;
}

void launch_xyb(const XybLaunch& l, cudaStream_t stream) {
  const dim3 grid(l.plane.cols_t / (2 * kTBlock), l.plane.rows_t / (2 * kTBlock));
  const dim3 block(kTBlock, kTBlock);
  auto go = [&](auto kernel, float* dump) {
    kernel<<<grid, block, 0, stream>>>(l.source, l.linear, l.width, l.height, kCbrtBias, l.xyb,
                                       l.plane.rows_t, l.plane.floats, l.down, l.down != nullptr,
                                       dump);
  };
  float* dump = l.linear_dump;
  if (l.linear)
    go(xyb_downsample_kernel<Source::kLinear>, nullptr);
  else if (dump && l.rgb && l.wide)
    go(xyb_downsample_kernel<Source::kRgb16, true>, dump);
  else if (dump && l.rgb)
    go(xyb_downsample_kernel<Source::kRgb8, true>, dump);
  else if (dump && l.wide)
    go(xyb_downsample_kernel<Source::kYuv16, true>, dump);
  else if (dump)
    go(xyb_downsample_kernel<Source::kYuv8, true>, dump);
  else if (l.rgb && l.wide)
    go(xyb_downsample_kernel<Source::kRgb16>, nullptr);
  else if (l.rgb)
    go(xyb_downsample_kernel<Source::kRgb8>, nullptr);
  else if (l.wide)
    go(xyb_downsample_kernel<Source::kYuv16>, nullptr);
  else
    go(xyb_downsample_kernel<Source::kYuv8>, nullptr);
  check_launch("ssimulacra2: xyb_downsample_kernel");
}

void launch_cbrt_check(unsigned long long* mismatches, cudaStream_t stream) {
  cbrt_check_kernel<<<4096, 256, 0, stream>>>(0, uint64_t{1} << 32, mismatches);
  check_launch("ssimulacra2: cbrt_check_kernel");
}

}  // namespace vqx::ssimulacra2::cuda
