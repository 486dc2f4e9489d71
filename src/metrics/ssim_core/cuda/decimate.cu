// The pyramid's decimation (spec 3.2, 3.3): the choice of kernel by plane size and sample type,
// and the 32x8-tile kernel for the smaller planes. Every kernel gives decimate_plain's planes bit
// for bit; they differ in how they share work.
#include "engine/cuda/cuda_check.h"
#include "metrics/ssim_core/cuda/decimate_launch.h"
#include "metrics/ssim_core/cuda/ssim_device.cuh"
#include "metrics/ssim_core/cuda/ssim_tables.cuh"

namespace vqx::ssim::cuda {
namespace {

constexpr int kDecTileW = 32, kDecTileH = 8, kDecThreads = kDecTileW * kDecTileH;
// Input rows of a tile, and its input columns split into even and odd samples as the CPU does
// (ssim_row_kernels.h): even[j] = row[2j-4], odd[j] = row[2j-3], so output x, tap u reads
// (u odd ? odd : even)[x + u/2] and neighbouring threads read neighbouring words.
constexpr int kDecRows = 2 * kDecTileH + kLpfTaps - 2;
constexpr int kDecSplit = kDecTileW + kLpfRadius;

// The 81 taps of one output of each image, rows outer, columns inner: f32 product, widened,
// f64 add (spec 3.3), with widening modes MR / MD. kNonneg: no sample of the tile has its sign bit
// set (always so for raw luma): products with |g|, subtracted where g < 0 (ssim_device.cuh).
template <int MR, int MD, bool kNonneg>
__device__ __forceinline__ void decimate_taps(const float (*split)[2][kDecRows][kDecSplit], int tx,
                                              int ty, float& out_r, float& out_d) {
  double sum_r = 0.0, sum_d = 0.0;
#pragma unroll
  for (int v = 0; v < kLpfTaps; ++v) {
#pragma unroll
    for (int u = 0; u < kLpfTaps; ++u) {
      const float a = split[0][u & 1][2 * ty + v][tx + u / 2];
      const float b = split[1][u & 1][2 * ty + v][tx + u / 2];
      if constexpr (kNonneg) {
        const float g = c_tables.lpf_abs[v][u];
        const double pa = widen_as<MR>(__fmul_rn(a, g)), pb = widen_as<MD>(__fmul_rn(b, g));
        if (lpf_entry_negative(v, u)) {
          sum_r = __dsub_rn(sum_r, pa);
          sum_d = __dsub_rn(sum_d, pb);
        } else {
          sum_r = __dadd_rn(sum_r, pa);
          sum_d = __dadd_rn(sum_d, pb);
        }
      } else {
        const float g = c_tables.lpf[v][u];
        sum_r = __dadd_rn(sum_r, widen_as<MR>(__fmul_rn(a, g)));
        sum_d = __dadd_rn(sum_d, widen_as<MD>(__fmul_rn(b, g)));
      }
    }
  }
  out_r = finish_as<MR>(sum_r);
  out_d = finish_as<MD>(sum_d);
}

// 32x8 outputs per block: a warp per input row, a lane per split column (columns' reflected
// indices computed once per thread, rows once per row, no division), every load of the thread's
// rows issued before the first store. Sign-free tiles: the reference widened by conversion (XU),
// the distorted plane by shifts (ALU), decimate_taps' kNonneg path; a tile holding a sample with
// its sign bit set: the reference by conversion, the distorted plane by widen_scaled (any sign).
__global__ void __launch_bounds__(kDecThreads)
    decimate_kernel(DevicePlane ref, DevicePlane dis, float* out_ref, float* out_dis, Size half) {
  __shared__ float split[2][2][kDecRows][kDecSplit];  // [image][even, odd][row][j]
  const Size in = ref.size;
  const int x0 = int(blockIdx.x) * kDecTileW, y0 = int(blockIdx.y) * kDecTileH;
  const int cols = min(kDecTileW, half.width - x0), rows = min(kDecTileH, half.height - y0);
  const int load_rows = 2 * rows + kLpfTaps - 2, load_cols = cols + kLpfRadius;
  const float inverse_r = inverse_divisor(ref.bit_depth),
              inverse_d = inverse_divisor(dis.bit_depth);
  unsigned negative = 0;
  const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
  constexpr int kRowSteps = (kDecRows + kDecThreads / 32 - 1) / (kDecThreads / 32);
  size_t col_even[2], col_odd[2];
  bool col_ok[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int j = lane + 32 * h;
    col_ok[h] = j < load_cols;
    col_even[h] = col_ok[h] ? size_t(reflect_index(2 * (x0 + j) - kLpfRadius, in.width)) : 0;
    col_odd[h] = col_ok[h] ? size_t(reflect_index(2 * (x0 + j) - kLpfRadius + 1, in.width)) : 0;
  }
  float v[kRowSteps][2][4];
#pragma unroll
  for (int k = 0; k < kRowSteps; ++k) {
    const int r = warp + (kDecThreads / 32) * k;
    const size_t row =
        r < load_rows ? size_t(reflect_index(2 * y0 + r - kLpfRadius, in.height)) * size_t(in.width)
                      : 0;
#pragma unroll
    for (int h = 0; h < 2; ++h)
      if (r < load_rows && col_ok[h]) {
        v[k][h][0] = load_sample(ref, row + col_even[h], inverse_r);
        v[k][h][1] = load_sample(ref, row + col_odd[h], inverse_r);
        v[k][h][2] = load_sample(dis, row + col_even[h], inverse_d);
        v[k][h][3] = load_sample(dis, row + col_odd[h], inverse_d);
      }
  }
#pragma unroll
  for (int k = 0; k < kRowSteps; ++k) {
    const int r = warp + (kDecThreads / 32) * k;
#pragma unroll
    for (int h = 0; h < 2; ++h)
      if (r < load_rows && col_ok[h]) {
        const int j = lane + 32 * h;
        split[0][0][r][j] = v[k][h][0];
        split[0][1][r][j] = v[k][h][1];
        split[1][0][r][j] = v[k][h][2];
        split[1][1][r][j] = v[k][h][3];
        negative |= (__float_as_uint(v[k][h][0]) | __float_as_uint(v[k][h][1]) |
                     __float_as_uint(v[k][h][2]) | __float_as_uint(v[k][h][3])) >>
                    31;
      }
  }
  const bool any_negative = __syncthreads_or(int(negative)) != 0;
  const int tx = int(threadIdx.x) % kDecTileW, ty = int(threadIdx.x) / kDecTileW;
  if (tx >= cols || ty >= rows) return;
  float r, d;
  if (any_negative)
    decimate_taps<kCvt, kSigned, false>(split, tx, ty, r, d);
  else
    decimate_taps<kCvt, kShift, true>(split, tx, ty, r, d);
  const size_t o = size_t(y0 + ty) * size_t(half.width) + size_t(x0 + tx);
  out_ref[o] = r;
  out_dis[o] = d;
}

// From these sizes on, larger kernels pay (smaller planes have too few of their tiles to fill the
// GPU): the sweep (64x32 outputs per block) from 2e6 input samples (1080p's level 1, 4K's levels 1
// and 2), the row runs for raw luma from 3000x2000 samples (4K's level 1).
constexpr size_t kSweepMinPixels = size_t(2000000);
constexpr size_t kRowRunsMinPixels = size_t(3000) * 2000;

}  // namespace

void enqueue_decimate(const DevicePlane& ref, const DevicePlane& dis, float* out_ref,
                      float* out_dis, cudaStream_t stream) {
  const Size half = half_size(ref.size);
  if (ref.size.pixels() >= kRowRunsMinPixels && ref.type == dis.type &&
      ref.type != SampleType::kF32) {
    enqueue_decimate_row_runs(ref, dis, out_ref, out_dis, stream);
    return;
  }
  if (ref.size.pixels() >= kSweepMinPixels) {
    enqueue_decimate_sweep(ref, dis, out_ref, out_dis, stream);
    return;
  }
  const dim3 grid(unsigned((half.width + kDecTileW - 1) / kDecTileW),
                  unsigned((half.height + kDecTileH - 1) / kDecTileH));
  decimate_kernel<<<grid, kDecThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half);
  vqx::cuda::check_launch("ssim: decimate_kernel");
}

}  // namespace vqx::ssim::cuda
