#pragma once
// The window kernel's statistics, per-pixel terms (spec 4.2, 4.3) and tile sums (windows.cu):
// the terms loop with per-thread f64 sums and the tile's tree of double-double sums. Included by
// windows.cu only.
#include "metrics/ssim_core/cuda/ssim_cuda_testing.h"
#include "metrics/ssim_core/cuda/ssim_device.cuh"
#include "metrics/ssim_core/cuda/window_tiles.cuh"

namespace vqx::ssim::cuda {
namespace {

// __fsqrt_rn with +-0 kept off its slow path: the fast path covers arguments from 2^-101 up, so
// every flat pixel (a zero variance) would call the slow-path subroutine (at 4K's scales 1-4, one
// warp iteration in five of the terms loop). A zero argument takes itself (sqrt(+-0) is +-0); any
// other the same correctly rounded root.
__device__ __forceinline__ float sqrt_rn_flat_fast(float x) {
  const float root = __fsqrt_rn(x == 0.0f ? 1.0f : x);
  return x == 0.0f ? x : root;
}

// kF32Sqrt: sigma by the correctly rounded f32 square root, which equals upstream's f64 root
// rounded to f32 for every f32 argument (double rounding is innocuous for sqrt when the wider
// format has at least 2p + 2 bits: 53 >= 2 * 24 + 2; the CPU's unit test checks it on a million
// values); fewer f64 operations. !kWithL: c and s alone, l left unwritten (cs_terms).
template <bool kF32Sqrt = false, bool kWithL = true>
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
  const float sigma = kF32Sqrt ? sqrt_rn_flat_fast(__fmul_rn(var_r, var_d))
                               : __double2float_rn(__dsqrt_rn(widen(__fmul_rn(var_r, var_d))));
  if constexpr (kWithL)
    l = __ddiv_rn(__dadd_rn(__dmul_rn(__dmul_rn(2.0, widen(mu_r)), widen(mu_d)), widen(kC1)),
                  widen(__fadd_rn(__fadd_rn(__fmul_rn(mu_r, mu_r), __fmul_rn(mu_d, mu_d)), kC1)));
  c = __ddiv_rn(__dadd_rn(__dmul_rn(2.0, widen(sigma)), widen(kC2)),
                widen(__fadd_rn(__fadd_rn(var_r, var_d), kC2)));
  const float cov_fixed = (cov < 0.0f && sigma <= 0.0f) ? 0.0f : cov;  // zli-nflx flat fix
  s = __fdiv_rn(__fadd_rn(cov_fixed, kC3), __fadd_rn(sigma, kC3));
}

// The terms of map pixel (x, y) from its five window sums, added to a thread's plain f64 sums
// (l, c, s, (l*c)*s), and every intermediate written to the taps when a test asks for them.
template <bool kF32Sqrt>
__device__ __forceinline__ void add_pixel_terms(float mu_r, float mu_d, float sum_rr, float sum_dd,
                                                float sum_rd, double (&plain)[kSumQuantities],
                                                const WindowTaps& taps, Size map, int x, int y) {
  double l, cs;
  float s;
  lcs_terms<kF32Sqrt>(mu_r, mu_d, sum_rr, sum_dd, sum_rd, l, cs, s);
  const double sd = widen(s);
  const double ssim = __dmul_rn(__dmul_rn(l, cs), sd);  // (l*c)*s, upstream's ssim_sum term
  plain[0] = __dadd_rn(plain[0], l);
  plain[1] = __dadd_rn(plain[1], cs);
  plain[2] = __dadd_rn(plain[2], sd);
  plain[3] = __dadd_rn(plain[3], ssim);
  if (taps.mu_r) {
    const size_t o = size_t(y) * size_t(map.width) + size_t(x);
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

// block_tree<kThreads>'s sums with fewer barriers: the per-thread sums of quantity q at
// red_q = rows 0..63 of pass[q / 2] (two trees per plane; pass rows 64..73 stay intact for the next
// tile of the strip), then warp q alone: lane i forms block_tree's value of red[i] after the
// strides 128, 64 and 32 from the 8 entries i + 32k with the same pairs in the same nesting,
// dd_sum(dd_sum(a(i), a(i+64)), dd_sum(a(i+32), a(i+96))) with a(j) = dd_sum(red[j], red[j+128]),
// and the strides 16..1 by shuffles (lane i takes lane i + stride's value as block_tree's second
// operand). The same dd_sum calls on the same operands: the same partial bit for bit.
__device__ __forceinline__ DoubleDouble* strip_red(float (*pass)[kInH][kPassW], int q) {
  return reinterpret_cast<DoubleDouble*>(&pass[q >> 1][0][0]) + (q & 1) * kThreads;
}

__device__ __forceinline__ void strip_tree(float (*pass)[kInH][kPassW],
                                           const double (&plain)[kSumQuantities],
                                           PartialSum* partials, int tile) {
  static_assert(2 * sizeof(DoubleDouble) * kThreads <= sizeof(float) * kTileH * kPassW,
                "two trees in 64 rows");
  static_assert(kThreads == 256, "the warp tree unrolls block_tree<256>");
  __syncthreads();  // the terms loop has read the pass region
#pragma unroll
  for (int q = 0; q < kSumQuantities; ++q) strip_red(pass, q)[threadIdx.x] = {plain[q], 0.0};
  __syncthreads();
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  if (warp < kSumQuantities) {
    const DoubleDouble* r = strip_red(pass, warp);
    const DoubleDouble a0 = dd_sum(r[lane], r[lane + 128]),
                       a1 = dd_sum(r[lane + 32], r[lane + 160]);
    const DoubleDouble a2 = dd_sum(r[lane + 64], r[lane + 192]),
                       a3 = dd_sum(r[lane + 96], r[lane + 224]);
    DoubleDouble v = dd_sum(dd_sum(a0, a2), dd_sum(a1, a3));
#pragma unroll
    for (int stride = 16; stride > 0; stride >>= 1) {
      const DoubleDouble o = {__shfl_down_sync(0xffffffffu, v.hi, stride),
                              __shfl_down_sync(0xffffffffu, v.lo, stride)};
      v = dd_sum(v, o);
    }
    if (lane == 0) partials[size_t(tile) * kSumQuantities + warp] = {v.hi, v.lo};
  }
  __syncthreads();  // the trees have read their entries before the next tile writes rows 0..9
}

// lcs_terms<true>'s c and s alone (ScaleJob::cs_only): the same operations on the same operands.
__device__ __forceinline__ void cs_terms(float mu_r, float mu_d, float sum_rr, float sum_dd,
                                         float sum_rd, double& c, float& s) {
  double unused;
  lcs_terms<true, false>(mu_r, mu_d, sum_rr, sum_dd, sum_rd, unused, c, s);
}

// The statistics, terms (lcs_terms<true>) and per-thread sums of a tile, in a column-wise loop
// (each thread keeps its column, tid % 32, and steps down the rows by 8), then strip_tree. kCsOnly
// (ScaleJob::cs_only, no taps): the c and s sums alone, the l and ssim partials left at 0.
template <bool kCsOnly = false>
__device__ __forceinline__ void strip_terms(float (*pass)[kInH][kPassW], const WindowTaps& taps,
                                            PartialSum* partials, int tile, Size map, int x0,
                                            int y0, int cols, int rows) {
  double plain[kSumQuantities] = {};
  const int c = int(threadIdx.x) % kTileW;
  constexpr int kRowStep = kThreads / kTileW;
  // Two rows per iteration give the scheduler two independent division chains (the per-thread
  // sums still take the rows in order).
#pragma unroll 2
  for (int y = c < cols ? int(threadIdx.x) / kTileW : rows; y < rows; y += kRowStep) {
    const float mu_r = pass[0][y][c], mu_d = pass[1][y][c];
    const float sum_rr = pass[2][y][c], sum_dd = pass[3][y][c], sum_rd = pass[4][y][c];
    if constexpr (kCsOnly) {
      double cs;
      float s;
      cs_terms(mu_r, mu_d, sum_rr, sum_dd, sum_rd, cs, s);
      plain[1] = __dadd_rn(plain[1], cs);
      plain[2] = __dadd_rn(plain[2], widen(s));
      continue;
    }
    add_pixel_terms<true>(mu_r, mu_d, sum_rr, sum_dd, sum_rd, plain, taps, map, x0 + c, y0 + y);
  }
  strip_tree(pass, plain, partials, tile);
}

}  // namespace
}  // namespace vqx::ssim::cuda
