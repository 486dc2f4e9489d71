#pragma once
// The window kernel's signed path (windows.cu): a tile holding a sample with its sign bit set
// (decimated levels can hold negative samples) after its input is in shared memory: horizontal
// pass, vertical pass, statistics, terms and the tile's block tree, one output at a time with the
// CPU's tap order. Each thread adds its terms in plain f64 (a fixed order); only the block tree is
// double-double. Included by windows.cu only.
#include "metrics/ssim_core/cuda/ssim_device.cuh"
#include "metrics/ssim_core/cuda/ssim_tables.cuh"
#include "metrics/ssim_core/cuda/window_terms.cuh"
#include "metrics/ssim_core/cuda/window_tiles.cuh"

namespace vqx::ssim::cuda {
namespace {

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

__device__ __forceinline__ void signed_tile(float (*in)[kInH][kInStride],
                                            float (*pass)[kInH][kPassW], float* smem,
                                            const WindowTaps& taps, PartialSum* partials, int tile,
                                            Size map, int x0, int y0, int cols, int rows,
                                            int in_rows) {
  // Widening of each quantity's accumulators (mu_r, mu_d, r*r, d*d, r*d): the squares have their
  // sign bit clear whatever the samples.
  constexpr int M0 = kCvt, M1 = kCvt, M2 = kShift, M3 = kShift, M4 = kSigned;
  // Horizontal pass (window_h_one): a warp per row, a lane per column.
  for (int i = int(threadIdx.x); i < in_rows * kTileW; i += kThreads) {
    const int r = i / kTileW, c = i % kTileW;
    if (c >= cols) continue;
    double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0, a4 = 0.0;
#pragma unroll
    for (int k = 0; k < kWindowTaps; ++k) {
      const float rv = in[0][r][c + k], dv = in[1][r][c + k], g = c_tables.gaussian[k];
      a0 = __dadd_rn(a0, widen_as<M0>(__fmul_rn(rv, g)));
      a1 = __dadd_rn(a1, widen_as<M1>(__fmul_rn(dv, g)));
      a2 = __dadd_rn(a2, widen_as<M2>(__fmul_rn(__fmul_rn(rv, rv), g)));
      a3 = __dadd_rn(a3, widen_as<M3>(__fmul_rn(__fmul_rn(dv, dv), g)));
      a4 = __dadd_rn(a4, widen_as<M4>(__fmul_rn(__fmul_rn(rv, dv), g)));
    }
    pass[0][r][c] = finish_as<M0>(a0);
    pass[1][r][c] = finish_as<M1>(a1);
    pass[2][r][c] = finish_as<M2>(a2);
    pass[3][r][c] = finish_as<M3>(a3);
    pass[4][r][c] = finish_as<M4>(a4);
  }
  __syncthreads();

  // Vertical pass, statistics and terms (window_v_terms_one), summed per thread in a fixed order.
  double plain[kSumQuantities] = {};
  for (int i = int(threadIdx.x); i < rows * kTileW; i += kThreads) {
    const int y = i / kTileW, c = i % kTileW;
    if (c >= cols) continue;
    double b0 = 0.0, b1 = 0.0, b2 = 0.0, b3 = 0.0, b4 = 0.0;
#pragma unroll
    for (int k = 0; k < kWindowTaps; ++k) {
      const float g = c_tables.gaussian[k];
      b0 = __dadd_rn(b0, widen_as<M0>(__fmul_rn(pass[0][y + k][c], g)));
      b1 = __dadd_rn(b1, widen_as<M1>(__fmul_rn(pass[1][y + k][c], g)));
      b2 = __dadd_rn(b2, widen_as<M2>(__fmul_rn(pass[2][y + k][c], g)));
      b3 = __dadd_rn(b3, widen_as<M3>(__fmul_rn(pass[3][y + k][c], g)));
      b4 = __dadd_rn(b4, widen_as<M4>(__fmul_rn(pass[4][y + k][c], g)));
    }
    const float mu_r = finish_as<M0>(b0);
    const float mu_d = finish_as<M1>(b1);
    const float sum_rr = finish_as<M2>(b2);
    const float sum_dd = finish_as<M3>(b3);
    const float sum_rd = finish_as<M4>(b4);
    add_pixel_terms<false>(mu_r, mu_d, sum_rr, sum_dd, sum_rd, plain, taps, map, x0 + c, y0 + y);
  }
  __syncthreads();  // the pass region becomes the tree's scratch

  auto red = reinterpret_cast<DoubleDouble(*)[kThreads]>(smem + kInputFloats);
#pragma unroll
  for (int q = 0; q < kSumQuantities; ++q) red[q][threadIdx.x] = {plain[q], 0.0};
  __syncthreads();
  block_tree<kThreads>(red);
  if (threadIdx.x < kSumQuantities) {
    const DoubleDouble v = red[threadIdx.x][0];
    partials[size_t(tile) * kSumQuantities + threadIdx.x] = {v.hi, v.lo};
  }
}

}  // namespace
}  // namespace vqx::ssim::cuda
