// MS-SSIM / SSIM stages on CUDA (shared/spec/ms_ssim.md section 10; contract in
// shared/spec/README.md). Every per-pixel value is computed with the CPU's operations in the
// CPU's order: f32 products rounded to f32, widened exactly, added to an f64 accumulator tap by
// tap (spec 3.3, 4.1); explicit __*_rn intrinsics so that nothing can be contracted (the build
// also has --fmad=false). Only the per-scale sums differ from the CPU's sequential ones: a fixed
// tree of double-double sums (tile -> block tree -> one tree per scale and quantity), whose shape
// depends only on the plane size (a thread's run of outputs in order in f64, then the block and
// scale trees in double-double). No floating-point atomics. The window kernel's per-thread
// arithmetic (register-blocked runs, symmetric taps formed once) lives in ssim_tile.h, which the
// host test float_ms_ssim_tile_test runs against the plain twins.
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
#include <cstring>
#include <stdexcept>

#include "engine/cuda/cuda_check.h"
#include "metrics/float_ms_ssim/cuda/ssim_cuda.h"
#include "metrics/float_ms_ssim/cuda/ssim_tile.h"
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
// plane (rows padded to kInStride for 16-byte loads), its horizontal pass kTileW x (kTileH + 10)
// values of each of the five quantities. Register blocking (ssim_tile.h): a horizontal item is a
// run of kRunH outputs of one row, a vertical item a run of kRunV outputs of one column.
constexpr int kTileW = 32, kTileH = 64, kThreads = 256;
constexpr int kRunH = 8, kRunV = 8;
constexpr int kInW = kTileW + kWindowMargin, kInH = kTileH + kWindowMargin;
constexpr int kRunLoads = (kRunH + kWindowMargin + 3) / 4;  // float4 loads of a run's samples
constexpr int kInStride = 44;  // the last run's loads stay inside the row
constexpr int kQuantities = 5;  // mu_r, mu_d, r*r, d*d, r*d
constexpr size_t kInputFloats = 2 * size_t(kInH) * kInStride;
constexpr size_t kWindowSmem = (kInputFloats + size_t(kQuantities) * kInH * kTileW) * sizeof(float);
static_assert(kInStride >= kInW && kInStride % 4 == 0 && kInStride >= kTileW - kRunH + 4 * kRunLoads, "input rows");
static_assert(kTileW % kRunH == 0 && kTileH % kRunV == 0 && kRunH % 4 == 0, "runs tile the tile");
static_assert((kTileW * kTileH) / kRunV == kThreads, "one vertical run per thread");
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

// The CPU's Gaussian taps for ssim_tile.h (device: constant memory; host pass of nvcc: the table).
struct DeviceGaussian {
  static __host__ __device__ __forceinline__ float g(int t) {
#if defined(__CUDA_ARCH__)
    return c_gaussian[t];
#else
    return kGaussian[t];
#endif
  }
};

__global__ void __launch_bounds__(kThreads, 2) window_kernel(const __grid_constant__ JobTable t) {
  extern __shared__ __align__(16) float smem[];
  float(*in)[kInH][kInStride] = reinterpret_cast<float(*)[kInH][kInStride]>(smem);  // [ref, dis]
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
  const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;

  // Input tile: a warp per row, a lane per column (no index division).
  const float inverse_r = inverse_divisor(job.ref.bit_depth), inverse_d = inverse_divisor(job.dis.bit_depth);
  for (int r = warp; r < in_rows; r += kThreads / 32) {
    const size_t row = size_t(y0 + r) * size_t(size.width) + size_t(x0);
    for (int c = lane; c < in_cols; c += 32) {
      in[0][r][c] = load_sample(job.ref, row + size_t(c), inverse_r);
      in[1][r][c] = load_sample(job.dis, row + size_t(c), inverse_d);
    }
  }
  __syncthreads();

  // Horizontal pass (window_h_one): item = (row, run of kRunH columns); a warp covers 8 rows x 4
  // runs (conflict-free 16-byte loads). Columns past `cols` read padding/stale words, never used.
  constexpr int kRunsPerRow = kTileW / kRunH;
  for (int i = int(threadIdx.x); i < in_rows * kRunsPerRow; i += kThreads) {
    const int r = i / kRunsPerRow, c0 = (i % kRunsPerRow) * kRunH;
    if (c0 >= cols) continue;
    float rv[4 * kRunLoads], dv[4 * kRunLoads];
#pragma unroll
    for (int v = 0; v < kRunLoads; ++v) {
      const float4 a = *reinterpret_cast<const float4*>(&in[0][r][c0 + 4 * v]);
      const float4 b = *reinterpret_cast<const float4*>(&in[1][r][c0 + 4 * v]);
      rv[4 * v] = a.x, rv[4 * v + 1] = a.y, rv[4 * v + 2] = a.z, rv[4 * v + 3] = a.w;
      dv[4 * v] = b.x, dv[4 * v + 1] = b.y, dv[4 * v + 2] = b.z, dv[4 * v + 3] = b.w;
    }
    float out[kQuantities][kRunH];
    tile::horizontal_run<kRunH, DeviceGaussian>(rv, dv, out);
#pragma unroll
    for (int q = 0; q < kQuantities; ++q)
#pragma unroll
      for (int v = 0; v < kRunH / 4; ++v)
        *reinterpret_cast<float4*>(&pass[q][r][c0 + 4 * v]) =
            make_float4(out[q][4 * v], out[q][4 * v + 1], out[q][4 * v + 2], out[q][4 * v + 3]);
  }
  __syncthreads();

  // Vertical pass, statistics and terms (window_v_terms_one): item = (column, run of kRunV rows);
  // a warp per run of rows, a lane per column. Per-thread sums: the run's outputs in order, f64.
  const int c = lane, ry = warp * kRunV;
  double acc[kSumQuantities] = {0.0, 0.0, 0.0, 0.0};
  if (c < cols && ry < rows) {
    float stat[kQuantities][kRunV];
#pragma unroll
    for (int q = 0; q < kQuantities; ++q) {
      float col[kRunV + kWindowMargin];
#pragma unroll
      for (int i = 0; i < kRunV + kWindowMargin; ++i) col[i] = pass[q][ry + i][c];
      switch (q) {  // constant after unrolling
        case 0: tile::convolve_run<kRunV, tile::kQuantityWiden[0], DeviceGaussian>(col, stat[0]); break;
        case 1: tile::convolve_run<kRunV, tile::kQuantityWiden[1], DeviceGaussian>(col, stat[1]); break;
        case 2: tile::convolve_run<kRunV, tile::kQuantityWiden[2], DeviceGaussian>(col, stat[2]); break;
        case 3: tile::convolve_run<kRunV, tile::kQuantityWiden[3], DeviceGaussian>(col, stat[3]); break;
        default: tile::convolve_run<kRunV, tile::kQuantityWiden[4], DeviceGaussian>(col, stat[4]); break;
      }
    }
    const WindowTaps& taps = job.taps;
    const int n = min(kRunV, rows - ry);
#pragma unroll
    for (int y = 0; y < kRunV; ++y) {
      if (y >= n) break;
      const tile::Terms term = tile::lcs_terms(stat[0][y], stat[1][y], stat[2][y], stat[3][y], stat[4][y]);
      const double sd = widen(term.s);
      acc[0] = __dadd_rn(acc[0], term.l);
      acc[1] = __dadd_rn(acc[1], term.c);
      acc[2] = __dadd_rn(acc[2], sd);
      acc[3] = __dadd_rn(acc[3], __dmul_rn(__dmul_rn(term.l, term.c), sd));  // (l*c)*s, upstream's ssim term
      if (taps.mu_r) {
        const size_t o = size_t(y0 + ry + y) * size_t(map.width) + size_t(x0 + c);
        taps.mu_r[o] = stat[0][y];
        taps.mu_d[o] = stat[1][y];
        taps.sum_rr[o] = stat[2][y];
        taps.sum_dd[o] = stat[3][y];
        taps.sum_rd[o] = stat[4][y];
        taps.l[o] = term.l;
        taps.c[o] = term.c;
        taps.s[o] = term.s;
      }
    }
  }
  __syncthreads();  // the pass region becomes the tree's scratch

  auto red = reinterpret_cast<DoubleDouble(*)[kThreads]>(smem + kInputFloats);
#pragma unroll
  for (int q = 0; q < kSumQuantities; ++q) red[q][threadIdx.x] = {acc[q], 0.0};
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
  // The window kernel forms the product of a sample with taps t and 10 - t once (ssim_tile.h).
  for (int k = 0; k < kWindowTaps; ++k)
    if (std::memcmp(&kGaussian[k], &kGaussian[kWindowMargin - k], sizeof(float)) != 0)
      throw std::logic_error("ssim: the window kernel needs a symmetric Gaussian table");
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
