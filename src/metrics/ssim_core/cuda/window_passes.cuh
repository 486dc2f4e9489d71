#pragma once
// The window kernel's two passes over a sign-free tile (windows.cu), by sliding runs: the
// horizontal pass (strip_h, tasks of one quantity, run and row) and the vertical pass (run_v, in
// place). Included by windows.cu only.
//
// A run of R outputs walks R + 10 samples, and each sample's products with the symmetric tap pairs
// are formed and widened once (kGaussian is symmetric bit for bit, ssim_tables.cuh): 126 products
// for R = 16 (7.9 per output instead of 11); each accumulator still receives its taps k = 0..10 in
// order, and at most 11 accumulators are live at any sample.
//
// Widening: every accumulator is unscaled. The products of the tap classes in kConvertedClasses
// (class m = min(k, 10 - k)) are widened by the conversion instruction and added by DADD; the
// others are built scaled by the shift pair and added by one DFMA with 2^896 (exact: the scaled
// term times 2^896 is the product, so the DFMA rounds acc + p once, as the DADD would). Class 0 is
// every output's first tap, so every accumulator starts unscaled and no output needs the DMUL of
// unscale_to_f32. Classes 0 and 4 are 35 % of a run's products: fewer conversions leave the XU
// pipe (a quarter of the f64 rate) below the issue rate, more cost issue slots.
#include "metrics/ssim_core/cuda/ssim_device.cuh"
#include "metrics/ssim_core/cuda/ssim_tables.cuh"
#include "metrics/ssim_core/cuda/window_tiles.cuh"

namespace vqx::ssim::cuda {
namespace {

template <int R>
__host__ __device__ constexpr bool run_needs(int s, int m) {
  for (int o = 0; o < R; ++o) {
    const int k = s - o;
    if (k >= 0 && k < kWindowTaps && (k < kWindowTaps - 1 - k ? k : kWindowTaps - 1 - k) == m)
      return true;
  }
  return false;
}

constexpr unsigned kConvertedClasses = 0x11u;  // classes 0 and 4
static_assert(kConvertedClasses & 1u, "every accumulator starts with a converted (unscaled) term");
__host__ __device__ constexpr bool class_converted(int m) {
  return ((kConvertedClasses >> m) & 1u) != 0;
}

// The R outputs of a run from its R + 10 samples x (taps k = 0..10 of output o are x[o + k]).
// Sign-free terms only (products of samples with their sign bit clear and the positive Gaussian,
// never -0), so each accumulator's first tap is assigned (+0 + t == t bit for bit).
template <int R>
__device__ __forceinline__ void run_taps(const float (&x)[R + kWindowMargin], float (&out)[R]) {
  double acc[R];
#pragma unroll
  for (int s = 0; s < R + kWindowMargin; ++s) {
    double w[kWindowTaps / 2 + 1];
#pragma unroll
    for (int m = 0; m <= kWindowTaps / 2; ++m)
      if (run_needs<R>(s, m)) {
        const float p = __fmul_rn(x[s], c_tables.gaussian[m]);
        w[m] = class_converted(m) ? widen(p) : widen_scaled_nonneg(p);
      }
#pragma unroll
    for (int o = 0; o < R; ++o) {
      const int k = s - o;
      const int m = k < kWindowTaps - 1 - k ? k : kWindowTaps - 1 - k;
      if (k == 0)
        acc[o] = w[0];
      else if (k > 0 && k < kWindowTaps)
        acc[o] = class_converted(m) ? __dadd_rn(acc[o], w[m]) : __fma_rn(w[m], kScaleUp, acc[o]);
    }
  }
#pragma unroll
  for (int o = 0; o < R; ++o) out[o] = __double2float_rn(acc[o]);
}

// Vertical pass by runs of 16 rows, results back in place: 32 columns x 4 runs = 128 tasks per
// quantity, so two quantities per round; a barrier between a round's reads and its writes (a run
// reads rows other runs write), none between rounds (they touch different quantities). The fifth
// quantity runs as runs of 8 rows over the whole block, the same taps in the same order for every
// output.
__device__ __forceinline__ void run_v(float (*pass)[kInH][kPassW]) {
  constexpr int R = 16, kS = R + kWindowMargin, kRuns = kTileH / R, kPerQuantity = kRuns * kTileW;
  static_assert(kThreads == 2 * kPerQuantity && kQuantities == 5,
                "two quantities per round, the fifth alone");
  const int c = int(threadIdx.x) % kTileW, y0 = ((int(threadIdx.x) / kTileW) % kRuns) * R;
  const int part = int(threadIdx.x) / kPerQuantity;
#pragma unroll 1
  for (int q0 = 0; q0 < kQuantities - 1; q0 += 2) {
    const int q = q0 + part;
    float x[kS], out[R];
#pragma unroll
    for (int s = 0; s < kS; ++s) x[s] = pass[q][y0 + s][c];
    run_taps<R>(x, out);
    __syncthreads();  // every run of this round has read its quantity's rows
#pragma unroll
    for (int o = 0; o < R; ++o) pass[q][y0 + o][c] = out[o];
  }
  constexpr int R8 = 8, kS8 = R8 + kWindowMargin;
  static_assert(kTileW * (kTileH / R8) == kThreads,
                "the fifth quantity's runs of 8 fill the block");
  const int y8 = (int(threadIdx.x) / kTileW) * R8;
  float x[kS8], out[R8];
#pragma unroll
  for (int s = 0; s < kS8; ++s) x[s] = pass[kQuantities - 1][y8 + s][c];
  run_taps<R8>(x, out);
  __syncthreads();
#pragma unroll
  for (int o = 0; o < R8; ++o) pass[kQuantities - 1][y8 + o][c] = out[o];
  __syncthreads();
}

// One horizontal task: the run of R sums of quantity q starting at column run * R of row r, with
// run_taps<R>'s arithmetic; the quantity's samples as window_h_one forms them.
template <int R>
__device__ __forceinline__ void h_task(float (*in)[kInH][kInStride], float (*pass)[kInH][kPassW],
                                       int q, int run, int r) {
  constexpr int kS = R + kWindowMargin, kVectors = (kS + 3) / 4;
  static_assert(kTileW - R + 4 * kVectors <= kInStride && R % 4 == 0,
                "a run's vectors stay in its row");
  const int c0 = run * R;
  // 16-byte loads: the samples of a run in kVectors loads instead of kS.
  const float4* pr = reinterpret_cast<const float4*>(&in[0][r][c0]);
  const float4* pd = reinterpret_cast<const float4*>(&in[1][r][c0]);
  float x[4 * kVectors], o16[R];
  auto put = [&](int j, float4 v) {
    x[4 * j] = v.x;
    x[4 * j + 1] = v.y;
    x[4 * j + 2] = v.z;
    x[4 * j + 3] = v.w;
  };
  if (q == 0 || q == 1) {
    const float4* p = q == 0 ? pr : pd;
#pragma unroll
    for (int j = 0; j < kVectors; ++j) put(j, p[j]);
  } else if (q == 4) {
#pragma unroll
    for (int j = 0; j < kVectors; ++j) {
      const float4 a = pr[j], b = pd[j];
      put(j, make_float4(__fmul_rn(a.x, b.x), __fmul_rn(a.y, b.y), __fmul_rn(a.z, b.z),
                         __fmul_rn(a.w, b.w)));
    }
  } else {
    const float4* p = q == 2 ? pr : pd;
#pragma unroll
    for (int j = 0; j < kVectors; ++j) {
      const float4 a = p[j];
      put(j, make_float4(__fmul_rn(a.x, a.x), __fmul_rn(a.y, a.y), __fmul_rn(a.z, a.z),
                         __fmul_rn(a.w, a.w)));
    }
  }
  run_taps<R>(*reinterpret_cast<const float(*)[kS]>(x), o16);
  float* out = &pass[q][r][c0];
  // 8-byte stores: kPassW = 2 x odd puts a half-warp's rows on different bank pairs.
#pragma unroll
  for (int o = 0; o < R; o += 2)
    *reinterpret_cast<float2*>(out + o) = make_float2(o16[o], o16[o + 1]);
}

// Horizontal pass over input rows r0..in_rows-1 (r0 = 0, or kWindowMargin after a copy): tasks
// (quantity, run, row), a warp's lanes on neighbouring rows (odd strides: no bank conflicts).
__device__ __forceinline__ void strip_h(float (*in)[kInH][kInStride], float (*pass)[kInH][kPassW],
                                        int r0, int in_rows) {
  constexpr int R = 16, kRunsPerRow = kTileW / R;
  static_assert(kTileW % R == 0, "whole runs");
  const bool full = r0 == 0;
  const int tasks = kQuantities * kRunsPerRow * (full ? kInH : kTileH);
  for (int t = int(threadIdx.x); t < tasks; t += kThreads) {
    int q, run, r;
    if (full) {
      q = t / (kInH * kRunsPerRow);
      const int rem = t - q * (kInH * kRunsPerRow);
      run = rem / kInH;
      r = rem - run * kInH;
    } else {
      q = t / (kTileH * kRunsPerRow);
      const int rem = t - q * (kTileH * kRunsPerRow);
      run = rem / kTileH;
      r = kWindowMargin + rem - run * kTileH;
    }
    if (r >= in_rows) continue;
    h_task<R>(in, pass, q, run, r);
  }
}

}  // namespace
}  // namespace vqx::ssim::cuda
