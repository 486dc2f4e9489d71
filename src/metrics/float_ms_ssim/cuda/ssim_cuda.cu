// MS-SSIM / SSIM stages on CUDA (shared/spec/ms_ssim.md section 10; contract in
// shared/spec/README.md). Every per-pixel value is computed with the CPU's operations in the
// CPU's order: f32 products rounded to f32, widened exactly, added to an f64 accumulator tap by
// tap (spec 3.3, 4.1); explicit __*_rn intrinsics so that nothing can be contracted (the build
// also has --fmad=false). Only the per-scale sums differ from the CPU's sequential ones: a fixed
// tree of double-double sums (tile -> block tree -> one tree per scale and quantity), whose shape
// depends only on the plane size. No floating-point atomics.
//
// Why two widenings. Each tap adds f64(p) for an f32 product p. The f32->f64 conversion
// instruction runs at a quarter of the f64 add rate on sm_90 and would bound every kernel here.
// widen_scaled() builds p * 2^-896 from p's bits with integer operations instead (exact for every
// finite f32, subnormals and signed zeros included). An accumulator fed only scaled terms holds
// exactly 2^-896 times the CPU's accumulator after every add: all terms and partial sums are
// multiples of 2^-149 (2^-1045 scaled), so a partial sum is either >= 2^-126 (scaled: a normal
// f64, where rounding commutes with the power-of-two scale) or an exact multiple of 2^-149 below
// 2^-126 (exact in both). Multiplying by 2^896 at the end restores the CPU's f64 sum exactly.
// Some quantities use the conversion instruction and others the integer path, so that both
// pipes work at once; a quantity never mixes the two.
#include <algorithm>

#include "engine/cuda/cuda_check.h"
#include "metrics/float_ms_ssim/cuda/ssim_cuda.h"
#include "metrics/float_ssim/float_ssim.h"

namespace vqx::ssim::cuda {
namespace {

// The CPU's tables, copied by prepare_device() (never recomputed).
__constant__ float c_gaussian[kWindowTaps];
__constant__ float c_lpf[kLpfTaps][kLpfTaps];

constexpr double kScaleUp = 0x1p896;

__device__ __forceinline__ double widen(float p) { return double(p); }  // exact

// p * 2^-896, exactly, for any finite p: the f32 sign, exponent and fraction fields moved to the
// f64 positions without rebiasing (the missing bias 1023 - 127 = 896 is the scale).
__device__ __forceinline__ double widen_scaled(float p) {
  const unsigned u = __float_as_uint(p);
  const int hi = (int(u) >> 3) & int(0x8fffffffu);  // sign stays at bit 31; bits 30..28 cleared
  return __hiloint2double(hi, int(u << 29));
}

// The same for p with its sign bit clear (+0 and positive values): one operation less.
__device__ __forceinline__ double widen_scaled_nonneg(float p) {
  const unsigned u = __float_as_uint(p);
  return __hiloint2double(int(u >> 3), int(u << 29));
}

__device__ __forceinline__ float unscale_to_f32(double scaled_sum) {
  return __double2float_rn(__dmul_rn(scaled_sum, kScaleUp));
}

// Half-sample symmetric extension, single reflection (spec 3.3), as ssim::reflect.
__device__ __forceinline__ int reflect_index(int i, int n) {
  return i < 0 ? -1 - i : (i >= n ? 2 * n - 1 - i : i);
}

// 1 / 2^(bpc - 8): multiplying by it equals convert_luma's division by 2^(bpc - 8) (both exact).
__device__ __forceinline__ float inverse_divisor(uint32_t bit_depth) {
  return __int_as_float((127 - int(bit_depth - 8)) << 23);
}

// Sample i of a plane as f32 on the 8-bit scale (spec section 1).
__device__ __forceinline__ float load_sample(const DevicePlane& p, size_t i, float inverse) {
  switch (p.type) {
    case SampleType::kU8:
      return __fmul_rn(__uint2float_rn(static_cast<const uint8_t*>(p.data)[i]), inverse);
    case SampleType::kU16:
      return __fmul_rn(__uint2float_rn(static_cast<const uint16_t*>(p.data)[i]), inverse);
    default:
      return static_cast<const float*>(p.data)[i];
  }
}

// ---- Double-double sums ---------------------------------------------------------------------

struct DoubleDouble {
  double hi, lo;
};

// hi + x with the exact rounding error of that add kept in lo (TwoSum).
__device__ __forceinline__ void dd_add(DoubleDouble& a, double x) {
  const double s = __dadd_rn(a.hi, x);
  const double bp = __dsub_rn(s, a.hi);
  const double err = __dadd_rn(__dsub_rn(a.hi, __dsub_rn(s, bp)), __dsub_rn(x, bp));
  a.hi = s;
  a.lo = __dadd_rn(a.lo, err);
}

__device__ __forceinline__ DoubleDouble dd_sum(DoubleDouble a, DoubleDouble b) {
  const double s = __dadd_rn(a.hi, b.hi);
  const double bp = __dsub_rn(s, a.hi);
  double e = __dadd_rn(__dsub_rn(a.hi, __dsub_rn(s, bp)), __dsub_rn(b.hi, bp));
  e = __dadd_rn(e, __dadd_rn(a.lo, b.lo));
  const double hi = __dadd_rn(s, e);
  return {hi, __dsub_rn(e, __dsub_rn(hi, s))};
}

// Fixed tree over kThreads entries of red[q][.] for every quantity; the result is in red[q][0].
template <int kThreads>
__device__ __forceinline__ void block_tree(DoubleDouble (*red)[kThreads]) {
#pragma unroll
  for (int stride = kThreads / 2; stride > 0; stride >>= 1) {
    if (int(threadIdx.x) < stride)
#pragma unroll
      for (int q = 0; q < kSumQuantities; ++q)
        red[q][threadIdx.x] = dd_sum(red[q][threadIdx.x], red[q][threadIdx.x + stride]);
    __syncthreads();
  }
}

// ---- Decimation (spec 3.2, 3.3) --------------------------------------------------------------

constexpr int kDecTileW = 32, kDecTileH = 8, kDecThreads = kDecTileW * kDecTileH;
// Input rows of a tile, and its input columns split into even and odd samples as the CPU does
// (ssim_row_kernels.h): even[j] = row[2j-4], odd[j] = row[2j-3], so output x, tap u reads
// (u odd ? odd : even)[x + u/2] and neighbouring threads read neighbouring words.
constexpr int kDecRows = 2 * kDecTileH + kLpfTaps - 2;
constexpr int kDecSplit = kDecTileW + kLpfRadius;

__global__ void __launch_bounds__(kDecThreads) decimate_kernel(DevicePlane ref, DevicePlane dis,
                                                               float* out_ref, float* out_dis,
                                                               Size half) {
  __shared__ float split[2][2][kDecRows][kDecSplit];  // [image][even, odd][row][j]
  const Size in = ref.size;
  const int x0 = int(blockIdx.x) * kDecTileW, y0 = int(blockIdx.y) * kDecTileH;
  const int cols = min(kDecTileW, half.width - x0), rows = min(kDecTileH, half.height - y0);
  const int load_rows = 2 * rows + kLpfTaps - 2, load_cols = cols + kLpfRadius;
  const float inverse_r = inverse_divisor(ref.bit_depth), inverse_d = inverse_divisor(dis.bit_depth);
  for (int i = int(threadIdx.x); i < load_rows * load_cols; i += kDecThreads) {
    const int r = i / load_cols, j = i % load_cols;
    const size_t row = size_t(reflect_index(2 * y0 + r - kLpfRadius, in.height)) * size_t(in.width);
    const size_t even = row + size_t(reflect_index(2 * (x0 + j) - kLpfRadius, in.width));
    const size_t odd = row + size_t(reflect_index(2 * (x0 + j) - kLpfRadius + 1, in.width));
    split[0][0][r][j] = load_sample(ref, even, inverse_r);
    split[0][1][r][j] = load_sample(ref, odd, inverse_r);
    split[1][0][r][j] = load_sample(dis, even, inverse_d);
    split[1][1][r][j] = load_sample(dis, odd, inverse_d);
  }
  __syncthreads();
  const int tx = int(threadIdx.x) % kDecTileW, ty = int(threadIdx.x) / kDecTileW;
  if (tx >= cols || ty >= rows) return;
  // Rows outer, columns inner; f32 product, widened, f64 add. The reference goes through the
  // conversion instruction, the distorted plane through widen_scaled (file comment).
  double sum_r = 0.0, sum_d = 0.0;
#pragma unroll
  for (int v = 0; v < kLpfTaps; ++v) {
#pragma unroll
    for (int u = 0; u < kLpfTaps; ++u) {
      const float g = c_lpf[v][u];
      const float a = split[0][u & 1][2 * ty + v][tx + u / 2];
      const float b = split[1][u & 1][2 * ty + v][tx + u / 2];
      sum_r = __dadd_rn(sum_r, widen(__fmul_rn(a, g)));
      sum_d = __dadd_rn(sum_d, widen_scaled(__fmul_rn(b, g)));
    }
  }
  const size_t o = size_t(y0 + ty) * size_t(half.width) + size_t(x0 + tx);
  out_ref[o] = __double2float_rn(sum_r);
  out_dis[o] = unscale_to_f32(sum_d);
}

// ---- Box decimation (float_ssim) ----------------------------------------------------------------

__global__ void box_decimate_kernel(DevicePlane in, int factor, float* out, Size small) {
  const int x = int(blockIdx.x * blockDim.x + threadIdx.x), y = int(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= small.width || y >= small.height) return;
  const float inverse = inverse_divisor(in.bit_depth);
  const float weight = __fdiv_rn(1.0f, float(factor * factor));  // f32, as the CPU's
  const int lo = -(factor / 2), hi = factor - 1 - factor / 2;
  double sum = 0.0;
  for (int v = lo; v <= hi; ++v) {
    const size_t row = size_t(reflect_index(y * factor + v, in.size.height)) * size_t(in.size.width);
    for (int u = lo; u <= hi; ++u) {
      const float p = load_sample(in, row + size_t(reflect_index(x * factor + u, in.size.width)), inverse);
      sum = __dadd_rn(sum, widen(__fmul_rn(p, weight)));
    }
  }
  out[size_t(y) * size_t(small.width) + size_t(x)] = __double2float_rn(sum);
}

// ---- Windows, statistics, terms, tile sums (spec 4.1-4.3) ---------------------------------------

// A tile is kTileW x kTileH map pixels; its input is (kTileW + 10) x (kTileH + 10) samples of each
// plane, its horizontal pass kTileW x (kTileH + 10) values of each of the five quantities.
constexpr int kTileW = 32, kTileH = 64, kThreads = 256;
constexpr int kInW = kTileW + kWindowMargin, kInH = kTileH + kWindowMargin;
constexpr int kQuantities = 5;  // mu_r, mu_d, r*r, d*d, r*d
constexpr size_t kInputFloats = 2 * size_t(kInH) * kInW;
constexpr size_t kWindowSmem = (kInputFloats + size_t(kQuantities) * kInH * kTileW) * sizeof(float);
static_assert(kInputFloats * sizeof(float) % 16 == 0, "the pass region must stay aligned for doubles");
static_assert(size_t(kQuantities) * kInH * kTileW * sizeof(float) >=
                  sizeof(DoubleDouble) * kSumQuantities * kThreads,
              "the block tree reuses the horizontal-pass region");

struct JobTable {
  ScaleJob job[kMaxJobs];
  PartialSum* partials[kMaxJobs];
  int tiles_x[kMaxJobs];
  int block_begin[kMaxJobs + 1];
  int count;
};

__device__ __forceinline__ void lcs_terms(float mu_r, float mu_d, float sum_rr, float sum_dd,
                                          float sum_rd, double& l, double& c, float& s) {
  // pixel_statistics: f32, MAX(0, v) as upstream writes it (keeps -0 and NaN).
  float var_r = __fsub_rn(sum_rr, __fmul_rn(mu_r, mu_r));
  float var_d = __fsub_rn(sum_dd, __fmul_rn(mu_d, mu_d));
  var_r = 0.0f > var_r ? 0.0f : var_r;
  var_d = 0.0f > var_d ? 0.0f : var_d;
  const float cov = __fsub_rn(sum_rd, __fmul_rn(mu_r, mu_d));
  // lcs_term (spec 4.3): sqrt in f64 of the f32 product, rounded to f32; l and c are f64
  // divisions of an f64 numerator by an f32 denominator; s is all f32.
  const float sigma = __double2float_rn(__dsqrt_rn(widen(__fmul_rn(var_r, var_d))));
  l = __ddiv_rn(__dadd_rn(__dmul_rn(__dmul_rn(2.0, widen(mu_r)), widen(mu_d)), widen(kC1)),
                widen(__fadd_rn(__fadd_rn(__fmul_rn(mu_r, mu_r), __fmul_rn(mu_d, mu_d)), kC1)));
  c = __ddiv_rn(__dadd_rn(__dmul_rn(2.0, widen(sigma)), widen(kC2)),
                widen(__fadd_rn(__fadd_rn(var_r, var_d), kC2)));
  const float cov_fixed = (cov < 0.0f && sigma <= 0.0f) ? 0.0f : cov;  // zli-nflx flat fix
  s = __fdiv_rn(__fadd_rn(cov_fixed, kC3), __fadd_rn(sigma, kC3));
}

__global__ void __launch_bounds__(kThreads, 3) window_kernel(const __grid_constant__ JobTable t) {
  extern __shared__ __align__(16) float smem[];
  float(*in)[kInH][kInW] = reinterpret_cast<float(*)[kInH][kInW]>(smem);  // [ref, dis]
  float(*pass)[kInH][kTileW] = reinterpret_cast<float(*)[kInH][kTileW]>(smem + kInputFloats);

  int j = 0;
  while (j + 1 < t.count && int(blockIdx.x) >= t.block_begin[j + 1]) ++j;
  const ScaleJob& job = t.job[j];
  const int tile = int(blockIdx.x) - t.block_begin[j];
  const Size size = job.ref.size;
  const Size map = {size.width - kWindowMargin, size.height - kWindowMargin};  // map_size
  const int x0 = (tile % t.tiles_x[j]) * kTileW, y0 = (tile / t.tiles_x[j]) * kTileH;
  const int cols = min(kTileW, map.width - x0), rows = min(kTileH, map.height - y0);
  const int in_cols = cols + kWindowMargin, in_rows = rows + kWindowMargin;

  const float inverse_r = inverse_divisor(job.ref.bit_depth), inverse_d = inverse_divisor(job.dis.bit_depth);
  for (int i = int(threadIdx.x); i < in_rows * in_cols; i += kThreads) {
    const int r = i / in_cols, c = i % in_cols;
    const size_t index = size_t(y0 + r) * size_t(size.width) + size_t(x0 + c);
    in[0][r][c] = load_sample(job.ref, index, inverse_r);
    in[1][r][c] = load_sample(job.dis, index, inverse_d);
  }
  __syncthreads();

  // Horizontal pass (window_h_one): a warp per row, a lane per column.
  for (int i = int(threadIdx.x); i < in_rows * kTileW; i += kThreads) {
    const int r = i / kTileW, c = i % kTileW;
    if (c >= cols) continue;
    double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0, a4 = 0.0;  // a2..a4 scaled by 2^-896
#pragma unroll
    for (int k = 0; k < kWindowTaps; ++k) {
      const float rv = in[0][r][c + k], dv = in[1][r][c + k], g = c_gaussian[k];
      a0 = __dadd_rn(a0, widen(__fmul_rn(rv, g)));
      a1 = __dadd_rn(a1, widen(__fmul_rn(dv, g)));
      // Squares are never negative (-0 * -0 = +0), so the short path applies.
      a2 = __dadd_rn(a2, widen_scaled_nonneg(__fmul_rn(__fmul_rn(rv, rv), g)));
      a3 = __dadd_rn(a3, widen_scaled_nonneg(__fmul_rn(__fmul_rn(dv, dv), g)));
      a4 = __dadd_rn(a4, widen_scaled(__fmul_rn(__fmul_rn(rv, dv), g)));
    }
    pass[0][r][c] = __double2float_rn(a0);
    pass[1][r][c] = __double2float_rn(a1);
    pass[2][r][c] = unscale_to_f32(a2);
    pass[3][r][c] = unscale_to_f32(a3);
    pass[4][r][c] = unscale_to_f32(a4);
  }
  __syncthreads();

  // Vertical pass, statistics and terms (window_v_terms_one), summed per thread in a fixed order.
  DoubleDouble acc[kSumQuantities] = {};
  const WindowTaps& taps = job.taps;
  for (int i = int(threadIdx.x); i < rows * kTileW; i += kThreads) {
    const int y = i / kTileW, c = i % kTileW;
    if (c >= cols) continue;
    double b0 = 0.0, b1 = 0.0, b2 = 0.0, b3 = 0.0, b4 = 0.0;  // b2..b4 scaled by 2^-896
#pragma unroll
    for (int k = 0; k < kWindowTaps; ++k) {
      const float g = c_gaussian[k];
      b0 = __dadd_rn(b0, widen(__fmul_rn(pass[0][y + k][c], g)));
      b1 = __dadd_rn(b1, widen(__fmul_rn(pass[1][y + k][c], g)));
      // Horizontal sums of squares are never negative either.
      b2 = __dadd_rn(b2, widen_scaled_nonneg(__fmul_rn(pass[2][y + k][c], g)));
      b3 = __dadd_rn(b3, widen_scaled_nonneg(__fmul_rn(pass[3][y + k][c], g)));
      b4 = __dadd_rn(b4, widen_scaled(__fmul_rn(pass[4][y + k][c], g)));
    }
    const float mu_r = __double2float_rn(b0), mu_d = __double2float_rn(b1);
    const float sum_rr = unscale_to_f32(b2), sum_dd = unscale_to_f32(b3), sum_rd = unscale_to_f32(b4);
    double l, cs;
    float s;
    lcs_terms(mu_r, mu_d, sum_rr, sum_dd, sum_rd, l, cs, s);
    const double sd = widen(s);
    dd_add(acc[0], l);
    dd_add(acc[1], cs);
    dd_add(acc[2], sd);
    dd_add(acc[3], __dmul_rn(__dmul_rn(l, cs), sd));  // (l*c)*s, upstream's ssim_sum term
    if (taps.mu_r) {
      const size_t o = size_t(y0 + y) * size_t(map.width) + size_t(x0 + c);
      taps.mu_r[o] = mu_r;
      taps.mu_d[o] = mu_d;
      taps.sum_rr[o] = sum_rr;
      taps.sum_dd[o] = sum_dd;
      taps.sum_rd[o] = sum_rd;
      taps.l[o] = l;
      taps.c[o] = cs;
      taps.s[o] = s;
    }
  }
  __syncthreads();  // the pass region becomes the tree's scratch

  auto red = reinterpret_cast<DoubleDouble(*)[kThreads]>(smem + kInputFloats);
#pragma unroll
  for (int q = 0; q < kSumQuantities; ++q) red[q][threadIdx.x] = acc[q];
  __syncthreads();
  block_tree<kThreads>(red);
  if (threadIdx.x < kSumQuantities) {
    const DoubleDouble v = red[threadIdx.x][0];
    t.partials[j][size_t(tile) * kSumQuantities + threadIdx.x] = {v.hi, v.lo};
  }
}

// ---- Per-scale sums ---------------------------------------------------------------------------

constexpr int kReduceThreads = 256;

struct ReduceTable {
  const PartialSum* partials[kMaxJobs];
  int count[kMaxJobs];
};

// One block per (scale, quantity): thread i adds partials i, i + 256, ... in order, then the tree.
__global__ void __launch_bounds__(kReduceThreads) reduce_kernel(const __grid_constant__ ReduceTable t,
                                                                double* sums) {
  __shared__ DoubleDouble red[kReduceThreads];
  const int j = int(blockIdx.x) / kSumQuantities, q = int(blockIdx.x) % kSumQuantities;
  DoubleDouble acc = {0.0, 0.0};
  for (int i = int(threadIdx.x); i < t.count[j]; i += kReduceThreads) {
    const PartialSum p = t.partials[j][size_t(i) * kSumQuantities + q];
    acc = dd_sum(acc, {p.hi, p.lo});
  }
  red[threadIdx.x] = acc;
  __syncthreads();
  for (int stride = kReduceThreads / 2; stride > 0; stride >>= 1) {
    if (int(threadIdx.x) < stride) red[threadIdx.x] = dd_sum(red[threadIdx.x], red[threadIdx.x + stride]);
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[j * kSumQuantities + q] = __dadd_rn(red[0].hi, red[0].lo);
}

int tiles_x(Size plane) { return (map_size(plane).width + kTileW - 1) / kTileW; }
int tiles_y(Size plane) { return (map_size(plane).height + kTileH - 1) / kTileH; }

}  // namespace

DevicePlane luma_plane(const void* picture, const PictureFormat& format) {
  DevicePlane p;
  p.data = picture;
  p.type = format.bit_depth > 8 ? SampleType::kU16 : SampleType::kU8;
  p.bit_depth = format.bit_depth;
  p.size = {int(format.width), int(format.height)};
  return p;
}

void prepare_device() {
  using vqx::cuda::check;
  check(cudaMemcpyToSymbol(c_gaussian, kGaussian, sizeof(c_gaussian)), "ssim: window table");
  check(cudaMemcpyToSymbol(c_lpf, kLpf, sizeof(c_lpf)), "ssim: decimation table");
  check(cudaFuncSetAttribute(window_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kWindowSmem)),
        "ssim: window kernel shared memory");
}

void enqueue_decimate(const DevicePlane& ref, const DevicePlane& dis, float* out_ref, float* out_dis,
                      cudaStream_t stream) {
  const Size half = half_size(ref.size);
  dim3 grid(unsigned((half.width + kDecTileW - 1) / kDecTileW), unsigned((half.height + kDecTileH - 1) / kDecTileH));
  decimate_kernel<<<grid, kDecThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half);
  vqx::cuda::check_launch("ssim: decimate_kernel");
}

void enqueue_box_decimate(const DevicePlane& in, int factor, float* out, cudaStream_t stream) {
  const Size small = box_decimated_size(in.size, factor);
  dim3 block(32, 8);
  dim3 grid(unsigned((small.width + 31) / 32), unsigned((small.height + 7) / 8));
  box_decimate_kernel<<<grid, block, 0, stream>>>(in, factor, out, small);
  vqx::cuda::check_launch("ssim: box_decimate_kernel");
}

size_t partial_count(Size plane) { return size_t(tiles_x(plane)) * size_t(tiles_y(plane)); }

void enqueue_windows(const ScaleJob* jobs, int count, PartialSum* const* partials, cudaStream_t stream) {
  JobTable t{};
  t.count = count;
  int blocks = 0;
  for (int j = 0; j < count; ++j) {
    t.job[j] = jobs[j];
    t.partials[j] = partials[j];
    t.tiles_x[j] = tiles_x(jobs[j].ref.size);
    t.block_begin[j] = blocks;
    blocks += int(partial_count(jobs[j].ref.size));
  }
  t.block_begin[count] = blocks;
  window_kernel<<<unsigned(blocks), kThreads, kWindowSmem, stream>>>(t);
  vqx::cuda::check_launch("ssim: window_kernel");
}

void enqueue_reduce(const Size* sizes, int count, PartialSum* const* partials, double* sums,
                    cudaStream_t stream) {
  ReduceTable t{};
  for (int j = 0; j < count; ++j) {
    t.partials[j] = partials[j];
    t.count[j] = int(partial_count(sizes[j]));
  }
  reduce_kernel<<<unsigned(count * kSumQuantities), kReduceThreads, 0, stream>>>(t, sums);
  vqx::cuda::check_launch("ssim: reduce_kernel");
}

}  // namespace vqx::ssim::cuda
