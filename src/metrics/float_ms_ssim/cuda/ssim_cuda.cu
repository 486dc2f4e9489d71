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
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <type_traits>

#include "engine/cuda/cuda_check.h"
#include "engine/cuda/device_division.cuh"
#include "metrics/float_ms_ssim/cuda/ssim_cuda.h"
#include "metrics/float_ssim/float_ssim.h"

namespace vqx::ssim::cuda {
namespace {

using vqx::cuda::div_rn_fast;

// The CPU's tables, copied by prepare_device() (never recomputed).
__constant__ float c_gaussian[kWindowTaps];
__constant__ float c_lpf[kLpfTaps][kLpfTaps];
__constant__ float c_lpf_abs[kLpfTaps][kLpfTaps];  // |kLpf|: the same entries, sign bit cleared

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

// The same bits as widen_scaled_nonneg in one instruction: the 64-bit product u * 2^29 is
// (u >> 3) : (u << 29), which ptxas emits as one IMAD.WIDE.U32 (FMA pipe) instead of two shifts
// (ALU pipe).
__device__ __forceinline__ double widen_scaled_wide(float p) {
  unsigned long long r;
  asm("mul.wide.u32 %0, %1, 536870912;" : "=l"(r) : "r"(__float_as_uint(p)));
  return __longlong_as_double(static_cast<long long>(r));
}

// Widening modes of one accumulator (it never mixes two): kCvt = the conversion instruction
// (unscaled accumulator); the others scale by 2^-896 (file comment): kShift / kWide only for
// terms with the sign bit clear, kSigned for any finite term.
enum WidenMode : int { kCvt = 0, kShift = 1, kSigned = 2, kWide = 3 };

template <int M>
__device__ __forceinline__ double widen_as(float p) {
  if constexpr (M == kCvt) return widen(p);
  else if constexpr (M == kShift) return widen_scaled_nonneg(p);
  else if constexpr (M == kSigned) return widen_scaled(p);
  else return widen_scaled_wide(p);
}

template <int M>
__device__ __forceinline__ float finish_as(double acc) {
  if constexpr (M == kCvt) return __double2float_rn(acc);
  else return unscale_to_f32(acc);
}

// Speed knobs for side-by-side measurement (all variants give the same bits; tests run each).
// VQX_SSIM_WIN: window kernel variant (0 = the generic kernel); VQX_SSIM_DEC: decimation variant.
int knob(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
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

// The 81 taps of one output of each image, rows outer, columns inner: f32 product, widened,
// f64 add (spec 3.3), with widening modes MR / MD.
//
// kNonneg: no sample of the tile has its sign bit set (always so for raw luma). Then the sign
// of a product a * g is the sign of g, fixed per tap (lpf_negative, checked against kLpf by
// prepare_device), and a * g = -(a * |g|) exactly (f32 rounding is symmetric), so the product
// a * |g| has its sign bit clear (cheap widening) and is subtracted where g < 0 (the f64
// subtraction negates its operand for free). -0 products: the CPU adds -0, this subtracts +0,
// both leave the (never -0) accumulator unchanged.
__host__ __device__ constexpr bool lpf_negative(int i) { return i == 1 || i == 2 || i == 6 || i == 7; }

template <int MR, int MD, bool kNonneg>
__device__ __forceinline__ void decimate_taps(const float (*split)[2][kDecRows][kDecSplit], int tx, int ty,
                                              float& out_r, float& out_d) {
  double sum_r = 0.0, sum_d = 0.0;
#pragma unroll
  for (int v = 0; v < kLpfTaps; ++v) {
#pragma unroll
    for (int u = 0; u < kLpfTaps; ++u) {
      const float a = split[0][u & 1][2 * ty + v][tx + u / 2];
      const float b = split[1][u & 1][2 * ty + v][tx + u / 2];
      if constexpr (kNonneg) {
        const float g = c_lpf_abs[v][u];
        const double pa = widen_as<MR>(__fmul_rn(a, g)), pb = widen_as<MD>(__fmul_rn(b, g));
        if (lpf_negative(v) != lpf_negative(u)) {
          sum_r = __dsub_rn(sum_r, pa);
          sum_d = __dsub_rn(sum_d, pb);
        } else {
          sum_r = __dadd_rn(sum_r, pa);
          sum_d = __dadd_rn(sum_d, pb);
        }
      } else {
        const float g = c_lpf[v][u];
        sum_r = __dadd_rn(sum_r, widen_as<MR>(__fmul_rn(a, g)));
        sum_d = __dadd_rn(sum_d, widen_as<MD>(__fmul_rn(b, g)));
      }
    }
  }
  out_r = finish_as<MR>(sum_r);
  out_d = finish_as<MD>(sum_d);
}

// Variants 10 (generic loader), 12 (row loader): kNonneg path with shift widening for both images;
// 11: as 0 with the row loader; 13: row loader, kNonneg, reference by conversion (XU), distorted
// by shifts (ALU).
// kVariant 0: the reference through the conversion instruction, the distorted plane through
// widen_scaled (any sign). kVariant 1 (reference: conversion, distorted: IMAD.WIDE) and 2 (both
// IMAD.WIDE): the same where a tile holds a sample with its sign bit set, else decimate_taps'
// kNonneg path.
template <int kVariant>
__global__ void __launch_bounds__(kDecThreads) decimate_kernel(DevicePlane ref, DevicePlane dis,
                                                               float* out_ref, float* out_dis,
                                                               Size half) {
  __shared__ float split[2][2][kDecRows][kDecSplit];  // [image][even, odd][row][j]
  const Size in = ref.size;
  const int x0 = int(blockIdx.x) * kDecTileW, y0 = int(blockIdx.y) * kDecTileH;
  const int cols = min(kDecTileW, half.width - x0), rows = min(kDecTileH, half.height - y0);
  const int load_rows = 2 * rows + kLpfTaps - 2, load_cols = cols + kLpfRadius;
  const float inverse_r = inverse_divisor(ref.bit_depth), inverse_d = inverse_divisor(dis.bit_depth);
  unsigned negative = 0;
  // Variants 11-13: a warp per input row, a lane per split column (columns' reflected indices
  // computed once per thread, rows once per row, no division), every load of the thread's rows
  // issued before the first store. Variants 0-2 and 10: one (row, column) per step.
  constexpr bool kRowLoad = kVariant >= 11;
  if constexpr (kRowLoad) {
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
      const size_t row = r < load_rows ? size_t(reflect_index(2 * y0 + r - kLpfRadius, in.height)) * size_t(in.width)
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
          negative |= (__float_as_uint(v[k][h][0]) | __float_as_uint(v[k][h][1]) | __float_as_uint(v[k][h][2]) |
                       __float_as_uint(v[k][h][3])) >> 31;
        }
    }
  } else
  for (int i = int(threadIdx.x); i < load_rows * load_cols; i += kDecThreads) {
    const int r = i / load_cols, j = i % load_cols;
    const size_t row = size_t(reflect_index(2 * y0 + r - kLpfRadius, in.height)) * size_t(in.width);
    const size_t even = row + size_t(reflect_index(2 * (x0 + j) - kLpfRadius, in.width));
    const size_t odd = row + size_t(reflect_index(2 * (x0 + j) - kLpfRadius + 1, in.width));
    split[0][0][r][j] = load_sample(ref, even, inverse_r);
    split[0][1][r][j] = load_sample(ref, odd, inverse_r);
    split[1][0][r][j] = load_sample(dis, even, inverse_d);
    split[1][1][r][j] = load_sample(dis, odd, inverse_d);
    negative |= (__float_as_uint(split[0][0][r][j]) | __float_as_uint(split[0][1][r][j]) |
                 __float_as_uint(split[1][0][r][j]) | __float_as_uint(split[1][1][r][j])) >> 31;
  }
  const bool any_negative = __syncthreads_or(int(negative)) != 0;
  const int tx = int(threadIdx.x) % kDecTileW, ty = int(threadIdx.x) / kDecTileW;
  if (tx >= cols || ty >= rows) return;
  float r, d;
  if (kVariant == 0 || kVariant == 11 || any_negative) decimate_taps<kCvt, kSigned, false>(split, tx, ty, r, d);
  else if (kVariant == 1) decimate_taps<kCvt, kWide, true>(split, tx, ty, r, d);
  else if (kVariant == 10 || kVariant == 12) decimate_taps<kShift, kShift, true>(split, tx, ty, r, d);
  else if (kVariant == 13) decimate_taps<kCvt, kShift, true>(split, tx, ty, r, d);
  else decimate_taps<kWide, kWide, true>(split, tx, ty, r, d);
  const size_t o = size_t(y0 + ty) * size_t(half.width) + size_t(x0 + tx);
  out_ref[o] = r;
  out_dis[o] = d;
}

// ---- Row-wise tile loaders (window variants 13-15, decimation variants 7-8) ------------------
// Round 2's profile of the window kernel: issue slots 67 % busy, the largest stall "long
// scoreboard", i.e. the tile loads: the plain loaders issue one global load, wait for it and
// store it, with a division and a modulo per sample. These loaders give a warp whole rows
// (no divisions) and issue a batch of loads before the first store, so several are in flight.
template <typename T>
__device__ __forceinline__ float to_sample(T v, float inverse) {
  if constexpr (std::is_floating_point_v<T>) return v;  // f32 planes
  else return __fmul_rn(__uint2float_rn(v), inverse);
}

constexpr int kWarps = 8;  // both the window and the sweep kernels run 256 threads

// ---- Decimation by sliding runs (variant 3) ---------------------------------------------------
// One image per block (blockIdx.z), 64 x 32 outputs; a thread owns a run of 8 neighbouring
// outputs of one row and walks the 9 input rows and the 23 input columns of the run once per row.
// kLpf is symmetric in u (checked by prepare_device), so a sample's products with taps u and 8-u
// of the same row are one f32, formed and widened once and added to both outputs' accumulators;
// every accumulator still adds its 81 taps rows outer, columns inner (spec 3.3). The tile is
// stored split by column and row parity and transposed ([col parity][row parity][col][row]), so
// the 32 threads of a warp (32 neighbouring output rows) read 32 neighbouring words.
constexpr int kSwRun = 8, kSwRuns = 8, kSwW = kSwRun * kSwRuns, kSwH = 32, kSwThreads = kSwRuns * kSwH;
// kSwRowsHalf is padded to an odd stride (fewer bank conflicts when the tile is stored).
constexpr int kSwCols = kSwW + kLpfRadius, kSwRowsHalf = kSwH + kLpfRadius + 1;
constexpr int kSwSamples = 2 * kSwRun + kLpfTaps - 2;  // input columns a run reads per row
static_assert(kSwThreads == 256 && 2 * 2 * kSwCols * kSwRowsHalf >= kSwW * kSwH, "tile reuse for the outputs");

__host__ __device__ constexpr int lpf_class(int u) { return u < kLpfTaps - 1 - u ? u : kLpfTaps - 1 - u; }

__host__ __device__ constexpr bool sweep_needs(int c, int m) {
  for (int o = 0; o < kSwRun; ++o) {
    const int u = c - 2 * o;
    if (u >= 0 && u < kLpfTaps && lpf_class(u) == m) return true;
  }
  return false;
}

// ---- Session 14: leaner sweep (decimation variants 16-21) -----------------------------------------
// decimate_sweep2_kernel<kMode>: decimate_sweep_kernel's tile and runs, with
// - widen_dec<kShift64>: the bits of widen_scaled_nonneg by one 64-bit shift, (u64(u) << 29) is
//   (u >> 3) : (u << 29), written straight into the register pair of the double;
// - a leaner row loader (load_sweep_rows_lean): reflected column indices and shared-memory offsets
//   once per thread, the row once per row, all of a thread's loads of three rows in flight;
// - kMode 1, 2, for raw luma (level 1) only: two accumulators per output, one fed by the f32->f64
//   conversion (XU pipe) and one by the scaled shift widening (ALU), products of the column classes
//   in kSplitMask going to the first. Exact because at level 1 every partial sum is exact (so their
//   order and grouping cannot change the sum): the samples are k / 2^(bpc-8) with bpc <= 16, so a
//   nonzero product is >= 2^-8 * min|kLpf| >= 2^-20 and a multiple of 2^-43 (its f32 rounding
//   keeps that), and every partial sum is below 256 * sum|kLpf| < 2^9 in magnitude: at most 52
//   significant bits (prepare_device checks min|kLpf| >= 2^-12 and sum|kLpf| < 2). The output
//   f32(acc_c + acc_s * 2^896) is then f32 of the exact sum, which the CPU's sequential f64 sum also
//   is. Other levels (f32 samples of any magnitude) take kShift64 with the CPU's order.
constexpr int kShift64 = 4;  // a widening mode of the decimation only

template <int M>
__device__ __forceinline__ double widen_dec(float p) {
  if constexpr (M == kShift64)
    return __longlong_as_double(static_cast<long long>(static_cast<unsigned long long>(__float_as_uint(p)) << 29));
  else return widen_as<M>(p);
}

template <int M>
__device__ __forceinline__ float finish_dec(double acc) {
  if constexpr (M == kShift64) return unscale_to_f32(acc);
  else return finish_as<M>(acc);
}

// kNonneg as in decimate_taps (products a * |g|, subtracted where g < 0); else signed samples.
template <bool kNonneg, int M = kWide>
__device__ __forceinline__ void sweep_taps(const float (*t)[2][kSwCols][kSwRowsHalf], int jr, int y,
                                           float (&out)[kSwRun]) {
  double acc[kSwRun];
#pragma unroll
  for (int o = 0; o < kSwRun; ++o) acc[o] = 0.0;
#pragma unroll
  for (int v = 0; v < kLpfTaps; ++v) {
#pragma unroll
    for (int c = 0; c < kSwSamples; ++c) {
      const float a = t[c & 1][v & 1][jr + (c >> 1)][y + (v >> 1)];
      double w[kLpfRadius + 1];
#pragma unroll
      for (int m = 0; m <= kLpfRadius; ++m)
        if (sweep_needs(c, m))
          w[m] = kNonneg ? widen_dec<M>(__fmul_rn(a, c_lpf_abs[v][m])) : widen_scaled(__fmul_rn(a, c_lpf[v][m]));
#pragma unroll
      for (int o = 0; o < kSwRun; ++o) {
        const int u = c - 2 * o;
        if (u >= 0 && u < kLpfTaps) {
          if (kNonneg && lpf_negative(v) != lpf_negative(u)) acc[o] = __dsub_rn(acc[o], w[lpf_class(u)]);
          else acc[o] = __dadd_rn(acc[o], w[lpf_class(u)]);
        }
      }
    }
  }
#pragma unroll
  for (int o = 0; o < kSwRun; ++o) out[o] = kNonneg ? finish_dec<M>(acc[o]) : unscale_to_f32(acc[o]);
}

// The sweep tile by rows (decimation variants 7, 8): a warp per input row (reflected once),
// lanes over columns, a batch of loads in flight before the stores.
// kCg: the plane was written earlier in the same launch (decimate_chain_sweep_kernel): ld.global.cg.
template <typename T, bool kCg = false>
__device__ __forceinline__ unsigned load_sweep_rows(const void* data, Size size, int x0, int y0, int load_rows,
                                                    int load_cols, float inverse,
                                                    float (*t)[2][kSwCols][kSwRowsHalf]) {
  const T* p = static_cast<const T*>(data);
  const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
  constexpr int kCols = (2 * kSwW + kLpfTaps - 2 + 31) / 32;  // 5 column passes of 32
  unsigned negative = 0;
  for (int r = warp; r < load_rows; r += kWarps) {
    const size_t row = size_t(reflect_index(2 * y0 + r - kLpfRadius, size.height)) * size_t(size.width);
    T v[kCols];
#pragma unroll
    for (int h = 0; h < kCols; ++h) {
      const int k = lane + 32 * h;
      v[h] = T(0);
      if (k < load_cols) {
        const T* q = p + row + size_t(reflect_index(2 * x0 + k - kLpfRadius, size.width));
        if constexpr (kCg) v[h] = __ldcg(q);
        else v[h] = *q;
      }
    }
#pragma unroll
    for (int h = 0; h < kCols; ++h) {
      const int k = lane + 32 * h;
      if (k < load_cols) {
        const float a = to_sample(v[h], inverse);
        t[k & 1][r & 1][k >> 1][r >> 1] = a;
        negative |= __float_as_uint(a) >> 31;
      }
    }
  }
  return negative;
}

// Widening of the sign-free path per image: M0 for the reference, M1 for the distorted plane.
template <int M0, int M1, bool kRowLoader = false>
__global__ void __launch_bounds__(kSwThreads) decimate_sweep_kernel(DevicePlane ref, DevicePlane dis, float* out_ref,
                                                                   float* out_dis, Size half) {
  __shared__ float t[2][2][kSwCols][kSwRowsHalf];  // [col parity][row parity][col / 2][row / 2]
  const DevicePlane in = blockIdx.z == 0 ? ref : dis;
  float* out = blockIdx.z == 0 ? out_ref : out_dis;
  const int x0 = int(blockIdx.x) * kSwW, y0 = int(blockIdx.y) * kSwH;
  const int cols = min(kSwW, half.width - x0), rows = min(kSwH, half.height - y0);
  const int load_rows = 2 * rows + kLpfTaps - 2, load_cols = 2 * cols + kLpfTaps - 2;
  const float inverse = inverse_divisor(in.bit_depth);
  unsigned negative = 0;
  if (kRowLoader) {
    if (in.type == SampleType::kU8)
      negative = load_sweep_rows<uint8_t>(in.data, in.size, x0, y0, load_rows, load_cols, inverse, t);
    else if (in.type == SampleType::kU16)
      negative = load_sweep_rows<uint16_t>(in.data, in.size, x0, y0, load_rows, load_cols, inverse, t);
    else
      negative = load_sweep_rows<float>(in.data, in.size, x0, y0, load_rows, load_cols, inverse, t);
  } else {
    for (int i = int(threadIdx.x); i < load_rows * load_cols; i += kSwThreads) {
      const int r = i / load_cols, k = i % load_cols;  // full-resolution offsets from (2 x0 - 4, 2 y0 - 4)
      const size_t index = size_t(reflect_index(2 * y0 + r - kLpfRadius, in.size.height)) * size_t(in.size.width) +
                           size_t(reflect_index(2 * x0 + k - kLpfRadius, in.size.width));
      const float a = load_sample(in, index, inverse);
      t[k & 1][r & 1][k >> 1][r >> 1] = a;
      negative |= __float_as_uint(a) >> 31;
    }
  }
  const bool any_negative = __syncthreads_or(int(negative)) != 0;
  const int y = int(threadIdx.x) % kSwH, jr = (int(threadIdx.x) / kSwH) * kSwRun;
  float res[kSwRun];
  if (any_negative) sweep_taps<false>(t, jr, y, res);
  else if (blockIdx.z == 0) sweep_taps<true, M0>(t, jr, y, res);
  else sweep_taps<true, M1>(t, jr, y, res);
  __syncthreads();  // the tile becomes the output staging area
  float(*staged)[kSwW] = reinterpret_cast<float(*)[kSwW]>(&t[0][0][0][0]);
#pragma unroll
  for (int o = 0; o < kSwRun; ++o) staged[y][jr + o] = res[o];
  __syncthreads();
  for (int i = int(threadIdx.x); i < rows * kSwW; i += kSwThreads) {
    const int r = i / kSwW, c = i % kSwW;
    if (c < cols) out[size_t(y0 + r) * size_t(half.width) + size_t(x0 + c)] = staged[r][c];
  }
}

// kMode % 3: 0 = one accumulator per output, 1 / 2 = split, the products of the column classes
// (lpf_class) {2, 3, 4} / {3, 4} to the conversion; kMode < 3: the scaled widening by one 64-bit
// shift (kShift64; ptxas makes it one IMAD.WIDE.U32), kMode >= 3: by two 32-bit shifts (kShift;
// ptxas: SHF + IMAD.SHL, no IMAD.WIDE); kMode >= 6: as kMode - 3 with load_sweep_rows_interior for
// tiles away from the borders.
template <int kMode>
constexpr unsigned kSplitMask = kMode % 3 == 1 ? 0x1cu : kMode % 3 == 2 ? 0x18u : 0u;
template <int kMode>
constexpr int kSweepShift = kMode >= 3 ? kShift : kShift64;

template <int kMode>
__device__ __forceinline__ void sweep_taps_split(const float (*t)[2][kSwCols][kSwRowsHalf], int jr, int y,
                                                 float (&out)[kSwRun]) {
  double acc_s[kSwRun], acc_c[kSwRun];
#pragma unroll
  for (int o = 0; o < kSwRun; ++o) acc_s[o] = acc_c[o] = 0.0;
#pragma unroll
  for (int v = 0; v < kLpfTaps; ++v) {
#pragma unroll
    for (int c = 0; c < kSwSamples; ++c) {
      const float a = t[c & 1][v & 1][jr + (c >> 1)][y + (v >> 1)];
      double w[kLpfRadius + 1];
#pragma unroll
      for (int m = 0; m <= kLpfRadius; ++m)
        if (sweep_needs(c, m)) {
          const float p = __fmul_rn(a, c_lpf_abs[v][m]);
          w[m] = (kSplitMask<kMode> >> m) & 1u ? widen(p) : widen_dec<kSweepShift<kMode>>(p);
        }
#pragma unroll
      for (int o = 0; o < kSwRun; ++o) {
        const int u = c - 2 * o;
        if (u >= 0 && u < kLpfTaps) {
          const int m = lpf_class(u);
          double& acc = (kSplitMask<kMode> >> m) & 1u ? acc_c[o] : acc_s[o];
          if (lpf_negative(v) != lpf_negative(u)) acc = __dsub_rn(acc, w[m]);
          else acc = __dadd_rn(acc, w[m]);
        }
      }
    }
  }
#pragma unroll
  for (int o = 0; o < kSwRun; ++o) out[o] = __double2float_rn(__dadd_rn(acc_c[o], __dmul_rn(acc_s[o], kScaleUp)));
}

// The sweep tile by rows, leaner: a warp per input row (rows warp, warp + 8, ...: the same row
// parity, so a thread's shared-memory offsets differ only by a constant per row), lanes over
// columns, column indices reflected once per thread; three rows' loads in flight at a time.
template <typename T, bool kCg>
__device__ __forceinline__ unsigned load_sweep_rows_lean(const void* data, Size size, int x0, int y0, int load_rows,
                                                         int load_cols, float inverse,
                                                         float (*t)[2][kSwCols][kSwRowsHalf]) {
  const T* p = static_cast<const T*>(data);
  const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
  constexpr int kCols = (2 * kSwW + kLpfTaps - 2 + 31) / 32;  // 5 column passes of 32
  constexpr int kRowSteps = (2 * kSwH + kLpfTaps - 2 + kWarps - 1) / kWarps;  // 9 rows per warp
  constexpr int kBatch = 3;
  static_assert(kRowSteps % kBatch == 0 && kWarps % 2 == 0, "rows of one parity per warp");
  unsigned col[kCols];
  float* dst[kCols];
#pragma unroll
  for (int h = 0; h < kCols; ++h) {
    const int k = lane + 32 * h;
    col[h] = k < load_cols ? unsigned(reflect_index(2 * x0 + k - kLpfRadius, size.width)) : 0u;
    dst[h] = &t[k & 1][warp & 1][k >> 1][warp >> 1];  // row warp; row warp + 8 i is i * 4 further
  }
  unsigned negative = 0;
#pragma unroll
  for (int i0 = 0; i0 < kRowSteps; i0 += kBatch) {
    T v[kBatch][kCols];
#pragma unroll
    for (int i = 0; i < kBatch; ++i) {
      const int r = warp + kWarps * (i0 + i);
      const unsigned row =
          r < load_rows ? unsigned(reflect_index(2 * y0 + r - kLpfRadius, size.height)) * unsigned(size.width) : 0u;
#pragma unroll
      for (int h = 0; h < kCols; ++h) {
        v[i][h] = T(0);
        if (r < load_rows && lane + 32 * h < load_cols) {
          const T* q = p + (row + col[h]);
          if constexpr (kCg) v[i][h] = __ldcg(q);
          else v[i][h] = *q;
        }
      }
    }
#pragma unroll
    for (int i = 0; i < kBatch; ++i) {
      const int r = warp + kWarps * (i0 + i);
#pragma unroll
      for (int h = 0; h < kCols; ++h)
        if (r < load_rows && lane + 32 * h < load_cols) {
          const float a = to_sample(v[i][h], inverse);
          dst[h][(kWarps / 2) * (i0 + i)] = a;
          if constexpr (std::is_floating_point_v<T>) negative |= __float_as_uint(a) >> 31;
        }
    }
  }
  return negative;
}

// A full tile whose input needs no reflection (kMode >= 6): no index arithmetic per sample beyond
// one multiply per row, loads and stores at constant offsets, bounds tests only in the last
// column pass and the last row step (compile-time).
template <typename T>
__device__ __forceinline__ unsigned load_sweep_rows_interior(const void* data, unsigned width, int x0, int y0,
                                                             float inverse, float (*t)[2][kSwCols][kSwRowsHalf]) {
  constexpr int kCols = (2 * kSwW + kLpfTaps - 2 + 31) / 32;                  // 5 column passes
  constexpr int kRowSteps = (2 * kSwH + kLpfTaps - 2 + kWarps - 1) / kWarps;  // 9 rows per warp
  constexpr int kLastLanes = 2 * kSwW + kLpfTaps - 2 - 32 * (kCols - 1);     // 7 columns in the last pass
  constexpr int kLastWarps = 2 * kSwH + kLpfTaps - 2 - kWarps * (kRowSteps - 1);  // 7 rows in the last step
  constexpr int kBatch = 3;
  const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
  float* dst[kCols];
#pragma unroll
  for (int h = 0; h < kCols; ++h) {
    const int k = lane + 32 * h;
    dst[h] = &t[k & 1][warp & 1][k >> 1][warp >> 1];
  }
  const T* base = static_cast<const T*>(data) + (size_t(2 * y0 - kLpfRadius + warp) * width +
                                                  size_t(2 * x0 - kLpfRadius + lane));
  unsigned negative = 0;
#pragma unroll
  for (int i0 = 0; i0 < kRowSteps; i0 += kBatch) {
    T v[kBatch][kCols];
#pragma unroll
    for (int i = 0; i < kBatch; ++i) {
      const T* row = base + size_t(kWarps * (i0 + i)) * width;
#pragma unroll
      for (int h = 0; h < kCols; ++h) {
        v[i][h] = T(0);
        if ((h < kCols - 1 || lane < kLastLanes) && (i0 + i < kRowSteps - 1 || warp < kLastWarps)) v[i][h] = row[32 * h];
      }
    }
#pragma unroll
    for (int i = 0; i < kBatch; ++i)
#pragma unroll
      for (int h = 0; h < kCols; ++h)
        if ((h < kCols - 1 || lane < kLastLanes) && (i0 + i < kRowSteps - 1 || warp < kLastWarps)) {
          const float a = to_sample(v[i][h], inverse);
          dst[h][(kWarps / 2) * (i0 + i)] = a;
          if constexpr (std::is_floating_point_v<T>) negative |= __float_as_uint(a) >> 31;
        }
  }
  return negative;
}

template <bool kCg, bool kFast = false>
__device__ __forceinline__ unsigned load_sweep_tile_lean(const DevicePlane& in, int x0, int y0, int load_rows,
                                                         int load_cols, float (*t)[2][kSwCols][kSwRowsHalf]) {
  const float inverse = inverse_divisor(in.bit_depth);
  if constexpr (kFast && !kCg) {
    const bool interior = load_rows == 2 * kSwH + kLpfTaps - 2 && load_cols == 2 * kSwW + kLpfTaps - 2 &&
                          2 * x0 - kLpfRadius >= 0 && 2 * x0 - kLpfRadius + load_cols <= in.size.width &&
                          2 * y0 - kLpfRadius >= 0 && 2 * y0 - kLpfRadius + load_rows <= in.size.height;
    if (interior) {
      const unsigned width = unsigned(in.size.width);
      if (in.type == SampleType::kU8) return load_sweep_rows_interior<uint8_t>(in.data, width, x0, y0, inverse, t);
      if (in.type == SampleType::kU16) return load_sweep_rows_interior<uint16_t>(in.data, width, x0, y0, inverse, t);
      return load_sweep_rows_interior<float>(in.data, width, x0, y0, inverse, t);
    }
  }
  if (in.type == SampleType::kU8)
    return load_sweep_rows_lean<uint8_t, kCg>(in.data, in.size, x0, y0, load_rows, load_cols, inverse, t);
  if (in.type == SampleType::kU16)
    return load_sweep_rows_lean<uint16_t, kCg>(in.data, in.size, x0, y0, load_rows, load_cols, inverse, t);
  return load_sweep_rows_lean<float, kCg>(in.data, in.size, x0, y0, load_rows, load_cols, inverse, t);
}

// The runs of one tile after its load: kMode 1, 2 split the accumulators for raw luma (above).
template <int kMode>
__device__ __forceinline__ void sweep2_taps(const float (*t)[2][kSwCols][kSwRowsHalf], bool raw, bool any_negative,
                                            int jr, int y, float (&res)[kSwRun]) {
  if (kSplitMask<kMode> != 0 && raw) sweep_taps_split<kMode>(t, jr, y, res);
  else if (any_negative) sweep_taps<false>(t, jr, y, res);
  else sweep_taps<true, kSweepShift<kMode>>(t, jr, y, res);
}

template <int kMode>
__global__ void __launch_bounds__(kSwThreads, 4) decimate_sweep2_kernel(DevicePlane ref, DevicePlane dis,
                                                                        float* out_ref, float* out_dis, Size half) {
  __shared__ float t[2][2][kSwCols][kSwRowsHalf];
  const DevicePlane in = blockIdx.z == 0 ? ref : dis;
  float* out = blockIdx.z == 0 ? out_ref : out_dis;
  const int x0 = int(blockIdx.x) * kSwW, y0 = int(blockIdx.y) * kSwH;
  const int cols = min(kSwW, half.width - x0), rows = min(kSwH, half.height - y0);
  const int load_rows = 2 * rows + kLpfTaps - 2, load_cols = 2 * cols + kLpfTaps - 2;
  const unsigned negative = load_sweep_tile_lean<false, (kMode >= 6)>(in, x0, y0, load_rows, load_cols, t);
  const bool any_negative = __syncthreads_or(int(negative)) != 0;
  const int y = int(threadIdx.x) % kSwH, jr = (int(threadIdx.x) / kSwH) * kSwRun;
  float res[kSwRun];
  sweep2_taps<kMode>(t, in.type != SampleType::kF32, any_negative, jr, y, res);
  __syncthreads();  // the tile becomes the output staging area
  float(*staged)[kSwW] = reinterpret_cast<float(*)[kSwW]>(&t[0][0][0][0]);
#pragma unroll
  for (int o = 0; o < kSwRun; ++o) staged[y][jr + o] = res[o];
  __syncthreads();
  for (int i = int(threadIdx.x); i < rows * kSwW; i += kSwThreads) {
    const int r = i / kSwW, c = i % kSwW;
    if (c < cols) out[size_t(y0 + r) * size_t(half.width) + size_t(x0 + c)] = staged[r][c];
  }
}

// decimate_sweep2_kernel's split accumulators rely on exact level-1 sums: min|kLpf| >= 2^-12 and
// sum|kLpf| < 2 (comment above sweep_taps_split). Called by prepare_device.
void check_split_decimation_bound() {
  float smallest = std::fabs(kLpf[0][0]);
  double total = 0.0;
  for (int v = 0; v < kLpfTaps; ++v)
    for (int u = 0; u < kLpfTaps; ++u) {
      smallest = std::min(smallest, std::fabs(kLpf[v][u]));
      total += double(std::fabs(kLpf[v][u]));
    }
  if (!(smallest >= 0x1p-12f) || !(total < 2.0))
    throw std::logic_error("ssim: kLpf's magnitudes break the exactness bound of the split decimation");
}

#include "metrics/float_ms_ssim/cuda/decimate_rows.cuh"

// ---- The whole pyramid in one launch (session 14, "pyramid and schedule") -----------------------
// decimate_chain_kernel: the 32x8 tiles of levels first..last of the pyramid in one launch. A
// block takes a ticket (atomicAdd) and works on tile `ticket` of the list "level first's tiles
// row by row, then level first+1's, ...". A tile of level k > first first waits until every
// tile row of level k-1 that its input rows fall in is complete (one counter per tile row,
// incremented after the tile's outputs are stored and fenced). Tickets are handed out in order,
// so a block only ever waits on tiles with smaller tickets, whose blocks are resident or done:
// no deadlock whatever the grid size or residency. The last block to finish resets the counters
// (the next frame's launch, e.g. a graph replay, starts from zero). Level k-1's samples written
// in this launch are read with ld.global.cg (L2; an SM's L1 may hold a stale line). Per tile the
// arithmetic is decimate_kernel<13>'s (the same device functions): the same planes.
struct ChainTable {
  DevicePlane in_ref, in_dis;  // level first-1 (raw luma or f32)
  float* out_ref[kScales];     // level k's planes, k = first..last
  float* out_dis[kScales];
  Size size[kScales];          // size[k]: level k (size[0]: the input picture)
  int tiles_x[kScales];
  int block_begin[kScales + 1];  // level k's tiles: tickets [block_begin[k], block_begin[k + 1])
  int row_base[kScales];         // level k's tile-row counters: sync[2 + row_base[k] + tile_row]
  int first, last, total;
  unsigned* sync;  // [0] ticket, [1] finished blocks, [2..] tile-row counters; zero between launches
};

template <bool kCg>
__device__ __forceinline__ float load_sample_chain(const DevicePlane& p, size_t i, float inverse) {
  if constexpr (kCg) return __ldcg(static_cast<const float*>(p.data) + i);  // f32 level of this launch
  else return load_sample(p, i, inverse);
}

// decimate_kernel's row loader (variants 11-13) for a tile at (x0, y0) of the output.
template <bool kCg>
__device__ __forceinline__ unsigned load_chain_tile(const DevicePlane& ref, const DevicePlane& dis, int x0, int y0,
                                                    int load_rows, int load_cols,
                                                    float (*split)[2][kDecRows][kDecSplit]) {
  const Size in = ref.size;
  const float inverse_r = inverse_divisor(ref.bit_depth), inverse_d = inverse_divisor(dis.bit_depth);
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
        r < load_rows ? size_t(reflect_index(2 * y0 + r - kLpfRadius, in.height)) * size_t(in.width) : 0;
#pragma unroll
    for (int h = 0; h < 2; ++h)
      if (r < load_rows && col_ok[h]) {
        v[k][h][0] = load_sample_chain<kCg>(ref, row + col_even[h], inverse_r);
        v[k][h][1] = load_sample_chain<kCg>(ref, row + col_odd[h], inverse_r);
        v[k][h][2] = load_sample_chain<kCg>(dis, row + col_even[h], inverse_d);
        v[k][h][3] = load_sample_chain<kCg>(dis, row + col_odd[h], inverse_d);
      }
  }
  unsigned negative = 0;
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
        negative |= (__float_as_uint(v[k][h][0]) | __float_as_uint(v[k][h][1]) | __float_as_uint(v[k][h][2]) |
                     __float_as_uint(v[k][h][3])) >> 31;
      }
  }
  return negative;
}

__global__ void __launch_bounds__(kDecThreads) decimate_chain_kernel(const __grid_constant__ ChainTable t) {
  __shared__ float split[2][2][kDecRows][kDecSplit];
  __shared__ int s_ticket;
  if (threadIdx.x == 0) s_ticket = int(atomicAdd(&t.sync[0], 1u));
  __syncthreads();
  const int ticket = s_ticket;
  int k = t.first;
  while (k < t.last && ticket >= t.block_begin[k + 1]) ++k;
  const int tile = ticket - t.block_begin[k];
  const Size half = t.size[k], in = t.size[k - 1];
  const int x0 = (tile % t.tiles_x[k]) * kDecTileW, y0 = (tile / t.tiles_x[k]) * kDecTileH;
  const int cols = min(kDecTileW, half.width - x0), rows = min(kDecTileH, half.height - y0);
  const int load_rows = 2 * rows + kLpfTaps - 2, load_cols = cols + kLpfRadius;
  unsigned negative;
  if (k == t.first) {
    negative = load_chain_tile<false>(t.in_ref, t.in_dis, x0, y0, load_rows, load_cols, split);
  } else {
    if (threadIdx.x == 0) {
      // Input rows 2 y0 - 4 .. 2 y0 + load_rows - 5, reflected into [lo, hi] (docs: reflection
      // below 0 gives rows 0..3, above the last row rows >= n - 4 >= lo).
      const int lo = max(0, 2 * y0 - kLpfRadius), hi = min(in.height - 1, 2 * y0 + load_rows - 1 - kLpfRadius);
      const unsigned need = unsigned(t.tiles_x[k - 1]);
      const volatile unsigned* rows_done = t.sync + 2 + t.row_base[k - 1];
      for (int tr = lo / kDecTileH; tr <= hi / kDecTileH; ++tr)
        while (rows_done[tr] < need) __nanosleep(32);
      __threadfence();
    }
    __syncthreads();
    const DevicePlane pr{t.out_ref[k - 1], SampleType::kF32, 8, in}, pd{t.out_dis[k - 1], SampleType::kF32, 8, in};
    negative = load_chain_tile<true>(pr, pd, x0, y0, load_rows, load_cols, split);
  }
  const bool any_negative = __syncthreads_or(int(negative)) != 0;
  const int tx = int(threadIdx.x) % kDecTileW, ty = int(threadIdx.x) / kDecTileW;
  if (tx < cols && ty < rows) {
    float r, d;
    if (any_negative) decimate_taps<kCvt, kSigned, false>(split, tx, ty, r, d);
    else decimate_taps<kCvt, kShift, true>(split, tx, ty, r, d);
    const size_t o = size_t(y0 + ty) * size_t(half.width) + size_t(x0 + tx);
    t.out_ref[k][o] = r;
    t.out_dis[k][o] = d;
  }
  __threadfence();  // this tile's outputs, before the counter that publishes them
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicAdd(&t.sync[2 + t.row_base[k] + y0 / kDecTileH], 1u);
    if (atomicAdd(&t.sync[1], 1u) == unsigned(t.total - 1)) {
      // Every other block has finished (waits included): reset for the next launch.
      __threadfence();
      const int counters = t.row_base[t.last] + (t.size[t.last].height + kDecTileH - 1) / kDecTileH;
      for (int i = 0; i < counters; ++i) t.sync[2 + i] = 0;
      t.sync[0] = 0;
      t.sync[1] = 0;
    }
  }
}

// decimate_chain_sweep_kernel: the same scheme with decimate_sweep2_kernel<1>'s tiles (one image,
// 64x32 outputs, sliding runs sharing the symmetric taps' products). Tickets:
// level by level, then tile row, image, tile column; one counter per (level, tile row, image).
struct ChainSweepTable {
  DevicePlane in[2];          // level first-1: reference, distorted
  float* out[2][kScales];     // level k's planes, k = first..last
  Size size[kScales];
  int tiles_x[kScales];       // 64-wide tiles per tile row
  int block_begin[kScales + 1];
  int row_base[kScales];      // counter of (level k, tile row r, image z): sync[2 + 2 * (row_base[k] + r) + z]
  int first, last, total;
  unsigned* sync;
};

__global__ void __launch_bounds__(kSwThreads, 4) decimate_chain_sweep_kernel(const __grid_constant__ ChainSweepTable t) {
  __shared__ float tile[2][2][kSwCols][kSwRowsHalf];
  __shared__ int s_ticket;
  if (threadIdx.x == 0) s_ticket = int(atomicAdd(&t.sync[0], 1u));
  __syncthreads();
  const int ticket = s_ticket;
  int k = t.first;
  while (k < t.last && ticket >= t.block_begin[k + 1]) ++k;
  const int index = ticket - t.block_begin[k], per_row = 2 * t.tiles_x[k];
  const int tile_row = index / per_row, z = (index % per_row) / t.tiles_x[k], tile_col = index % t.tiles_x[k];
  const Size half = t.size[k], in_size = t.size[k - 1];
  const int x0 = tile_col * kSwW, y0 = tile_row * kSwH;
  const int cols = min(kSwW, half.width - x0), rows = min(kSwH, half.height - y0);
  const int load_rows = 2 * rows + kLpfTaps - 2, load_cols = 2 * cols + kLpfTaps - 2;
  unsigned negative;
  const bool raw = k == t.first && t.in[z].type != SampleType::kF32;
  if (k == t.first) {
    negative = load_sweep_tile_lean<false>(t.in[z], x0, y0, load_rows, load_cols, tile);
  } else {
    if (threadIdx.x == 0) {
      const int lo = max(0, 2 * y0 - kLpfRadius), hi = min(in_size.height - 1, 2 * y0 + load_rows - 1 - kLpfRadius);
      const unsigned need = unsigned(t.tiles_x[k - 1]);
      const volatile unsigned* done = t.sync + 2;
      for (int r = lo / kSwH; r <= hi / kSwH; ++r)
        while (done[2 * (t.row_base[k - 1] + r) + z] < need) __nanosleep(32);
      __threadfence();
    }
    __syncthreads();
    negative = load_sweep_rows_lean<float, true>(t.out[z][k - 1], in_size, x0, y0, load_rows, load_cols, 1.0f, tile);
  }
  const bool any_negative = __syncthreads_or(int(negative)) != 0;
  const int y = int(threadIdx.x) % kSwH, jr = (int(threadIdx.x) / kSwH) * kSwRun;
  float res[kSwRun];
  sweep2_taps<1>(tile, raw, any_negative, jr, y, res);
  __syncthreads();  // the tile becomes the output staging area
  float(*staged)[kSwW] = reinterpret_cast<float(*)[kSwW]>(&tile[0][0][0][0]);
#pragma unroll
  for (int o = 0; o < kSwRun; ++o) staged[y][jr + o] = res[o];
  __syncthreads();
  float* out = t.out[z][k];
  for (int i = int(threadIdx.x); i < rows * kSwW; i += kSwThreads) {
    const int r = i / kSwW, c = i % kSwW;
    if (c < cols) out[size_t(y0 + r) * size_t(half.width) + size_t(x0 + c)] = staged[r][c];
  }
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicAdd(&t.sync[2 + 2 * (t.row_base[k] + tile_row) + z], 1u);
    if (atomicAdd(&t.sync[1], 1u) == unsigned(t.total - 1)) {
      __threadfence();
      const int counters = 2 * (t.row_base[t.last] + (t.size[t.last].height + kSwH - 1) / kSwH);
      for (int i = 0; i < counters; ++i) t.sync[2 + i] = 0;
      t.sync[0] = 0;
      t.sync[1] = 0;
    }
  }
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
// Row strides of the input and pass regions, odd so that threads walking different rows of one
// column (the sliding runs) hit different banks.
constexpr int kInStride = kInW + 1, kPassW = kTileW + 1;
constexpr int kQuantities = 5;  // mu_r, mu_d, r*r, d*d, r*d
constexpr size_t kInputFloats = 2 * size_t(kInH) * kInStride;
constexpr size_t kWindowSmem = (kInputFloats + size_t(kQuantities) * kInH * kPassW) * sizeof(float);
static_assert(kInputFloats * sizeof(float) % 16 == 0, "the pass region must stay aligned for doubles");
static_assert(size_t(kQuantities) * kInH * kPassW * sizeof(float) >=
                  sizeof(DoubleDouble) * kSumQuantities * kThreads,
              "the block tree reuses the horizontal-pass region");

// kH, kNumWarps: the tile's rows and the block's warps (window_tall_kernel: 138 rows, 16 warps).
template <typename T, int kH = kInH, int kNumWarps = kWarps>
__device__ __forceinline__ unsigned load_window_rows(const void* ref_data, const void* dis_data, size_t width, int x0,
                                                     int y0, int in_rows, int in_cols, float inverse_r,
                                                     float inverse_d, float (*in)[kH][kInStride]) {
  const T* ref = static_cast<const T*>(ref_data);
  const T* dis = static_cast<const T*>(dis_data);
  const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
  constexpr int kBatch = 4;
  unsigned negative = 0;
  for (int r0 = warp; r0 < in_rows; r0 += kNumWarps * kBatch) {
    T a[kBatch][2], b[kBatch][2];
#pragma unroll
    for (int k = 0; k < kBatch; ++k)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = r0 + kNumWarps * k, c = lane + 32 * h;
        a[k][h] = b[k][h] = T(0);
        if (r < in_rows && c < in_cols) {
          const size_t index = size_t(y0 + r) * width + size_t(x0 + c);
          a[k][h] = ref[index];
          b[k][h] = dis[index];
        }
      }
#pragma unroll
    for (int k = 0; k < kBatch; ++k)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = r0 + kNumWarps * k, c = lane + 32 * h;
        if (r < in_rows && c < in_cols) {
          const float rv = to_sample(a[k][h], inverse_r), dv = to_sample(b[k][h], inverse_d);
          in[0][r][c] = rv;
          in[1][r][c] = dv;
          negative |= (__float_as_uint(rv) | __float_as_uint(dv)) >> 31;
        }
      }
  }
  return negative;
}

struct JobTable {
  ScaleJob job[kMaxJobs];
  PartialSum* partials[kMaxJobs];
  int tiles_x[kMaxJobs];
  int block_begin[kMaxJobs + 1];
  int count;
};

// __fsqrt_rn with +-0 kept off its slow path: the fast path covers arguments from 2^-101 up, so
// every flat pixel (a zero variance) called the slow-path subroutine (at 4K's scales 1-4, one warp
// iteration in five of the terms loop). A zero argument takes itself (sqrt(+-0) is +-0); any other
// the same correctly rounded root.
__device__ __forceinline__ float sqrt_rn_flat_fast(float x) {
  const float root = __fsqrt_rn(x == 0.0f ? 1.0f : x);
  return x == 0.0f ? x : root;
}

// kF32Sqrt: sigma by the correctly rounded f32 square root, which equals upstream's f64 root
// rounded to f32 for every f32 argument (double rounding is innocuous for sqrt when the wider
// format has at least 2p + 2 bits: 53 >= 2 * 24 + 2; the CPU's unit test checks it on a million
// values); fewer f64 operations.
template <bool kF32Sqrt = false>
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
  l = __ddiv_rn(__dadd_rn(__dmul_rn(__dmul_rn(2.0, widen(mu_r)), widen(mu_d)), widen(kC1)),
                widen(__fadd_rn(__fadd_rn(__fmul_rn(mu_r, mu_r), __fmul_rn(mu_d, mu_d)), kC1)));
  c = __ddiv_rn(__dadd_rn(__dmul_rn(2.0, widen(sigma)), widen(kC2)),
                widen(__fadd_rn(__fadd_rn(var_r, var_d), kC2)));
  const float cov_fixed = (cov < 0.0f && sigma <= 0.0f) ? 0.0f : cov;  // zli-nflx flat fix
  s = __fdiv_rn(__fadd_rn(cov_fixed, kC3), __fadd_rn(sigma, kC3));
}

// Vertical pass of one quantity by a sliding run (variants 6, 7): the thread owns column c, map
// rows y0..y0+7, and walks input rows y0..y0+17 of the horizontal sums once. The Gaussian is
// symmetric bit for bit (prepare_device checks), so the product of a sample with taps k and
// 10-k is the same f32 (same operands), formed and widened once and added to both outputs'
// accumulators; every accumulator still receives its taps k = 0..10 in order. Results go back
// into the quantity's own rows (after a barrier: the run reads rows other threads write).
constexpr int kSlideRun = 8, kSlideRuns = kTileH / kSlideRun;
static_assert(kSlideRuns * kTileW == kThreads, "one run per thread");

__host__ __device__ constexpr bool slide_needs(int s, int m) {
  for (int o = 0; o < kSlideRun; ++o) {
    const int k = s - o;
    if (k >= 0 && k < kWindowTaps && (k < kWindowTaps - 1 - k ? k : kWindowTaps - 1 - k) == m) return true;
  }
  return false;
}

// The kSlideRun outputs of a run from its kSlideRun + 10 samples x (taps k = 0..10 of output o
// are x[o + k]), each product with the symmetric tap pair formed and widened once.
constexpr int kSlideSamples = kSlideRun + kWindowMargin;

// kAssign (window variant 16; only for the sign-free modes kShift / kWide, whose widened terms
// are never -0): each accumulator's first tap is assigned instead of added to 0.0, which gives
// the same bits (+0 + t == t for every t with its sign bit clear) and saves one f64 add per output.
template <int M, bool kAssign = false>
__device__ __forceinline__ void slide_taps(const float (&x)[kSlideSamples], float (&out)[kSlideRun]) {
  static_assert(!kAssign || M == kShift || M == kWide, "assignment needs sign-free terms");
  double acc[kSlideRun];
#pragma unroll
  for (int o = 0; o < kSlideRun; ++o) acc[o] = 0.0;
#pragma unroll
  for (int s = 0; s < kSlideSamples; ++s) {
    double w[kWindowTaps / 2 + 1];
#pragma unroll
    for (int m = 0; m <= kWindowTaps / 2; ++m)
      if (slide_needs(s, m)) w[m] = widen_as<M>(__fmul_rn(x[s], c_gaussian[m]));
#pragma unroll
    for (int o = 0; o < kSlideRun; ++o) {
      const int k = s - o;
      if (kAssign && k == 0) acc[o] = w[0];
      else if (k >= 0 && k < kWindowTaps) acc[o] = __dadd_rn(acc[o], w[k < kWindowTaps - 1 - k ? k : kWindowTaps - 1 - k]);
    }
  }
#pragma unroll
  for (int o = 0; o < kSlideRun; ++o) out[o] = finish_as<M>(acc[o]);
}

template <int M, bool kAssign = false>
__device__ __forceinline__ void slide_v(float (*pq)[kPassW], int c, int y0) {
  float x[kSlideSamples], out[kSlideRun];
#pragma unroll
  for (int s = 0; s < kSlideSamples; ++s) x[s] = pq[y0 + s][c];
  slide_taps<M, kAssign>(x, out);
  __syncthreads();  // every run has read this quantity's rows
#pragma unroll
  for (int o = 0; o < kSlideRun; ++o) pq[y0 + o][c] = out[o];
}

// Horizontal pass by sliding runs (variant 8): a task is (quantity, run of 8 columns, row); the
// threads of a warp take neighbouring rows (odd strides: no bank conflicts). The quantity's
// sample is formed as window_h_one forms it (r, d, r*r, d*d, r*d in f32).
template <int M0, int M1 = M0, int M2 = M0, int M3 = M0, int M4 = M0, bool kA = false>
__device__ __forceinline__ void slide_h(float (*in)[kInH][kInStride], float (*pass)[kInH][kPassW], int in_rows) {
  constexpr bool kOneMode = M0 == M1 && M1 == M2 && M2 == M3 && M3 == M4;
  constexpr int kRunsPerRow = kTileW / kSlideRun, kPerQuantity = kInH * kRunsPerRow;
  for (int t = int(threadIdx.x); t < kQuantities * kPerQuantity; t += kThreads) {
    const int q = t / kPerQuantity, rem = t % kPerQuantity, c0 = (rem / kInH) * kSlideRun, r = rem % kInH;
    if (r >= in_rows) continue;
    const float* pr = &in[0][r][c0];
    const float* pd = &in[1][r][c0];
    float x[kSlideSamples], out[kSlideRun];
    if (q == 0) {
#pragma unroll
      for (int i = 0; i < kSlideSamples; ++i) x[i] = pr[i];
    } else if (q == 1) {
#pragma unroll
      for (int i = 0; i < kSlideSamples; ++i) x[i] = pd[i];
    } else if (q == 2) {
#pragma unroll
      for (int i = 0; i < kSlideSamples; ++i) x[i] = __fmul_rn(pr[i], pr[i]);
    } else if (q == 3) {
#pragma unroll
      for (int i = 0; i < kSlideSamples; ++i) x[i] = __fmul_rn(pd[i], pd[i]);
    } else {
#pragma unroll
      for (int i = 0; i < kSlideSamples; ++i) x[i] = __fmul_rn(pr[i], pd[i]);
    }
    if (kOneMode) slide_taps<M0, kA>(x, out);
    else if (q == 0) slide_taps<M0, kA>(x, out);
    else if (q == 1) slide_taps<M1, kA>(x, out);
    else if (q == 2) slide_taps<M2, kA>(x, out);
    else if (q == 3) slide_taps<M3, kA>(x, out);
    else slide_taps<M4, kA>(x, out);
#pragma unroll
    for (int o = 0; o < kSlideRun; ++o) pass[q][r][c0 + o] = out[o];
  }
}

// Horizontal pass, vertical pass, statistics, terms and the tile's block tree, after the input
// tile is in shared memory. M0..M4: widening mode of each quantity's accumulators (mu_r, mu_d,
// r*r, d*d, r*d). kPlain: each thread adds its terms in plain f64 (a fixed order) and only the
// block tree is double-double; else every term goes through dd_add.
template <int M0, int M1, int M2, int M3, int M4, bool kPlain, bool kSlide = false, bool kSlideH = false,
          bool kF32Sqrt = false, bool kAssign = false>
__device__ __forceinline__ void window_body(float (*in)[kInH][kInStride], float (*pass)[kInH][kPassW], float* smem,
                                            const WindowTaps& taps, PartialSum* partials, int tile, Size map,
                                            int x0, int y0, int cols, int rows, int in_rows) {
  // Horizontal pass (window_h_one): a warp per row, a lane per column.
  if constexpr (kSlideH) {
    slide_h<M0, M1, M2, M3, M4, kAssign>(in, pass, in_rows);
  } else
  for (int i = int(threadIdx.x); i < in_rows * kTileW; i += kThreads) {
    const int r = i / kTileW, c = i % kTileW;
    if (c >= cols) continue;
    double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0, a4 = 0.0;
#pragma unroll
    for (int k = 0; k < kWindowTaps; ++k) {
      const float rv = in[0][r][c + k], dv = in[1][r][c + k], g = c_gaussian[k];
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
  DoubleDouble acc[kSumQuantities] = {};
  double plain[kSumQuantities] = {};
  if constexpr (kSlide) {
    const int c = int(threadIdx.x) % kTileW, y0r = (int(threadIdx.x) / kTileW) * kSlideRun;
    if constexpr (M0 == M1 && M1 == M2 && M2 == M3 && M3 == M4) {
#pragma unroll 1
      for (int q = 0; q < kQuantities; ++q) slide_v<M0, kAssign>(pass[q], c, y0r);
    } else {
      slide_v<M0, kAssign>(pass[0], c, y0r);
      slide_v<M1, kAssign>(pass[1], c, y0r);
      slide_v<M2, kAssign>(pass[2], c, y0r);
      slide_v<M3, kAssign>(pass[3], c, y0r);
      slide_v<M4, kAssign>(pass[4], c, y0r);
    }
    __syncthreads();
  }
  for (int i = int(threadIdx.x); i < rows * kTileW; i += kThreads) {
    const int y = i / kTileW, c = i % kTileW;
    if (c >= cols) continue;
    float mu_r, mu_d, sum_rr, sum_dd, sum_rd;
    if constexpr (kSlide) {
      mu_r = pass[0][y][c];
      mu_d = pass[1][y][c];
      sum_rr = pass[2][y][c];
      sum_dd = pass[3][y][c];
      sum_rd = pass[4][y][c];
    } else {
      double b0 = 0.0, b1 = 0.0, b2 = 0.0, b3 = 0.0, b4 = 0.0;
#pragma unroll
      for (int k = 0; k < kWindowTaps; ++k) {
        const float g = c_gaussian[k];
        b0 = __dadd_rn(b0, widen_as<M0>(__fmul_rn(pass[0][y + k][c], g)));
        b1 = __dadd_rn(b1, widen_as<M1>(__fmul_rn(pass[1][y + k][c], g)));
        b2 = __dadd_rn(b2, widen_as<M2>(__fmul_rn(pass[2][y + k][c], g)));
        b3 = __dadd_rn(b3, widen_as<M3>(__fmul_rn(pass[3][y + k][c], g)));
        b4 = __dadd_rn(b4, widen_as<M4>(__fmul_rn(pass[4][y + k][c], g)));
      }
      mu_r = finish_as<M0>(b0);
      mu_d = finish_as<M1>(b1);
      sum_rr = finish_as<M2>(b2);
      sum_dd = finish_as<M3>(b3);
      sum_rd = finish_as<M4>(b4);
    }
    double l, cs;
    float s;
    lcs_terms<kF32Sqrt>(mu_r, mu_d, sum_rr, sum_dd, sum_rd, l, cs, s);
    const double sd = widen(s);
    const double ssim = __dmul_rn(__dmul_rn(l, cs), sd);  // (l*c)*s, upstream's ssim_sum term
    if constexpr (kPlain) {
      plain[0] = __dadd_rn(plain[0], l);
      plain[1] = __dadd_rn(plain[1], cs);
      plain[2] = __dadd_rn(plain[2], sd);
      plain[3] = __dadd_rn(plain[3], ssim);
    } else {
      dd_add(acc[0], l);
      dd_add(acc[1], cs);
      dd_add(acc[2], sd);
      dd_add(acc[3], ssim);
    }
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
  if constexpr (kPlain)
#pragma unroll
    for (int q = 0; q < kSumQuantities; ++q) acc[q] = {plain[q], 0.0};
  __syncthreads();  // the pass region becomes the tree's scratch

  auto red = reinterpret_cast<DoubleDouble(*)[kThreads]>(smem + kInputFloats);
#pragma unroll
  for (int q = 0; q < kSumQuantities; ++q) red[q][threadIdx.x] = acc[q];
  __syncthreads();
  block_tree<kThreads>(red);
  if (threadIdx.x < kSumQuantities) {
    const DoubleDouble v = red[threadIdx.x][0];
    partials[size_t(tile) * kSumQuantities + threadIdx.x] = {v.hi, v.lo};
  }
}

// kVariant 0: mu_r, mu_d through the conversion instruction, r*r, d*d by shifts, r*d (any sign)
// by widen_scaled; per-term double-double sums. Variants 1-5: where no input sample of the tile
// has its sign bit set, every product and every horizontal sum has it clear as well (the
// Gaussian is positive; sums of such terms start at +0), so all five quantities can use the
// sign-free widenings, in the mix below; tiles with a negative sample take variant 0's path.
//   1: cvt, cvt, wide, wide, wide (dd sums)      2: the same, plain per-thread sums
//   3: cvt, wide, wide, wide, wide (plain)       4: wide x5 (plain)
//   5: cvt, wide, shift, wide, wide (plain)
//   6: as 4, vertical pass by sliding runs (slide_v)   7: as 3, sliding runs
//   8: as 6, the horizontal pass by sliding runs as well (slide_h)
//   9: as 8, sigma by the f32 square root (lcs_terms)
//   10: as 9 with the widenings spread over three pipes: cvt (XU), wide (FMA), shift (ALU):
//       cvt, wide, shift, wide, shift     11: as 9, all shifts     12: as 9, all conversions
//   13: as 11, 14: as 9, 15: as 0, each with the row-wise tile loader (load_window_rows)
//   16: as 13, each accumulator's first tap assigned instead of added to 0.0 (slide_taps)
template <int kVariant>
__global__ void __launch_bounds__(kThreads, 3) window_kernel(const __grid_constant__ JobTable t) {
  extern __shared__ __align__(16) float smem[];
  float(*in)[kInH][kInStride] = reinterpret_cast<float(*)[kInH][kInStride]>(smem);  // [ref, dis]
  float(*pass)[kInH][kPassW] = reinterpret_cast<float(*)[kInH][kPassW]>(smem + kInputFloats);

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
  unsigned negative = 0;
  if (kVariant >= 13 && job.ref.type == job.dis.type) {
    const size_t width = size_t(size.width);
    if (job.ref.type == SampleType::kU8)
      negative = load_window_rows<uint8_t>(job.ref.data, job.dis.data, width, x0, y0, in_rows, in_cols, inverse_r,
                                           inverse_d, in);
    else if (job.ref.type == SampleType::kU16)
      negative = load_window_rows<uint16_t>(job.ref.data, job.dis.data, width, x0, y0, in_rows, in_cols, inverse_r,
                                            inverse_d, in);
    else
      negative = load_window_rows<float>(job.ref.data, job.dis.data, width, x0, y0, in_rows, in_cols, inverse_r,
                                         inverse_d, in);
  } else {
    for (int i = int(threadIdx.x); i < in_rows * in_cols; i += kThreads) {
      const int r = i / in_cols, c = i % in_cols;
      const size_t index = size_t(y0 + r) * size_t(size.width) + size_t(x0 + c);
      const float rv = load_sample(job.ref, index, inverse_r), dv = load_sample(job.dis, index, inverse_d);
      in[0][r][c] = rv;
      in[1][r][c] = dv;
      negative |= (__float_as_uint(rv) | __float_as_uint(dv)) >> 31;
    }
  }
  const bool any_negative = __syncthreads_or(int(negative)) != 0;
  PartialSum* partials = t.partials[j];
  if (kVariant == 0 || kVariant == 15 || any_negative) {
    if (kVariant < 2 || kVariant == 15)
      window_body<kCvt, kCvt, kShift, kShift, kSigned, false>(in, pass, smem, job.taps, partials, tile, map,
                                                              x0, y0, cols, rows, in_rows);
    else
      window_body<kCvt, kCvt, kShift, kShift, kSigned, true>(in, pass, smem, job.taps, partials, tile, map,
                                                             x0, y0, cols, rows, in_rows);
  } else if (kVariant == 1) {
    window_body<kCvt, kCvt, kWide, kWide, kWide, false>(in, pass, smem, job.taps, partials, tile, map, x0,
                                                        y0, cols, rows, in_rows);
  } else if (kVariant == 2) {
    window_body<kCvt, kCvt, kWide, kWide, kWide, true>(in, pass, smem, job.taps, partials, tile, map, x0,
                                                       y0, cols, rows, in_rows);
  } else if (kVariant == 3) {
    window_body<kCvt, kWide, kWide, kWide, kWide, true>(in, pass, smem, job.taps, partials, tile, map, x0,
                                                        y0, cols, rows, in_rows);
  } else if (kVariant == 4) {
    window_body<kWide, kWide, kWide, kWide, kWide, true>(in, pass, smem, job.taps, partials, tile, map, x0,
                                                         y0, cols, rows, in_rows);
  } else if (kVariant == 5) {
    window_body<kCvt, kWide, kShift, kWide, kWide, true>(in, pass, smem, job.taps, partials, tile, map, x0,
                                                         y0, cols, rows, in_rows);
  } else if (kVariant == 6) {
    window_body<kWide, kWide, kWide, kWide, kWide, true, true>(in, pass, smem, job.taps, partials, tile, map,
                                                               x0, y0, cols, rows, in_rows);
  } else if (kVariant == 7) {
    window_body<kCvt, kWide, kWide, kWide, kWide, true, true>(in, pass, smem, job.taps, partials, tile, map,
                                                              x0, y0, cols, rows, in_rows);
  } else if (kVariant == 8) {
    window_body<kWide, kWide, kWide, kWide, kWide, true, true, true>(in, pass, smem, job.taps, partials, tile,
                                                                     map, x0, y0, cols, rows, in_rows);
  } else if (kVariant == 9) {
    window_body<kWide, kWide, kWide, kWide, kWide, true, true, true, true>(in, pass, smem, job.taps, partials,
                                                                           tile, map, x0, y0, cols, rows, in_rows);
  } else if (kVariant == 10) {
    window_body<kCvt, kWide, kShift, kWide, kShift, true, true, true, true>(in, pass, smem, job.taps, partials,
                                                                            tile, map, x0, y0, cols, rows, in_rows);
  } else if (kVariant == 16) {
    window_body<kShift, kShift, kShift, kShift, kShift, true, true, true, true, true>(
        in, pass, smem, job.taps, partials, tile, map, x0, y0, cols, rows, in_rows);
  } else if (kVariant == 11 || kVariant == 13) {
    window_body<kShift, kShift, kShift, kShift, kShift, true, true, true, true>(
        in, pass, smem, job.taps, partials, tile, map, x0, y0, cols, rows, in_rows);
  } else if (kVariant == 14) {
    window_body<kWide, kWide, kWide, kWide, kWide, true, true, true, true>(in, pass, smem, job.taps, partials,
                                                                           tile, map, x0, y0, cols, rows, in_rows);
  } else {
    window_body<kCvt, kCvt, kCvt, kCvt, kCvt, true, true, true, true>(in, pass, smem, job.taps, partials, tile,
                                                                      map, x0, y0, cols, rows, in_rows);
  }
}

// ---- Window kernel, session 14: longer sliding runs, branch-free divisions (variants 17+) ----
// window_run_kernel: the prologue and the signed path of window_kernel<16>; the sign-free path by
// run_body below. Every variant gives the same planes and terms as the plain twins
// (EverySpeedVariantBitIdentical).
//
// Longer runs share more products: a run of R outputs walks R + 10 samples, and each sample's
// products with the symmetric tap pairs are formed and widened once (kGaussian is symmetric bit
// for bit): 76 products for R = 8 (9.5 per output), 126 for R = 16 (7.9), 222 for R = 32 (6.9);
// each accumulator still receives its taps k = 0..10 in order, and at most 11 accumulators are
// live at any sample, so the registers do not grow with R. Fewer, longer tasks also divide the
// index arithmetic, the loads of the squared quantities and the loop overhead by R.

template <int R>
__host__ __device__ constexpr bool run_needs(int s, int m) {
  for (int o = 0; o < R; ++o) {
    const int k = s - o;
    if (k >= 0 && k < kWindowTaps && (k < kWindowTaps - 1 - k ? k : kWindowTaps - 1 - k) == m) return true;
  }
  return false;
}

// The R outputs of a run from its R + 10 samples x (taps k = 0..10 of output o are x[o + k]).
// Sign-free terms only (the widening modes kShift / kWide / kCvt of a sign-free tile: products of
// samples with their sign bit clear and the positive Gaussian, never -0), so each accumulator's
// first tap is assigned (+0 + t == t bit for bit), as slide_taps<M, true>.
//
// Mixed widening (M = kMix13 / kMix12 / kMix23): widen_scaled_nonneg (IMAD.SHL + SHF, two issue
// slots on the FMA and ALU pipes) and widen_scaled_wide (one IMAD.WIDE.U32 on the FMA pipe) give
// the same bits for a sign-free product, so one accumulator may take both; every third / second
// product (or two of three) of a run by IMAD.WIDE spreads the widenings over the pipes.
enum MixMode : int { kMix13 = 4, kMix12 = 5, kMix23 = 6, kParity = 7 };

// kParity (session 16): the accumulators of a run's even outputs are fed by the conversion
// instruction (unscaled, XU pipe: one issue slot per product), those of its odd outputs by the
// shift pair (scaled, two slots). A product of taps k and 10 - k goes to outputs s - k and
// s - 10 + k, an even distance apart, so both accumulators of a shared product have the same mode
// and each product is widened once; every accumulator still takes one mode only. Half the
// products by conversion keeps the XU pipe below the issue rate (all conversions measured 14 %
// slower than all shifts in session 13: the XU pipe, a quarter of the f64 rate, became the bound).
template <int M>
__host__ __device__ constexpr bool output_converted(int o) {
  return M == kCvt || (M == kParity && o % 2 == 0);
}

template <int M>
__host__ __device__ constexpr bool mix_wide(int n) {
  if constexpr (M == kMix13) return n % 3 == 0;
  else if constexpr (M == kMix12) return n % 2 == 0;
  else if constexpr (M == kMix23) return n % 3 != 0;
  else return M == kWide;
}

//
// M = kSigned (tiles with a sample whose sign bit is set; the compact kernel's signed path): any
// finite term by widen_scaled, and each accumulator starts at +0 as the CPU's (a -0 product then
// leaves +0, as upstream's 0.0 + -0.0).
template <int M, int R>
__device__ __forceinline__ void run_taps(const float (&x)[R + kWindowMargin], float (&out)[R]) {
  static_assert(M == kShift || M == kWide || M == kCvt || M == kSigned || M >= kMix13, "widening mode");
  constexpr bool kAssign = M != kSigned;
  double acc[R];
  int n = 0;  // products so far (compile-time after unrolling): picks the widening of a mix
#pragma unroll
  for (int s = 0; s < R + kWindowMargin; ++s) {
    double w[kWindowTaps / 2 + 1];
#pragma unroll
    for (int m = 0; m <= kWindowTaps / 2; ++m)
      if (run_needs<R>(s, m)) {
        const float p = __fmul_rn(x[s], c_gaussian[m]);
        if constexpr (M == kCvt) w[m] = widen(p);
        else if constexpr (M == kSigned) w[m] = widen_scaled(p);
        else if constexpr (M == kParity) w[m] = output_converted<M>(s - m) ? widen(p) : widen_scaled_nonneg(p);
        else w[m] = mix_wide<M>(n) ? widen_scaled_wide(p) : widen_scaled_nonneg(p);
        ++n;
      }
#pragma unroll
    for (int o = 0; o < R; ++o) {
      const int k = s - o;
      if (k == 0) acc[o] = kAssign ? w[0] : __dadd_rn(0.0, w[0]);
      else if (k > 0 && k < kWindowTaps) acc[o] = __dadd_rn(acc[o], w[k < kWindowTaps - 1 - k ? k : kWindowTaps - 1 - k]);
    }
  }
#pragma unroll
  for (int o = 0; o < R; ++o) out[o] = output_converted<M>(o) ? __double2float_rn(acc[o]) : unscale_to_f32(acc[o]);
}

// Horizontal pass by runs of R columns: a task is (quantity, run, row), a warp's lanes take
// neighbouring rows (odd strides: no bank conflicts); the quantity's samples formed as
// window_h_one forms them (r, d, r*r, d*d, r*d in f32).
template <int M, int R>
__device__ __forceinline__ void run_h(float (*in)[kInH][kInStride], float (*pass)[kInH][kPassW], int in_rows) {
  constexpr int kRunsPerRow = kTileW / R, kPerQuantity = kInH * kRunsPerRow, kS = R + kWindowMargin;
  static_assert(kTileW % R == 0, "whole runs");
  for (int t = int(threadIdx.x); t < kQuantities * kPerQuantity; t += kThreads) {
    const int q = t / kPerQuantity, rem = t - q * kPerQuantity, run = rem / kInH, r = rem - run * kInH;
    if (r >= in_rows) continue;
    const int c0 = run * R;
    const float* pr = &in[0][r][c0];
    const float* pd = &in[1][r][c0];
    float x[kS], out[R];
    if (q == 0) {
#pragma unroll
      for (int i = 0; i < kS; ++i) x[i] = pr[i];
    } else if (q == 1) {
#pragma unroll
      for (int i = 0; i < kS; ++i) x[i] = pd[i];
    } else if (q == 4) {
#pragma unroll
      for (int i = 0; i < kS; ++i) x[i] = __fmul_rn(pr[i], pd[i]);
    } else {  // r*r or d*d: one plane, each sample loaded once
      const float* p = q == 2 ? pr : pd;
#pragma unroll
      for (int i = 0; i < kS; ++i) x[i] = __fmul_rn(p[i], p[i]);
    }
    run_taps<M, R>(x, out);
#pragma unroll
    for (int o = 0; o < R; ++o) pass[q][r][c0 + o] = out[o];
  }
}

// Vertical pass by runs of R rows, results back in place. R = 8: a run per thread and quantity
// (slide_v's shape, kThreads = 32 columns x 8 runs). R = 16: 32 columns x 4 runs = 128 tasks per
// quantity, so two quantities per round (the last round: the fifth alone); a barrier between a
// round's reads and its writes (a run reads rows other runs write), none between rounds (they
// touch different quantities).
template <int M, int R>
__device__ __forceinline__ void run_v(float (*pass)[kInH][kPassW]) {
  constexpr int kS = R + kWindowMargin, kRuns = kTileH / R, kPerQuantity = kRuns * kTileW;
  static_assert(kThreads % kPerQuantity == 0, "whole quantities per round");
  constexpr int kPerRound = kThreads / kPerQuantity;
  const int c = int(threadIdx.x) % kTileW, y0 = ((int(threadIdx.x) / kTileW) % kRuns) * R;
  const int part = int(threadIdx.x) / kPerQuantity;
#pragma unroll 1
  for (int q0 = 0; q0 < kQuantities; q0 += kPerRound) {
    const int q = q0 + part;
    float x[kS], out[R];
    if (q < kQuantities) {
#pragma unroll
      for (int s = 0; s < kS; ++s) x[s] = pass[q][y0 + s][c];
      run_taps<M, R>(x, out);
    }
    __syncthreads();  // every run of this round has read its quantity's rows
    if (q < kQuantities) {
#pragma unroll
      for (int o = 0; o < R; ++o) pass[q][y0 + o][c] = out[o];
    }
  }
  __syncthreads();
}

__device__ __forceinline__ double div_rn(double a, double b) {
  bool fast;
  const double q = div_rn_fast(a, b, fast);
  return fast ? q : __ddiv_rn(a, b);
}

// div_rn_fast for a denominator that is a widened f32 (both divisions of lcs_terms): b's range
// test is then implied by q's. A finite f32 lies in [2^-149, 2^128), inside the range the test
// asks for b (2^-1000 .. 2^900); an infinite or NaN b (or a zero one) makes the reciprocal
// sequence give a NaN quotient, which fails q's test. division_mismatches checks it as well.
__device__ __forceinline__ double div_rn_f32_den(double a, float b32) {
  const double b = widen(b32);
  double r;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(b));
  double y = __hiloint2double(__double2hiint(r), 1);
  double e = __fma_rn(-b, y, 1.0);
  e = __fma_rn(e, e, e);
  y = __fma_rn(y, e, y);
  e = __fma_rn(-b, y, 1.0);
  y = __fma_rn(y, e, y);
  const double q0 = __dmul_rn(a, y);
  const double res = __fma_rn(-b, q0, a);
  const double q = __fma_rn(y, res, q0);
  const uint32_t ah = uint32_t(__double2hiint(a)) & 0x7fffffffu;
  const uint32_t qh = uint32_t(__double2hiint(q)) & 0x7fffffffu;
  const bool fast = ah - 0x03800000u < 0x78300000u - 0x03800000u && qh - 0x01700000u < 0x78300000u - 0x01700000u;
  return fast ? q : __ddiv_rn(a, b);
}

// lcs_terms<true> with the two f64 divisions by div_rn_f32_den (same operands, same bits), and
// the numerators by one fused operation each: (2 mu_r) * mu_d is exact in f64 (two 24-bit
// significands, exponents far inside the range), so DADD(DMUL(2 mu_r, mu_d), C1) ==
// DFMA(2 mu_r, mu_d, C1); likewise 2 * sigma is exact, so DADD(DMUL(2, sigma), C2) ==
// DFMA(2, sigma, C2).
__device__ __forceinline__ void lcs_terms_fast(float mu_r, float mu_d, float sum_rr, float sum_dd, float sum_rd,
                                               double& l, double& c, float& s) {
  float var_r = __fsub_rn(sum_rr, __fmul_rn(mu_r, mu_r));
  float var_d = __fsub_rn(sum_dd, __fmul_rn(mu_d, mu_d));
  var_r = 0.0f > var_r ? 0.0f : var_r;
  var_d = 0.0f > var_d ? 0.0f : var_d;
  const float cov = __fsub_rn(sum_rd, __fmul_rn(mu_r, mu_d));
  const float sigma = __fsqrt_rn(__fmul_rn(var_r, var_d));
  const double ln = __fma_rn(__dmul_rn(2.0, widen(mu_r)), widen(mu_d), widen(kC1));
  const float ld = __fadd_rn(__fadd_rn(__fmul_rn(mu_r, mu_r), __fmul_rn(mu_d, mu_d)), kC1);
  const double cn = __fma_rn(2.0, widen(sigma), widen(kC2));
  const float cd = __fadd_rn(__fadd_rn(var_r, var_d), kC2);
  l = div_rn_f32_den(ln, ld);
  c = div_rn_f32_den(cn, cd);
  const float cov_fixed = (cov < 0.0f && sigma <= 0.0f) ? 0.0f : cov;  // zli-nflx flat fix
  s = __fdiv_rn(__fadd_rn(cov_fixed, kC3), __fadd_rn(sigma, kC3));
}

// The sign-free path of window_run_kernel: horizontal runs of kHR columns, vertical runs of kVR
// rows, all five quantities widened by M, then window_body's statistics, terms (f32 sqrt; kFastDiv:
// lcs_terms_fast), plain per-thread sums and the block tree.
// lcs_terms<true> with only the numerators fused (lcs_terms_fast's DFMA numerators, exact as
// argued there) and the divisions by __ddiv_rn: the branch-free divisions measured slower.
__device__ __forceinline__ void lcs_terms_fused(float mu_r, float mu_d, float sum_rr, float sum_dd, float sum_rd,
                                                double& l, double& c, float& s) {
  float var_r = __fsub_rn(sum_rr, __fmul_rn(mu_r, mu_r));
  float var_d = __fsub_rn(sum_dd, __fmul_rn(mu_d, mu_d));
  var_r = 0.0f > var_r ? 0.0f : var_r;
  var_d = 0.0f > var_d ? 0.0f : var_d;
  const float cov = __fsub_rn(sum_rd, __fmul_rn(mu_r, mu_d));
  const float sigma = __fsqrt_rn(__fmul_rn(var_r, var_d));
  l = __ddiv_rn(__fma_rn(__dmul_rn(2.0, widen(mu_r)), widen(mu_d), widen(kC1)),
                widen(__fadd_rn(__fadd_rn(__fmul_rn(mu_r, mu_r), __fmul_rn(mu_d, mu_d)), kC1)));
  c = __ddiv_rn(__fma_rn(2.0, widen(sigma), widen(kC2)), widen(__fadd_rn(__fadd_rn(var_r, var_d), kC2)));
  const float cov_fixed = (cov < 0.0f && sigma <= 0.0f) ? 0.0f : cov;  // zli-nflx flat fix
  s = __fdiv_rn(__fadd_rn(cov_fixed, kC3), __fadd_rn(sigma, kC3));
}

// kTerms: 0 = lcs_terms<true>, 1 = lcs_terms_fast, 2 = lcs_terms_fused. kColumnLoop: each thread
// keeps its column (tid % 32) and steps down the rows by 8, the same pixels in the same order as
// i = tid, tid + 256, ... (256 = 8 x 32), without the per-pixel division, modulo and column test.
template <int M, int kHR, int kVR, int kTerms, bool kColumnLoop = false>
__device__ __forceinline__ void run_body(float (*in)[kInH][kInStride], float (*pass)[kInH][kPassW], float* smem,
                                         const WindowTaps& taps, PartialSum* partials, int tile, Size map, int x0,
                                         int y0, int cols, int rows, int in_rows) {
  run_h<M, kHR>(in, pass, in_rows);
  __syncthreads();
  run_v<M, kVR>(pass);
  double plain[kSumQuantities] = {};
  const int c0 = int(threadIdx.x) % kTileW;
  constexpr int kRowStep = kThreads / kTileW;
  static_assert(kRowStep * kTileW == kThreads, "whole rows per step");
  const int first = kColumnLoop ? (c0 < cols ? int(threadIdx.x) / kTileW : rows) : int(threadIdx.x);
  const int end = kColumnLoop ? rows : rows * kTileW;
  for (int i = first; i < end; i += kColumnLoop ? kRowStep : kThreads) {
    const int y = kColumnLoop ? i : i / kTileW, c = kColumnLoop ? c0 : i % kTileW;
    if (!kColumnLoop && c >= cols) continue;
    const float mu_r = pass[0][y][c], mu_d = pass[1][y][c];
    const float sum_rr = pass[2][y][c], sum_dd = pass[3][y][c], sum_rd = pass[4][y][c];
    double l, cs;
    float s;
    if constexpr (kTerms == 1) lcs_terms_fast(mu_r, mu_d, sum_rr, sum_dd, sum_rd, l, cs, s);
    else if constexpr (kTerms == 2) lcs_terms_fused(mu_r, mu_d, sum_rr, sum_dd, sum_rd, l, cs, s);
    else lcs_terms<true>(mu_r, mu_d, sum_rr, sum_dd, sum_rd, l, cs, s);
    const double sd = widen(s);
    const double ssim = __dmul_rn(__dmul_rn(l, cs), sd);  // (l*c)*s, upstream's ssim_sum term
    plain[0] = __dadd_rn(plain[0], l);
    plain[1] = __dadd_rn(plain[1], cs);
    plain[2] = __dadd_rn(plain[2], sd);
    plain[3] = __dadd_rn(plain[3], ssim);
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
  for (int q = 0; q < kSumQuantities; ++q) red[q][threadIdx.x] = {plain[q], 0.0};
  __syncthreads();
  block_tree<kThreads>(red);
  if (threadIdx.x < kSumQuantities) {
    const DoubleDouble v = red[threadIdx.x][0];
    partials[size_t(tile) * kSumQuantities + threadIdx.x] = {v.hi, v.lo};
  }
}

// Window variants of this section (the first variant number is kRunVariant0):
//   17: horizontal runs of 16, vertical runs of 8 (w16 otherwise: shift widening, f32 sqrt)
//   18: runs of 16 in both passes          19: 18 with branch-free divisions (lcs_terms_fast)
//   20: 19 with IMAD.WIDE widening          21: horizontal runs of 32, vertical 16, fast divisions
//   22 / 23 / 24: 19 with a third / half / two thirds of the widenings by IMAD.WIDE
// (25-32: window_compact_kernel below) and, after those:
//   33: 18 with the column-wise terms loop (run_body's kColumnLoop): the default since session 14
//   34: 33 with the fused numerators (lcs_terms_fused)
//   35 / 36: 33 / 34 with horizontal runs of 32
// (37: window_tall_kernel below). Measured on the H200 (docs, "Session 14: window kernel"): 33 is
// the fastest; IMAD.WIDE, the 4-blocks-per-SM layout, the branch-free divisions, runs of 32 and
// two tiles per block are not faster. They stay behind VQX_SSIM_WIN, bit-checked by
// EverySpeedVariantBitIdenticalRuns, until the design settles.
constexpr int kRunVariant0 = 17, kRunVariants = 8;
constexpr int kRunVariant2 = 33, kRunVariants2 = 4;

// The block's tile (window_kernel's prologue with the row loader): returns whether a sample has
// its sign bit set.
struct TileGeometry {
  int j, tile, x0, y0, cols, rows, in_rows;
  Size map;
};

__device__ __forceinline__ bool load_tile(const JobTable& t, float (*in)[kInH][kInStride], TileGeometry& g) {
  int j = 0;
  while (j + 1 < t.count && int(blockIdx.x) >= t.block_begin[j + 1]) ++j;
  const ScaleJob& job = t.job[j];
  const int tile = int(blockIdx.x) - t.block_begin[j];
  const Size size = job.ref.size;
  const Size map = {size.width - kWindowMargin, size.height - kWindowMargin};  // map_size
  const int x0 = (tile % t.tiles_x[j]) * kTileW, y0 = (tile / t.tiles_x[j]) * kTileH;
  const int cols = min(kTileW, map.width - x0), rows = min(kTileH, map.height - y0);
  const int in_cols = cols + kWindowMargin, in_rows = rows + kWindowMargin;
  g = {j, tile, x0, y0, cols, rows, in_rows, map};
  const float inverse_r = inverse_divisor(job.ref.bit_depth), inverse_d = inverse_divisor(job.dis.bit_depth);
  unsigned negative = 0;
  if (job.ref.type == job.dis.type) {
    const size_t width = size_t(size.width);
    if (job.ref.type == SampleType::kU8)
      negative = load_window_rows<uint8_t>(job.ref.data, job.dis.data, width, x0, y0, in_rows, in_cols, inverse_r,
                                           inverse_d, in);
    else if (job.ref.type == SampleType::kU16)
      negative = load_window_rows<uint16_t>(job.ref.data, job.dis.data, width, x0, y0, in_rows, in_cols, inverse_r,
                                            inverse_d, in);
    else
      negative = load_window_rows<float>(job.ref.data, job.dis.data, width, x0, y0, in_rows, in_cols, inverse_r,
                                         inverse_d, in);
  } else {
    for (int i = int(threadIdx.x); i < in_rows * in_cols; i += kThreads) {
      const int r = i / in_cols, c = i % in_cols;
      const size_t index = size_t(y0 + r) * size_t(size.width) + size_t(x0 + c);
      const float rv = load_sample(job.ref, index, inverse_r), dv = load_sample(job.dis, index, inverse_d);
      in[0][r][c] = rv;
      in[1][r][c] = dv;
      negative |= (__float_as_uint(rv) | __float_as_uint(dv)) >> 31;
    }
  }
  return __syncthreads_or(int(negative)) != 0;
}

template <int kVariant>
__global__ void __launch_bounds__(kThreads, 3) window_run_kernel(const __grid_constant__ JobTable t) {
  extern __shared__ __align__(16) float smem[];
  float(*in)[kInH][kInStride] = reinterpret_cast<float(*)[kInH][kInStride]>(smem);  // [ref, dis]
  float(*pass)[kInH][kPassW] = reinterpret_cast<float(*)[kInH][kPassW]>(smem + kInputFloats);

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
  unsigned negative = 0;
  if (job.ref.type == job.dis.type) {
    const size_t width = size_t(size.width);
    if (job.ref.type == SampleType::kU8)
      negative = load_window_rows<uint8_t>(job.ref.data, job.dis.data, width, x0, y0, in_rows, in_cols, inverse_r,
                                           inverse_d, in);
    else if (job.ref.type == SampleType::kU16)
      negative = load_window_rows<uint16_t>(job.ref.data, job.dis.data, width, x0, y0, in_rows, in_cols, inverse_r,
                                            inverse_d, in);
    else
      negative = load_window_rows<float>(job.ref.data, job.dis.data, width, x0, y0, in_rows, in_cols, inverse_r,
                                         inverse_d, in);
  } else {
    for (int i = int(threadIdx.x); i < in_rows * in_cols; i += kThreads) {
      const int r = i / in_cols, c = i % in_cols;
      const size_t index = size_t(y0 + r) * size_t(size.width) + size_t(x0 + c);
      const float rv = load_sample(job.ref, index, inverse_r), dv = load_sample(job.dis, index, inverse_d);
      in[0][r][c] = rv;
      in[1][r][c] = dv;
      negative |= (__float_as_uint(rv) | __float_as_uint(dv)) >> 31;
    }
  }
  const bool any_negative = __syncthreads_or(int(negative)) != 0;
  PartialSum* partials = t.partials[j];
  if (any_negative)  // window_kernel<16>'s signed path
    window_body<kCvt, kCvt, kShift, kShift, kSigned, true>(in, pass, smem, job.taps, partials, tile, map, x0, y0,
                                                           cols, rows, in_rows);
  else if constexpr (kVariant == 17)
    run_body<kShift, 16, 8, false>(in, pass, smem, job.taps, partials, tile, map, x0, y0, cols, rows, in_rows);
  else if constexpr (kVariant == 18)
    run_body<kShift, 16, 16, false>(in, pass, smem, job.taps, partials, tile, map, x0, y0, cols, rows, in_rows);
  else if constexpr (kVariant == 19)
    run_body<kShift, 16, 16, true>(in, pass, smem, job.taps, partials, tile, map, x0, y0, cols, rows, in_rows);
  else if constexpr (kVariant == 20)
    run_body<kWide, 16, 16, true>(in, pass, smem, job.taps, partials, tile, map, x0, y0, cols, rows, in_rows);
  else if constexpr (kVariant == 21)
    run_body<kShift, 32, 16, true>(in, pass, smem, job.taps, partials, tile, map, x0, y0, cols, rows, in_rows);
  else if constexpr (kVariant == 33)
    run_body<kShift, 16, 16, 0, true>(in, pass, smem, job.taps, partials, tile, map, x0, y0, cols, rows, in_rows);
  else if constexpr (kVariant == 34)
    run_body<kShift, 16, 16, 2, true>(in, pass, smem, job.taps, partials, tile, map, x0, y0, cols, rows, in_rows);
  else if constexpr (kVariant == 35)
    run_body<kShift, 32, 16, 0, true>(in, pass, smem, job.taps, partials, tile, map, x0, y0, cols, rows, in_rows);
  else if constexpr (kVariant == 36)
    run_body<kShift, 32, 16, 2, true>(in, pass, smem, job.taps, partials, tile, map, x0, y0, cols, rows, in_rows);
  else if constexpr (kVariant == 22)
    run_body<kMix13, 16, 16, true>(in, pass, smem, job.taps, partials, tile, map, x0, y0, cols, rows, in_rows);
  else if constexpr (kVariant == 23)
    run_body<kMix12, 16, 16, true>(in, pass, smem, job.taps, partials, tile, map, x0, y0, cols, rows, in_rows);
  else
    run_body<kMix23, 16, 16, true>(in, pass, smem, job.taps, partials, tile, map, x0, y0, cols, rows, in_rows);
}

// ---- Compact window kernel (variants 25+): four blocks per SM --------------------------------
// window_kernel and window_run_kernel take 74,296 bytes of shared memory (and up to 80
// registers): three blocks per SM. This kernel keeps the input tile (2 x 74 x 43 floats) and
// only the horizontal sums of r*r, d*d, r*d (3 x 74 x 33): 54,760 bytes, and at most 64
// registers, so four blocks (32 warps) fit an SM. The horizontal sums of mu_r and mu_d go back
// into the input tile, as a [74][33] plane at the start of the same image's [74][43] samples
// (the stride of the squares, so that the vertical pass has one stride): mu row r covers
// offsets 33r .. 33r + 31 < 43(r + 1), i.e. samples of rows <= r only. The horizontal pass is
// row-local, so once the squared quantities of every row are done (phase 1) and the mu tasks of
// rows <= r have read their samples (phase 2, in sub-rounds of whole rows, in order: read,
// barrier, write), nothing reads those samples again. Signed tiles take the same code with the
// signed widening (run_taps<kSigned>).
constexpr int kSquares = 3;  // r*r, d*d, r*d
constexpr size_t kCompactSmem = (kInputFloats + size_t(kSquares) * kInH * kPassW) * sizeof(float);
static_assert(size_t(kSquares) * kInH * kPassW * sizeof(float) >= sizeof(DoubleDouble) * kSumQuantities * kThreads,
              "the block tree reuses the squares' region");
static_assert(kCompactSmem <= 56 * 1024, "four blocks per SM");

// Quantity q's plane of horizontal (then vertical) sums, [kInH][kPassW]: mu_r, mu_d over the
// input tile, the squares after it.
template <int kH = kInH>
__device__ __forceinline__ float* compact_plane(float* smem, int q) {
  return q < 2 ? smem + size_t(q) * kH * kInStride : smem + 2 * size_t(kH) * kInStride + size_t(q - 2) * kH * kPassW;
}

// kH, kT: the tile's input rows and the block's threads (window_tall_kernel: 138, 512).
template <int M, int R, int kH = kInH, int kT = kThreads>
__device__ __forceinline__ void compact_h(float* smem, float (*in)[kH][kInStride], float (*sq)[kH][kPassW],
                                          int in_rows) {
  constexpr int kRunsPerRow = kTileW / R, kPerQuantity = kH * kRunsPerRow, kS = R + kWindowMargin;
  // Phase 1: r*r, d*d, r*d of every row; a warp's lanes take neighbouring rows.
  for (int t = int(threadIdx.x); t < kSquares * kPerQuantity; t += kT) {
    const int q = t / kPerQuantity, rem = t - q * kPerQuantity, run = rem / kH, r = rem - run * kH;
    if (r >= in_rows) continue;
    const int c0 = run * R;
    float x[kS], out[R];
    if (q == 2) {
      const float* pr = &in[0][r][c0];
      const float* pd = &in[1][r][c0];
#pragma unroll
      for (int i = 0; i < kS; ++i) x[i] = __fmul_rn(pr[i], pd[i]);
    } else {  // r*r or d*d: one plane, each sample loaded once
      const float* p = &in[q][r][c0];
#pragma unroll
      for (int i = 0; i < kS; ++i) x[i] = __fmul_rn(p[i], p[i]);
    }
    run_taps<M, R>(x, out);
#pragma unroll
    for (int o = 0; o < R; ++o) sq[q][r][c0 + o] = out[o];
  }
  // Phase 2: mu_r and mu_d, all tasks of kRows whole rows per sub-round; lanes over rows.
  constexpr int kTasksPerRow = 2 * kRunsPerRow, kRows = kT / kTasksPerRow;
#pragma unroll 1
  for (int r0 = 0; r0 < kH; r0 += kRows) {
    const int n = min(kRows, kH - r0);
    const int r = r0 + int(threadIdx.x) % n, task = int(threadIdx.x) / n;
    const int q = task / kRunsPerRow, c0 = (task % kRunsPerRow) * R;
    const bool active = task < kTasksPerRow && r < in_rows;
    float out[R];
    if (active) {
      const float* p = &in[q][r][c0];
      float x[kS];
#pragma unroll
      for (int i = 0; i < kS; ++i) x[i] = p[i];
      run_taps<M, R>(x, out);
    }
    __syncthreads();  // every task of these rows has read its samples
    if (active) {
      float* mu = compact_plane<kH>(smem, q) + r * kPassW + c0;
#pragma unroll
      for (int o = 0; o < R; ++o) mu[o] = out[o];
    }
  }
  __syncthreads();
}

// Vertical pass of the compact layout (run_v's rounds: two quantities per round for R = 16).
// Quantities kQ0 .. kQ1 - 1 only (the mixed schedule of variant 30: mu_r, mu_d, r*r, d*d by runs
// of 16 in two full rounds, r*d by runs of 8 in a third full round).
// lt: the thread's index within its 256-thread tile, base: the tile's first row in the planes
// (window_tall_kernel: two tiles, rows 0 and 64, each with its 256 threads; every thread of the
// block reaches every barrier).
template <int M, int R, int kQ0 = 0, int kQ1 = kQuantities, int kH = kInH>
__device__ __forceinline__ void compact_v(float* smem, int lt = int(threadIdx.x), int base = 0) {
  constexpr int kS = R + kWindowMargin, kRuns = kTileH / R, kPerQuantity = kRuns * kTileW;
  static_assert(kThreads % kPerQuantity == 0, "whole quantities per round");
  constexpr int kPerRound = kThreads / kPerQuantity;
  const int c = lt % kTileW, y0 = base + ((lt / kTileW) % kRuns) * R;
  const int part = lt / kPerQuantity;
#pragma unroll 1
  for (int q0 = kQ0; q0 < kQ1; q0 += kPerRound) {
    const int q = q0 + part;
    float* p = compact_plane<kH>(smem, q < kQ1 ? q : 0) + y0 * kPassW + c;
    float out[R];
    if (q < kQ1) {
      float x[kS];
#pragma unroll
      for (int s = 0; s < kS; ++s) x[s] = p[s * kPassW];
      run_taps<M, R>(x, out);
    }
    __syncthreads();  // every run of this round has read its quantity's rows
    if (q < kQ1) {
#pragma unroll
      for (int o = 0; o < R; ++o) p[o * kPassW] = out[o];
    }
  }
  __syncthreads();
}

template <int M, int kHR, int kVR, bool kFastDiv>
__device__ __forceinline__ void compact_body(float (*in)[kInH][kInStride], float (*sq)[kInH][kPassW], float* smem,
                                             const WindowTaps& taps, PartialSum* partials, const TileGeometry& g) {
  compact_h<M, kHR>(smem, in, sq, g.in_rows);
  if constexpr (kVR == 0) {  // runs of 16 for four quantities, of 8 for the fifth: three full rounds
    compact_v<M, 16, 0, 4>(smem);
    compact_v<M, 8, 4, 5>(smem);
  } else {
    compact_v<M, kVR>(smem);
  }
  auto mu_r_plane = reinterpret_cast<const float(*)[kPassW]>(compact_plane(smem, 0));
  auto mu_d_plane = reinterpret_cast<const float(*)[kPassW]>(compact_plane(smem, 1));
  double plain[kSumQuantities] = {};
  for (int i = int(threadIdx.x); i < g.rows * kTileW; i += kThreads) {
    const int y = i / kTileW, c = i % kTileW;
    if (c >= g.cols) continue;
    const float mu_r = mu_r_plane[y][c], mu_d = mu_d_plane[y][c];
    const float sum_rr = sq[0][y][c], sum_dd = sq[1][y][c], sum_rd = sq[2][y][c];
    double l, cs;
    float s;
    if constexpr (kFastDiv) lcs_terms_fast(mu_r, mu_d, sum_rr, sum_dd, sum_rd, l, cs, s);
    else lcs_terms<true>(mu_r, mu_d, sum_rr, sum_dd, sum_rd, l, cs, s);
    const double sd = widen(s);
    const double ssim = __dmul_rn(__dmul_rn(l, cs), sd);  // (l*c)*s, upstream's ssim_sum term
    plain[0] = __dadd_rn(plain[0], l);
    plain[1] = __dadd_rn(plain[1], cs);
    plain[2] = __dadd_rn(plain[2], sd);
    plain[3] = __dadd_rn(plain[3], ssim);
    if (taps.mu_r) {
      const size_t o = size_t(g.y0 + y) * size_t(g.map.width) + size_t(g.x0 + c);
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
  __syncthreads();  // the squares' region becomes the tree's scratch
  auto red = reinterpret_cast<DoubleDouble(*)[kThreads]>(smem + kInputFloats);
#pragma unroll
  for (int q = 0; q < kSumQuantities; ++q) red[q][threadIdx.x] = {plain[q], 0.0};
  __syncthreads();
  block_tree<kThreads>(red);
  if (threadIdx.x < kSumQuantities) {
    const DoubleDouble v = red[threadIdx.x][0];
    partials[size_t(g.tile) * kSumQuantities + threadIdx.x] = {v.hi, v.lo};
  }
}

// Compact variants: 25: runs of 16 in both passes, shift widening, fast divisions (as 19);
// 26: the same with runs of 8 (fewer registers); 27: 25 with a third of the widenings by
// IMAD.WIDE (as 22); 28: 25 with vertical runs of 8 (five full rounds); 29: 25 with half the
// widenings by IMAD.WIDE (as 23); 30: 25 with the vertical runs 16, 16, 16, 16, 8 (three full
// rounds); 31 / 32: 25 with all / two thirds of the widenings by IMAD.WIDE.
constexpr int kCompactVariant0 = kRunVariant0 + kRunVariants, kCompactVariants = 8;

template <int kVariant>
__global__ void __launch_bounds__(kThreads, 4) window_compact_kernel(const __grid_constant__ JobTable t) {
  extern __shared__ __align__(16) float smem[];
  float(*in)[kInH][kInStride] = reinterpret_cast<float(*)[kInH][kInStride]>(smem);  // [ref, dis]
  float(*sq)[kInH][kPassW] = reinterpret_cast<float(*)[kInH][kPassW]>(smem + kInputFloats);
  TileGeometry g;
  const bool any_negative = load_tile(t, in, g);
  const WindowTaps& taps = t.job[g.j].taps;
  PartialSum* partials = t.partials[g.j];
  constexpr int kR = kVariant == 26 ? 8 : 16;
  constexpr int kVR = kVariant == 26 || kVariant == 28 ? 8 : kVariant == 30 ? 0 : 16;
  constexpr int kM = kVariant == 27   ? kMix13
                    : kVariant == 29 ? kMix12
                    : kVariant == 31 ? kWide
                    : kVariant == 32 ? kMix23
                                     : kShift;
  if (any_negative) compact_body<kSigned, kR, kVR, true>(in, sq, smem, taps, partials, g);
  else compact_body<kM, kR, kVR, true>(in, sq, smem, taps, partials, g);
}

// ---- Tall window kernel (variant 37): two vertically adjacent tiles per block ----------------
// A block of 512 threads takes the map tiles (tx, 2k) and (tx, 2k + 1) of a scale: one input tile
// of 138 rows instead of two of 74, so the horizontal pass computes 138 rows instead of 148 (the
// 10 rows of vertical margin once per 128 map rows instead of per 64) and the loads and the
// block's set-up are shared. Compact layout (window_compact_kernel: mu sums over the input tile),
// 102,120 bytes of shared memory and at most 64 registers: two blocks (32 warps) per SM. Each
// half of the block then does exactly window_run_kernel<33>'s work for its tile: the vertical
// pass by runs of 16, the column-wise terms loop (the same pixels in the same order per thread),
// its own 256-thread block tree, one partial per tile at the tile's index. So the partials, the
// sums and the tree shape are those of the 64-row tiling; only the block-to-tile mapping
// changes (enqueue_windows launches tiles_x x ceil(tiles_y / 2) blocks per scale).
constexpr int kTallTiles = 2, kTallThreads = kThreads * kTallTiles, kTallWarps = kTallThreads / 32;
constexpr int kTallInH = kTallTiles * kTileH + kWindowMargin;
constexpr size_t kTallInputFloats = 2 * size_t(kTallInH) * kInStride;
constexpr size_t kTallSmem = (kTallInputFloats + size_t(kSquares) * kTallInH * kPassW) * sizeof(float);
static_assert(kTallInputFloats * sizeof(float) % 16 == 0, "the squares' region must stay aligned for doubles");
static_assert(size_t(kSquares) * kTallInH * kPassW * sizeof(float) >=
                  kTallTiles * sizeof(DoubleDouble) * kSumQuantities * kThreads,
              "the two block trees reuse the squares' region");
static_assert(2 * (kTallSmem + 1024) <= 228 * 1024, "two blocks per SM");
constexpr int kTallVariant = kRunVariant2 + kRunVariants2;

template <int M>
__device__ __forceinline__ void tall_body(float (*in)[kTallInH][kInStride], float (*sq)[kTallInH][kPassW], float* smem,
                                          const WindowTaps& taps, PartialSum* partials, int tiles_x, int tx, int ty0,
                                          int x0, int y0, int cols, int rows, int in_rows, Size map) {
  const int half = int(threadIdx.x) / kThreads, lt = int(threadIdx.x) % kThreads;
  compact_h<M, 16, kTallInH, kTallThreads>(smem, in, sq, in_rows);
  compact_v<M, 16, 0, kQuantities, kTallInH>(smem, lt, half * kTileH);
  auto mu_r_plane = reinterpret_cast<const float(*)[kPassW]>(compact_plane<kTallInH>(smem, 0));
  auto mu_d_plane = reinterpret_cast<const float(*)[kPassW]>(compact_plane<kTallInH>(smem, 1));
  const int tile_rows = min(kTileH, rows - half * kTileH);  // <= 0: this half has no tile
  double plain[kSumQuantities] = {};
  const int c = lt % kTileW;
  if (c < cols)
    for (int y = lt / kTileW; y < tile_rows; y += kThreads / kTileW) {
      const int yy = half * kTileH + y;
      const float mu_r = mu_r_plane[yy][c], mu_d = mu_d_plane[yy][c];
      const float sum_rr = sq[0][yy][c], sum_dd = sq[1][yy][c], sum_rd = sq[2][yy][c];
      double l, cs;
      float s;
      lcs_terms<true>(mu_r, mu_d, sum_rr, sum_dd, sum_rd, l, cs, s);
      const double sd = widen(s);
      const double ssim = __dmul_rn(__dmul_rn(l, cs), sd);  // (l*c)*s, upstream's ssim_sum term
      plain[0] = __dadd_rn(plain[0], l);
      plain[1] = __dadd_rn(plain[1], cs);
      plain[2] = __dadd_rn(plain[2], sd);
      plain[3] = __dadd_rn(plain[3], ssim);
      if (taps.mu_r) {
        const size_t o = size_t(y0 + yy) * size_t(map.width) + size_t(x0 + c);
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
  __syncthreads();  // the squares' region becomes the trees' scratch
  auto red = reinterpret_cast<DoubleDouble(*)[kSumQuantities][kThreads]>(smem + kTallInputFloats)[half];
#pragma unroll
  for (int q = 0; q < kSumQuantities; ++q) red[q][lt] = {plain[q], 0.0};
  __syncthreads();
  // block_tree<kThreads> per half (the same fixed tree as the 256-thread kernels).
#pragma unroll
  for (int stride = kThreads / 2; stride > 0; stride >>= 1) {
    if (lt < stride)
#pragma unroll
      for (int q = 0; q < kSumQuantities; ++q) red[q][lt] = dd_sum(red[q][lt], red[q][lt + stride]);
    __syncthreads();
  }
  if (lt < kSumQuantities && tile_rows > 0) {
    const DoubleDouble v = red[lt][0];
    partials[(size_t(ty0 + half) * size_t(tiles_x) + size_t(tx)) * kSumQuantities + lt] = {v.hi, v.lo};
  }
}

template <int kVariant>
__global__ void __launch_bounds__(kTallThreads, 2) window_tall_kernel(const __grid_constant__ JobTable t) {
  extern __shared__ __align__(16) float smem[];
  auto in = reinterpret_cast<float(*)[kTallInH][kInStride]>(smem);  // [ref, dis]
  auto sq = reinterpret_cast<float(*)[kTallInH][kPassW]>(smem + kTallInputFloats);
  int j = 0;
  while (j + 1 < t.count && int(blockIdx.x) >= t.block_begin[j + 1]) ++j;
  const ScaleJob& job = t.job[j];
  const int b = int(blockIdx.x) - t.block_begin[j];
  const Size size = job.ref.size;
  const Size map = {size.width - kWindowMargin, size.height - kWindowMargin};  // map_size
  const int tx = b % t.tiles_x[j], ty0 = (b / t.tiles_x[j]) * kTallTiles;
  const int x0 = tx * kTileW, y0 = ty0 * kTileH;
  const int cols = min(kTileW, map.width - x0), rows = min(kTallTiles * kTileH, map.height - y0);
  const int in_cols = cols + kWindowMargin, in_rows = rows + kWindowMargin;
  const float inverse_r = inverse_divisor(job.ref.bit_depth), inverse_d = inverse_divisor(job.dis.bit_depth);
  unsigned negative = 0;
  if (job.ref.type == job.dis.type) {
    const size_t width = size_t(size.width);
    if (job.ref.type == SampleType::kU8)
      negative = load_window_rows<uint8_t, kTallInH, kTallWarps>(job.ref.data, job.dis.data, width, x0, y0, in_rows,
                                                                 in_cols, inverse_r, inverse_d, in);
    else if (job.ref.type == SampleType::kU16)
      negative = load_window_rows<uint16_t, kTallInH, kTallWarps>(job.ref.data, job.dis.data, width, x0, y0, in_rows,
                                                                  in_cols, inverse_r, inverse_d, in);
    else
      negative = load_window_rows<float, kTallInH, kTallWarps>(job.ref.data, job.dis.data, width, x0, y0, in_rows,
                                                               in_cols, inverse_r, inverse_d, in);
  } else {
    for (int i = int(threadIdx.x); i < in_rows * in_cols; i += kTallThreads) {
      const int r = i / in_cols, c = i % in_cols;
      const size_t index = size_t(y0 + r) * size_t(size.width) + size_t(x0 + c);
      const float rv = load_sample(job.ref, index, inverse_r), dv = load_sample(job.dis, index, inverse_d);
      in[0][r][c] = rv;
      in[1][r][c] = dv;
      negative |= (__float_as_uint(rv) | __float_as_uint(dv)) >> 31;
    }
  }
  const bool any_negative = __syncthreads_or(int(negative)) != 0;
  if (any_negative)
    tall_body<kSigned>(in, sq, smem, job.taps, t.partials[j], t.tiles_x[j], tx, ty0, x0, y0, cols, rows, in_rows, map);
  else
    tall_body<kShift>(in, sq, smem, job.taps, t.partials[j], t.tiles_x[j], tx, ty0, x0, y0, cols, rows, in_rows, map);
}

// ---- Session 15: strips of tiles, streaming runs (window variants 38+) -----------------------
// window_strip_kernel<kHR, kVR>: a block walks a vertical strip of g_window_strip tiles of one
// scale, top to bottom, and does for each tile exactly window_run_kernel<33>'s work (the same
// horizontal sums, vertical sums, terms, per-thread sums in the same order and the same block
// tree), so the partials are those of window 33 bit for bit, at the same indices.
//
// What a strip saves: the horizontal pass of a tile covers its 74 input rows, the last 10 of which
// are the first 10 of the tile below. The vertical pass writes rows 0..63 only (run_v, stream_v)
// and the block tree's scratch (strip_tree) lies in rows 0..63 of pass[0] and pass[1], so after a
// sign-free tile its pass rows 64..73 still hold exact horizontal sums of input rows 64..73: the
// next tile copies them (and the 10 input rows, for the generic path and the sign test) to rows
// 0..9, loads only its 64 new input rows and runs the horizontal pass over rows 10..73 (13.5 %
// less work). A horizontal sum is a function of its input row alone, whatever the kernel that
// formed it, so the copied rows equal the ones the tile would compute. The sign test of a tile
// covers the copied input rows as well; a tile with a sample whose sign bit is set takes
// window_kernel<16>'s signed path (window_body, full recomputation; its tree overwrites the pass
// rows, so the tile after it loads all of its rows).
//
// kHR = 32 / kVR = 32, 64: longer runs (6.9 / 6.5 products per output against 7.9 for 16) by
// run_stream, which keeps at most 11 accumulators and 6 widened products live (each sample read
// when first needed, each output stored as soon as complete), so the registers do not grow with R
// as session 14's runs of 32 did (variant 35: spills).
//
// Session 16, variants 44-46: variant 38's shape with the kParity widening (half of the products
// by the conversion instruction) in both passes (44), the horizontal pass only (45) or the
// vertical pass only (46), and the lean terms (cs_terms) for ScaleJob::cs_only scales.
constexpr int kStripVariant0 = kTallVariant + 1, kStripVariants = 9;

template <int R, typename Load, typename Store>
__device__ __forceinline__ void run_stream(const Load& load, const Store& store) {
  double acc[R];
#pragma unroll
  for (int s = 0; s < R + kWindowMargin; ++s) {
    const float x = load(s);
    double w[kWindowTaps / 2 + 1];
#pragma unroll
    for (int m = 0; m <= kWindowTaps / 2; ++m)
      if (run_needs<R>(s, m)) w[m] = widen_scaled_nonneg(__fmul_rn(x, c_gaussian[m]));
#pragma unroll
    for (int o = 0; o < R; ++o) {
      const int k = s - o;
      // Taps k = 0..10 of output o in order; the first assigned (sign-free terms: +0 + t == t).
      if (k == 0) acc[o] = w[0];
      else if (k > 0 && k < kWindowTaps) acc[o] = __dadd_rn(acc[o], w[k < kWindowTaps - 1 - k ? k : kWindowTaps - 1 - k]);
      if (k == kWindowTaps - 1) store(o, unscale_to_f32(acc[o]));
    }
  }
}

// One horizontal task: the run of R sums of quantity q starting at column run * R of row r, with
// run_h's arithmetic (run_taps<M, R>; the quantity's samples as window_h_one forms them).
template <int M, int R>
__device__ __forceinline__ void h_task(float (*in)[kInH][kInStride], float (*pass)[kInH][kPassW], int q, int run,
                                       int r) {
  constexpr int kS = R + kWindowMargin;
  const int c0 = run * R;
  const float* pr = &in[0][r][c0];
  const float* pd = &in[1][r][c0];
  float x[kS], o16[R];
  if (q == 0) {
#pragma unroll
    for (int i = 0; i < kS; ++i) x[i] = pr[i];
  } else if (q == 1) {
#pragma unroll
    for (int i = 0; i < kS; ++i) x[i] = pd[i];
  } else if (q == 4) {
#pragma unroll
    for (int i = 0; i < kS; ++i) x[i] = __fmul_rn(pr[i], pd[i]);
  } else {
    const float* p = q == 2 ? pr : pd;
#pragma unroll
    for (int i = 0; i < kS; ++i) x[i] = __fmul_rn(p[i], p[i]);
  }
  run_taps<M, R>(x, o16);
  float* out = &pass[q][r][c0];
#pragma unroll
  for (int o = 0; o < R; ++o) out[o] = o16[o];
}

// Horizontal pass over input rows r0..in_rows-1 (r0 = 0, or kWindowMargin after a copy): tasks
// (quantity, run, row), a warp's lanes on neighbouring rows as run_h. !kStream: run_h's arithmetic
// (run_taps<kShift, R>); kStream: run_stream (R = 32: one run per row).
template <int R, bool kStream, int M = kShift>
__device__ __forceinline__ void strip_h(float (*in)[kInH][kInStride], float (*pass)[kInH][kPassW], int r0,
                                        int in_rows) {
  constexpr int kRunsPerRow = kTileW / R;
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
    const int c0 = run * R;
    const float* pr = &in[0][r][c0];
    const float* pd = &in[1][r][c0];
    float* out = &pass[q][r][c0];
    if constexpr (!kStream) {
      h_task<M, R>(in, pass, q, run, r);
    } else {
      // The quantity's sample as window_h_one forms it: r, d, r*r, d*d, r*d in f32.
      const float* pa = q == 1 || q == 3 ? pd : pr;
      const float* pb = q == 2 ? pr : pd;
      const bool square = q >= 2;
      run_stream<R>([&](int s) { return square ? __fmul_rn(pa[s], pb[s]) : pa[s]; },
                    [&](int o, float v) { out[o] = v; });
    }
  }
}

// Vertical pass by streaming runs of R rows (32 or 64), results in place: tasks (quantity, run,
// column), lanes over columns, rounds of kThreads tasks holding whole quantities. A run writes
// output o as soon as it is complete (its own later reads are below it); only the first 10
// outputs of a run below another one (rows the run above still reads) wait for the round's
// barrier. Writes rows 0..63 only.
template <int R>
__device__ __forceinline__ void stream_v(float (*pass)[kInH][kPassW]) {
  constexpr int kRuns = kTileH / R, kPerQuantity = kRuns * kTileW, kTasks = kQuantities * kPerQuantity;
  static_assert(kThreads % kPerQuantity == 0, "whole quantities per round");
#pragma unroll 1
  for (int t0 = 0; t0 < kTasks; t0 += kThreads) {
    const int t = t0 + int(threadIdx.x);
    const bool active = t < kTasks;
    const int q = t / kPerQuantity, rem = t - q * kPerQuantity, run = rem / kTileW, c = rem - run * kTileW;
    float* col = &pass[active ? q : 0][run * R][c];
    float held[kWindowMargin];
    if (active)
      run_stream<R>([&](int s) { return col[s * kPassW]; },
                    [&](int o, float v) {
                      if (kRuns > 1 && o < kWindowMargin && run > 0) held[o] = v;
                      else col[o * kPassW] = v;
                    });
    if constexpr (kRuns > 1) {
      __syncthreads();  // the run above has read rows run * R .. run * R + 9
      if (active && run > 0)
#pragma unroll
        for (int o = 0; o < kWindowMargin; ++o) col[o * kPassW] = held[o];
    }
  }
  __syncthreads();
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

__device__ __forceinline__ void strip_tree(float (*pass)[kInH][kPassW], const double (&plain)[kSumQuantities],
                                           PartialSum* partials, int tile) {
  static_assert(2 * sizeof(DoubleDouble) * kThreads <= sizeof(float) * kTileH * kPassW, "two trees in 64 rows");
  static_assert(kThreads == 256, "the warp tree unrolls block_tree<256>");
  __syncthreads();  // the terms loop has read the pass region
#pragma unroll
  for (int q = 0; q < kSumQuantities; ++q) strip_red(pass, q)[threadIdx.x] = {plain[q], 0.0};
  __syncthreads();
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  if (warp < kSumQuantities) {
    const DoubleDouble* r = strip_red(pass, warp);
    const DoubleDouble a0 = dd_sum(r[lane], r[lane + 128]), a1 = dd_sum(r[lane + 32], r[lane + 160]);
    const DoubleDouble a2 = dd_sum(r[lane + 64], r[lane + 192]), a3 = dd_sum(r[lane + 96], r[lane + 224]);
    DoubleDouble v = dd_sum(dd_sum(a0, a2), dd_sum(a1, a3));
#pragma unroll
    for (int stride = 16; stride > 0; stride >>= 1) {
      const DoubleDouble o = {__shfl_down_sync(0xffffffffu, v.hi, stride), __shfl_down_sync(0xffffffffu, v.lo, stride)};
      v = dd_sum(v, o);
    }
    if (lane == 0) partials[size_t(tile) * kSumQuantities + warp] = {v.hi, v.lo};
  }
  __syncthreads();  // the trees have read their entries before the next tile writes rows 0..9
}

// lcs_terms<true>'s c and s alone (ScaleJob::cs_only): the same operations on the same operands.
__device__ __forceinline__ void cs_terms(float mu_r, float mu_d, float sum_rr, float sum_dd, float sum_rd, double& c,
                                         float& s) {
  float var_r = __fsub_rn(sum_rr, __fmul_rn(mu_r, mu_r));
  float var_d = __fsub_rn(sum_dd, __fmul_rn(mu_d, mu_d));
  var_r = 0.0f > var_r ? 0.0f : var_r;
  var_d = 0.0f > var_d ? 0.0f : var_d;
  const float cov = __fsub_rn(sum_rd, __fmul_rn(mu_r, mu_d));
  const float sigma = sqrt_rn_flat_fast(__fmul_rn(var_r, var_d));
  c = __ddiv_rn(__dadd_rn(__dmul_rn(2.0, widen(sigma)), widen(kC2)), widen(__fadd_rn(__fadd_rn(var_r, var_d), kC2)));
  const float cov_fixed = (cov < 0.0f && sigma <= 0.0f) ? 0.0f : cov;  // zli-nflx flat fix
  s = __fdiv_rn(__fadd_rn(cov_fixed, kC3), __fadd_rn(sigma, kC3));
}

// run_body<kShift, 16, 16, 0, true>'s statistics, terms and per-thread sums (the column-wise
// loop), then strip_tree. kCsOnly (ScaleJob::cs_only, no taps): the c and s sums alone, the l and
// ssim partials left at 0.
template <bool kCsOnly = false>
__device__ __forceinline__ void strip_terms(float (*pass)[kInH][kPassW], const WindowTaps& taps, PartialSum* partials,
                                            int tile, Size map, int x0, int y0, int cols, int rows) {
  double plain[kSumQuantities] = {};
  const int c = int(threadIdx.x) % kTileW;
  constexpr int kRowStep = kThreads / kTileW;
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
    double l, cs;
    float s;
    lcs_terms<true>(mu_r, mu_d, sum_rr, sum_dd, sum_rd, l, cs, s);
    const double sd = widen(s);
    const double ssim = __dmul_rn(__dmul_rn(l, cs), sd);  // (l*c)*s, upstream's ssim_sum term
    plain[0] = __dadd_rn(plain[0], l);
    plain[1] = __dadd_rn(plain[1], cs);
    plain[2] = __dadd_rn(plain[2], sd);
    plain[3] = __dadd_rn(plain[3], ssim);
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
  strip_tree(pass, plain, partials, tile);
}

// Input rows r0..in_rows-1 of a tile (load_tile's loaders); whether one has its sign bit set.
__device__ __forceinline__ unsigned load_strip_rows(const ScaleJob& job, float (*in)[kInH][kInStride], int x0, int y0,
                                                    int r0, int in_rows, int in_cols) {
  const Size size = job.ref.size;
  const float inverse_r = inverse_divisor(job.ref.bit_depth), inverse_d = inverse_divisor(job.dis.bit_depth);
  // in rows from r0: the same [2][kInH][kInStride] layout shifted by r0 rows.
  auto at = reinterpret_cast<float(*)[kInH][kInStride]>(&in[0][r0][0]);
  const int y = y0 + r0, n = in_rows - r0;
  if (job.ref.type == job.dis.type) {
    const size_t width = size_t(size.width);
    if (job.ref.type == SampleType::kU8)
      return load_window_rows<uint8_t>(job.ref.data, job.dis.data, width, x0, y, n, in_cols, inverse_r, inverse_d, at);
    if (job.ref.type == SampleType::kU16)
      return load_window_rows<uint16_t>(job.ref.data, job.dis.data, width, x0, y, n, in_cols, inverse_r, inverse_d,
                                        at);
    return load_window_rows<float>(job.ref.data, job.dis.data, width, x0, y, n, in_cols, inverse_r, inverse_d, at);
  }
  unsigned negative = 0;
  for (int i = int(threadIdx.x); i < n * in_cols; i += kThreads) {
    const int r = i / in_cols, c = i % in_cols;
    const size_t index = size_t(y + r) * size_t(size.width) + size_t(x0 + c);
    const float rv = load_sample(job.ref, index, inverse_r), dv = load_sample(job.dis, index, inverse_d);
    at[0][r][c] = rv;
    at[1][r][c] = dv;
    negative |= (__float_as_uint(rv) | __float_as_uint(dv)) >> 31;
  }
  return negative;
}

struct StripTable {
  JobTable jobs;
  int strip;  // tiles per strip (>= 1)
};

template <int kVariant>
__global__ void __launch_bounds__(kThreads, 3) window_strip_kernel(const __grid_constant__ StripTable st) {
  // 38: horizontal runs of 16 (run_taps), vertical 16 (run_v): window 33's arithmetic. 39 / 40 / 41:
  // horizontal streaming runs of 32, vertical run_v 16 / streaming 32 / streaming 64. 42 / 43:
  // horizontal streaming runs of 16, vertical run_v 16 / streaming 16.
  // 44 / 45 / 46: 38 with the kParity widening in both passes / the horizontal / the vertical one,
  // and the lean terms for cs_only scales.
  constexpr int kV = kVariant - kStripVariant0;
  constexpr bool kS16 = kV >= 6;
  constexpr int kHR = kV == 0 || kV >= 4 ? 16 : 32;
  constexpr bool kHStream = kV != 0 && !kS16;
  constexpr int kVR = kV == 2 ? 32 : kV == 3 ? 64 : 16;
  constexpr bool kVStream = kV == 2 || kV == 3 || kV == 5;
  constexpr int kHM = kV == 6 || kV == 7 ? kParity : kShift, kVM = kV == 6 || kV == 8 ? kParity : kShift;
  extern __shared__ __align__(16) float smem[];
  float(*in)[kInH][kInStride] = reinterpret_cast<float(*)[kInH][kInStride]>(smem);  // [ref, dis]
  float(*pass)[kInH][kPassW] = reinterpret_cast<float(*)[kInH][kPassW]>(smem + kInputFloats);
  const JobTable& t = st.jobs;
  int j = 0;
  while (j + 1 < t.count && int(blockIdx.x) >= t.block_begin[j + 1]) ++j;
  const ScaleJob& job = t.job[j];
  const int b = int(blockIdx.x) - t.block_begin[j];
  const Size map = {job.ref.size.width - kWindowMargin, job.ref.size.height - kWindowMargin};  // map_size
  const int tiles_x = t.tiles_x[j], tiles_y = (map.height + kTileH - 1) / kTileH;
  const int tx = b % tiles_x, ty0 = (b / tiles_x) * st.strip;
  const int ty1 = min(ty0 + st.strip, tiles_y);
  const int x0 = tx * kTileW, cols = min(kTileW, map.width - x0), in_cols = cols + kWindowMargin;
  PartialSum* partials = t.partials[j];
  bool have_prev = false;  // pass and input rows 64..73 hold the previous tile's (sign-free) rows
#pragma unroll 1
  for (int ty = ty0; ty < ty1; ++ty) {
    const int tile = ty * tiles_x + tx, y0 = ty * kTileH;
    const int rows = min(kTileH, map.height - y0), in_rows = rows + kWindowMargin;
    unsigned negative = 0;
    int r0 = 0;
    if (have_prev) {
      // Rows 64..73 of the tile above are rows 0..9 of this one (the previous tile ended with a
      // barrier, strip_tree).
      for (int i = int(threadIdx.x); i < kWindowMargin * kInW; i += kThreads) {
        const int r = i / kInW, c = i - r * kInW;
        if (c >= in_cols) continue;
        const float a = in[0][kTileH + r][c], d = in[1][kTileH + r][c];
        in[0][r][c] = a;
        in[1][r][c] = d;
        negative |= (__float_as_uint(a) | __float_as_uint(d)) >> 31;
      }
      for (int i = int(threadIdx.x); i < kQuantities * kWindowMargin * kTileW; i += kThreads) {
        const int q = i / (kWindowMargin * kTileW), rem = i - q * (kWindowMargin * kTileW);
        const int r = rem / kTileW, c = rem - r * kTileW;
        pass[q][r][c] = pass[q][kTileH + r][c];
      }
      __syncthreads();  // input rows 64..73 copied before the loads overwrite them
      r0 = kWindowMargin;
    }
    negative |= load_strip_rows(job, in, x0, y0, r0, in_rows, in_cols);
    const bool any_negative = __syncthreads_or(int(negative)) != 0;
    if (any_negative) {  // window_kernel<16>'s signed path; its tree overwrites the pass rows
      window_body<kCvt, kCvt, kShift, kShift, kSigned, true>(in, pass, smem, job.taps, partials, tile, map, x0, y0,
                                                             cols, rows, in_rows);
      __syncthreads();  // partials read from the tree before the next tile's loads and copies
      have_prev = false;
      continue;
    }
    strip_h<kHR, kHStream, kHM>(in, pass, r0, in_rows);
    __syncthreads();
    if constexpr (kVStream) stream_v<kVR>(pass);
    else run_v<kVM, kVR>(pass);
    if (kS16 && job.cs_only && !job.taps.mu_r) strip_terms<kS16>(pass, job.taps, partials, tile, map, x0, y0, cols, rows);
    else strip_terms(pass, job.taps, partials, tile, map, x0, y0, cols, rows);
    have_prev = rows == kTileH;
  }
}

// Device check of div_rn against __ddiv_rn: operands of both divisions' shapes (l: an f64
// numerator 2 mu_r mu_d + C1 over an f32 denominator; c: 2 sigma + C2 over an f32), random f64
// pairs over the whole exponent range, and special values; the count of differing quotients.
__device__ __forceinline__ uint32_t mix32(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return uint32_t(x);
}

__global__ void division_check_kernel(uint64_t count, uint32_t seed, unsigned long long* mismatches) {
  // Special operands: zeros, denormals, the ends of the range, infinities, NaN, and the
  // constants and magnitudes the terms meet.
  const double specials[] = {0.0, -0.0, 1.0, -1.0, 0x1p-1074, 0x1p-1022, 0x1.fffffffffffffp-1023, 0x1p-967,
                             0x1p-1000, 0x1p900, 0x1p1023, 0x1.fffffffffffffp1023, __longlong_as_double(0x7ff0000000000000ll),
                             __longlong_as_double(0x7ff8000000000000ll), double(kC1), double(kC2), 6.5025, 58.5225,
                             65025.0, 1e-300, 1e300, 0x1p-149, 0x1p-126};
  constexpr int kSpecials = sizeof(specials) / sizeof(specials[0]);
  unsigned long long bad = 0;
  auto test = [&](double a, double b) {
    const double q = div_rn(a, b), e = __ddiv_rn(a, b);
    const bool both_nan = q != q && e != e;
    bad += !both_nan && __double_as_longlong(q) != __double_as_longlong(e);
  };
  auto test32 = [&](double a, float b) {  // div_rn_f32_den
    const double q = div_rn_f32_den(a, b), e = __ddiv_rn(a, double(b));
    const bool both_nan = q != q && e != e;
    bad += !both_nan && __double_as_longlong(q) != __double_as_longlong(e);
  };
  const float specials32[] = {0.0f, -0.0f, 1.0f, 0x1p-149f, 0x1p-126f, 0x1.fffffep127f, kC1, kC2, 65025.0f,
                              __int_as_float(0x7f800000), __int_as_float(0xff800000), __int_as_float(0x7fc00000),
                              -kC1, 0x1p-100f};
  constexpr int kSpecials32 = sizeof(specials32) / sizeof(specials32[0]);
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < count; i += uint64_t(gridDim.x) * blockDim.x) {
    const uint64_t key = (uint64_t(seed) << 40) ^ (i * 8);
    // l's shape: means on the 8-bit scale (any sign), numerator in f64, denominator f32.
    const float mr = __uint_as_float(0x43800000u) * (float(mix32(key)) * 0x1p-32f) - 8.0f;
    const float md = __uint_as_float(0x43800000u) * (float(mix32(key + 1)) * 0x1p-32f) - 8.0f;
    const double ln = __dadd_rn(__dmul_rn(__dmul_rn(2.0, double(mr)), double(md)), double(kC1));
    const float ld = __fadd_rn(__fadd_rn(__fmul_rn(mr, mr), __fmul_rn(md, md)), kC1);
    test(ln, double(ld));
    test32(ln, ld);
    // The fused numerators of lcs_terms_fast against the separate operations.
    bad += __double_as_longlong(ln) != __double_as_longlong(__fma_rn(__dmul_rn(2.0, double(mr)), double(md), double(kC1)));
    // c's shape: sigma and variances up to ~2^16 (and tiny ones).
    const float sh = float(mix32(key + 2) & 31u);
    const float va = (float(mix32(key + 3)) * 0x1p-32f) * exp2f(sh - 15.0f);
    const float vb = (float(mix32(key + 4)) * 0x1p-32f) * exp2f(sh - 15.0f);
    const float sigma = __fsqrt_rn(__fmul_rn(va, vb));
    const double cn = __dadd_rn(__dmul_rn(2.0, double(sigma)), double(kC2));
    const float cd = __fadd_rn(__fadd_rn(va, vb), kC2);
    test(cn, double(cd));
    test32(cn, cd);
    bad += __double_as_longlong(cn) != __double_as_longlong(__fma_rn(2.0, double(sigma), double(kC2)));
    // Any f32 means (random bit patterns): the fused numerator against the separate operations.
    const float fr = __uint_as_float(mix32(key + 12)), fd = __uint_as_float(mix32(key + 13));
    const double sep = __dadd_rn(__dmul_rn(__dmul_rn(2.0, double(fr)), double(fd)), double(kC1));
    const double fused = __fma_rn(__dmul_rn(2.0, double(fr)), double(fd), double(kC1));
    bad += sep == sep && __double_as_longlong(sep) != __double_as_longlong(fused);
    const double sep2 = __dadd_rn(__dmul_rn(2.0, double(fabsf(fr))), double(kC2));
    bad += sep2 == sep2 && __double_as_longlong(sep2) != __double_as_longlong(__fma_rn(2.0, double(fabsf(fr)), double(kC2)));
    // Random f64 bit patterns (every exponent, both signs), and an f32 denominator.
    const double ra = __longlong_as_double(static_cast<long long>((uint64_t(mix32(key + 5)) << 32) | mix32(key + 6)));
    const double rb = __longlong_as_double(static_cast<long long>((uint64_t(mix32(key + 7)) << 32) | mix32(key + 8)));
    test(ra, rb);
    test(ra, double(__uint_as_float(mix32(key + 9))));
    test32(ra, __uint_as_float(mix32(key + 9)));
    test32(ra, specials32[mix32(key + 14) % kSpecials32]);
    test32(specials[mix32(key + 15) % kSpecials], specials32[mix32(key + 16) % kSpecials32]);
    test32(specials[mix32(key + 15) % kSpecials], __uint_as_float(mix32(key + 9)));
    // Specials against specials and random operands.
    const int sa = int(mix32(key + 10) % kSpecials), sb = int(mix32(key + 11) % kSpecials);
    test(specials[sa], specials[sb]);
    test(specials[sa], rb);
    test(ra, specials[sb]);
  }
  if (bad) atomicAdd(mismatches, bad);  // integer atomics: the count does not depend on the order
}

// ---- Per-scale sums ---------------------------------------------------------------------------

constexpr int kReduceThreads = 256, kReduceThreadsWide = 1024;

struct ReduceTable {
  const PartialSum* partials[kMaxJobs];
  int count[kMaxJobs];
};

// One block per (scale, quantity): thread i adds partials i, i + kT, ... in order, then the tree.
// kT = 1024 (reduce variant 1): fewer dependent loads per thread; a different (still fixed) tree.
template <int kT>
__global__ void __launch_bounds__(kT) reduce_kernel(const __grid_constant__ ReduceTable t, double* sums) {
  __shared__ DoubleDouble red[kT];
  const int j = int(blockIdx.x) / kSumQuantities, q = int(blockIdx.x) % kSumQuantities;
  DoubleDouble acc = {0.0, 0.0};
#pragma unroll 4
  for (int i = int(threadIdx.x); i < t.count[j]; i += kT) {
    const PartialSum p = t.partials[j][size_t(i) * kSumQuantities + q];
    acc = dd_sum(acc, {p.hi, p.lo});
  }
  red[threadIdx.x] = acc;
  __syncthreads();
  for (int stride = kT / 2; stride > 0; stride >>= 1) {
    if (int(threadIdx.x) < stride) red[threadIdx.x] = dd_sum(red[threadIdx.x], red[threadIdx.x + stride]);
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[j * kSumQuantities + q] = __dadd_rn(red[0].hi, red[0].lo);
}

constexpr int kWindowVariants = kStripVariant0 + kStripVariants, kDecimateVariants = 16;
static_assert(kCompactVariant0 + kCompactVariants == kRunVariant2, "variant numbers are contiguous");
constexpr size_t kSweepMinPixels = size_t(3000) * 2000;  // decimation variants 9, 14, 15: above 1080p
// Defaults: the fastest combination measured on the H200 (docs/float_ms_ssim.md, speed pass 3).
// Session 13's last round (docs): window 16, decimation 15 (the sweep for 4K's level 1, else
// the generic kernel with the row loader and conversion/shift widening), 1024-thread trees.
// Session 14 (docs, "Session 14: window kernel"): window 33 (runs of 16 in both passes, the
// column-wise terms loop; 4K window kernel 0.330 -> 0.299 ms).
// Session 15 (docs, "Session 15"): window 38 (window_strip_kernel with window 33's arithmetic and
// the warp tree), strips of 2 tiles in launches of at least 1000 tiles (4K's scale-0 bands and
// scales 1-4; at 1080p every launch is smaller, so tiles stay single there: fewer, longer blocks
// left the GPU half empty with one frame in flight); VQX_SSIM_WIN=33 restores session 14's kernel.
// Session 16 (docs, "Session 16"): window 44 (38 with half of the products widened by the
// conversion instruction, kParity, and the lean terms for ScaleJob::cs_only scales; 4K K=4 0.363 ->
// 0.345 ms, 1080p 0.097 -> 0.093); VQX_SSIM_WIN=38 restores session 15's kernel.
constexpr int kDefaultWindow = 44, kDefaultStrip = 2, kDefaultStripMinTiles = 1000;
constexpr int kDefaultDecimate = 15, kDefaultReduce = 1;
int g_window_variant = std::clamp(knob("VQX_SSIM_WIN", kDefaultWindow), 0, kWindowVariants - 1);
constexpr int kDecimateVariantsS14 = 27;  // session 14: variants 16-26 (decimate_sweep2_kernel)
// Session 16: variants 27-31 = decimate_rows_kernel for raw luma (level 1), 26's kernels otherwise:
// 27 (R = 32, classes 0 and 1 by conversion), 28 (R = 64, the same), 29 (R = 32, class 0),
// 30 (R = 32, no conversion), 31 (R = 64, classes 0-2); 32: 28 for raw inputs of 3000x2000 samples
// and up (4K's level 1: 0.343 -> 0.335 ms at K=4), 26 below (at 1080p the 128 x 64 blocks leave the
// GPU half empty with one frame in flight: K=1 0.107 -> 0.119 ms).
constexpr int kRowsVariant0 = kDecimateVariantsS14, kDecimateVariantsS16 = kRowsVariant0 + 6;
static_assert(kDecimateVariantsS14 > kDecimateVariants && kDefaultDecimate < kDecimateVariants,
              "session 14 adds decimation variants and a new default");
// Session 14's default (docs/float_ms_ssim.md, "pyramid and schedule"): decimate_sweep2_kernel<7>
// (split accumulators at level 1, two-shift widening, interior loader) for inputs of 2e6 samples
// and up (1080p's level 1, 4K's levels 1 and 2), else the 32x8 kernel 13.
constexpr int kDefaultDecimateS14 = 26;
constexpr size_t kSweep2MinPixels = size_t(2000000);  // variants 19-21: 1080p's level 1 and up
// Session 16's default (docs/float_ms_ssim.md, "Session 16"): variant 32, decimate_rows_kernel for
// 4K's level 1, variant 26 elsewhere.
constexpr int kDefaultDecimateS16 = kRowsVariant0 + 5;
int g_decimate_variant = std::clamp(knob("VQX_SSIM_DEC", kDefaultDecimateS16), 0, kDecimateVariantsS16 - 1);
int g_reduce_variant = std::clamp(knob("VQX_SSIM_RED", kDefaultReduce), 0, 1);
const void* const kWindowKernels[kWindowVariants] = {
    reinterpret_cast<const void*>(window_kernel<0>), reinterpret_cast<const void*>(window_kernel<1>),
    reinterpret_cast<const void*>(window_kernel<2>), reinterpret_cast<const void*>(window_kernel<3>),
    reinterpret_cast<const void*>(window_kernel<4>), reinterpret_cast<const void*>(window_kernel<5>),
    reinterpret_cast<const void*>(window_kernel<6>), reinterpret_cast<const void*>(window_kernel<7>),
    reinterpret_cast<const void*>(window_kernel<8>), reinterpret_cast<const void*>(window_kernel<9>),
    reinterpret_cast<const void*>(window_kernel<10>), reinterpret_cast<const void*>(window_kernel<11>),
    reinterpret_cast<const void*>(window_kernel<12>), reinterpret_cast<const void*>(window_kernel<13>),
    reinterpret_cast<const void*>(window_kernel<14>), reinterpret_cast<const void*>(window_kernel<15>),
    reinterpret_cast<const void*>(window_kernel<16>), reinterpret_cast<const void*>(window_run_kernel<17>),
    reinterpret_cast<const void*>(window_run_kernel<18>), reinterpret_cast<const void*>(window_run_kernel<19>),
    reinterpret_cast<const void*>(window_run_kernel<20>), reinterpret_cast<const void*>(window_run_kernel<21>),
    reinterpret_cast<const void*>(window_run_kernel<22>), reinterpret_cast<const void*>(window_run_kernel<23>),
    reinterpret_cast<const void*>(window_run_kernel<24>), reinterpret_cast<const void*>(window_compact_kernel<25>),
    reinterpret_cast<const void*>(window_compact_kernel<26>), reinterpret_cast<const void*>(window_compact_kernel<27>),
    reinterpret_cast<const void*>(window_compact_kernel<28>), reinterpret_cast<const void*>(window_compact_kernel<29>),
    reinterpret_cast<const void*>(window_compact_kernel<30>), reinterpret_cast<const void*>(window_compact_kernel<31>),
    reinterpret_cast<const void*>(window_compact_kernel<32>), reinterpret_cast<const void*>(window_run_kernel<33>),
    reinterpret_cast<const void*>(window_run_kernel<34>), reinterpret_cast<const void*>(window_run_kernel<35>),
    reinterpret_cast<const void*>(window_run_kernel<36>), reinterpret_cast<const void*>(window_tall_kernel<37>),
    reinterpret_cast<const void*>(window_strip_kernel<38>), reinterpret_cast<const void*>(window_strip_kernel<39>),
    reinterpret_cast<const void*>(window_strip_kernel<40>), reinterpret_cast<const void*>(window_strip_kernel<41>),
    reinterpret_cast<const void*>(window_strip_kernel<42>), reinterpret_cast<const void*>(window_strip_kernel<43>),
    reinterpret_cast<const void*>(window_strip_kernel<44>), reinterpret_cast<const void*>(window_strip_kernel<45>),
    reinterpret_cast<const void*>(window_strip_kernel<46>)};
static_assert(kStripVariant0 == 38, "window_strip_kernel's variants in kWindowKernels");
// Session 15: tiles per strip of the strip kernels (VQX_SSIM_STRIP; 1 = every tile on its own; the
// other kernels ignore it).
int g_window_strip = std::clamp(knob("VQX_SSIM_STRIP", kDefaultStrip), 1, 64);
// Launches with fewer tiles than this run the strip kernels with one tile per block
// (VQX_SSIM_STRIP_MIN; 1 = strips everywhere).
int g_window_strip_min = std::max(1, knob("VQX_SSIM_STRIP_MIN", kDefaultStripMinTiles));
// Dynamic shared memory of a window variant: the compact kernels' smaller layout.
size_t window_smem(int variant) {
  if (variant == kTallVariant) return kTallSmem;
  return variant >= kCompactVariant0 && variant < kCompactVariant0 + kCompactVariants ? kCompactSmem : kWindowSmem;
}

int tiles_x(Size plane) { return (map_size(plane).width + kTileW - 1) / kTileW; }
int tiles_y(Size plane) { return (map_size(plane).height + kTileH - 1) / kTileH; }

}  // namespace

SpeedVariants speed_variants() {
  return {g_window_variant, g_decimate_variant, g_reduce_variant, g_window_strip, g_window_strip_min};
}

void set_speed_variants(SpeedVariants v) {
  g_window_variant = std::clamp(v.window, 0, kWindowVariants - 1);
  if (v.strip > 0) g_window_strip = std::min(v.strip, 64);
  if (v.strip_min_tiles > 0) g_window_strip_min = v.strip_min_tiles;
  g_decimate_variant = std::clamp(v.decimate, 0, kDecimateVariantsS16 - 1);
  g_reduce_variant = std::clamp(v.reduce, 0, 1);
}

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
  check_split_decimation_bound();
  check(cudaMemcpyToSymbol(c_gaussian, kGaussian, sizeof(c_gaussian)), "ssim: window table");
  check(cudaMemcpyToSymbol(c_lpf, kLpf, sizeof(c_lpf)), "ssim: decimation table");
  for (int k = 0; k < kWindowTaps; ++k)  // slide_v shares the products of taps k and 10-k
    if (std::memcmp(&kGaussian[k], &kGaussian[kWindowTaps - 1 - k], sizeof(float)) != 0)
      throw std::logic_error("ssim: kGaussian is not symmetric bit for bit");
  for (int v = 0; v < kLpfTaps; ++v)  // decimate_sweep_kernel shares the products of taps u and 8-u
    for (int u = 0; u < kLpfTaps; ++u)
      if (std::memcmp(&kLpf[v][u], &kLpf[v][kLpfTaps - 1 - u], sizeof(float)) != 0)
        throw std::logic_error("ssim: kLpf's rows are not symmetric bit for bit");
  // decimate_rows_kernel shares the row sums of table rows v and 8-v.
  for (int v = 0; v < kLpfRadius; ++v)
    if (std::memcmp(kLpf[v], kLpf[kLpfTaps - 1 - v], sizeof(kLpf[v])) != 0)
      throw std::logic_error("ssim: kLpf is not symmetric in its rows bit for bit");
  float magnitude[kLpfTaps][kLpfTaps];
  for (int v = 0; v < kLpfTaps; ++v)
    for (int u = 0; u < kLpfTaps; ++u) {
      // The nonnegative decimation path relies on this sign pattern (decimate_taps).
      if ((kLpf[v][u] < 0.0f) != (lpf_negative(v) != lpf_negative(u)) || kLpf[v][u] == 0.0f)
        throw std::logic_error("ssim: kLpf's sign pattern is not the one the device code assumes");
      magnitude[v][u] = std::fabs(kLpf[v][u]);
    }
  check(cudaMemcpyToSymbol(c_lpf_abs, magnitude, sizeof(c_lpf_abs)), "ssim: decimation table magnitudes");
  for (const void* kernel : kWindowKernels)
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kWindowSmem)),
          "ssim: window kernel shared memory");
  // The compact and tall window kernels (session 14): their own shared memory, and all of the
  // SM's unified memory as shared memory (4 or 2 blocks per SM).
  for (int v = 0; v < kWindowVariants; ++v)
    if (window_smem(v) != kWindowSmem) {
      check(cudaFuncSetAttribute(kWindowKernels[v], cudaFuncAttributeMaxDynamicSharedMemorySize, int(window_smem(v))),
            "ssim: window kernel shared memory");
      check(cudaFuncSetAttribute(kWindowKernels[v], cudaFuncAttributePreferredSharedMemoryCarveout, 100),
            "ssim: window kernel carveout");
    }
}

namespace {
// Session 16's level-1 kernel (decimate_rows.cuh) for raw luma: variant v of kRowsVariant0 + v.
template <typename T>
void launch_decimate_rows(const DevicePlane& ref, const DevicePlane& dis, float* out_ref, float* out_dis, int v,
                          cudaStream_t stream) {
  const Size half = half_size(ref.size);
  const int r = v == 1 || v == 4 ? 64 : 32;
  const dim3 grid(unsigned((half.width + kDrThreads - 1) / kDrThreads), unsigned((half.height + r - 1) / r), 2);
  switch (v) {
    case 0: decimate_rows_kernel<T, 32, 0x03><<<grid, kDrThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half); break;
    case 1: decimate_rows_kernel<T, 64, 0x03><<<grid, kDrThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half); break;
    case 2: decimate_rows_kernel<T, 32, 0x01><<<grid, kDrThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half); break;
    case 3: decimate_rows_kernel<T, 32, 0x00><<<grid, kDrThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half); break;
    default: decimate_rows_kernel<T, 64, 0x07><<<grid, kDrThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half); break;
  }
  vqx::cuda::check_launch("ssim: decimate_rows_kernel");
}

bool enqueue_decimate_rows(const DevicePlane& ref, const DevicePlane& dis, float* out_ref, float* out_dis, int v,
                           cudaStream_t stream) {
  if (ref.type == SampleType::kU8) launch_decimate_rows<uint8_t>(ref, dis, out_ref, out_dis, v, stream);
  else if (ref.type == SampleType::kU16) launch_decimate_rows<uint16_t>(ref, dis, out_ref, out_dis, v, stream);
  else return false;
  return true;
}
}  // namespace

void enqueue_decimate(const DevicePlane& ref, const DevicePlane& dis, float* out_ref, float* out_dis,
                      cudaStream_t stream) {
  const Size half = half_size(ref.size);
  dim3 grid(unsigned((half.width + kDecTileW - 1) / kDecTileW), unsigned((half.height + kDecTileH - 1) / kDecTileH));
  int variant = g_decimate_variant;
  if (variant >= kRowsVariant0) {
    int rows = variant - kRowsVariant0;
    if (rows == 5) rows = ref.size.pixels() >= kSweepMinPixels ? 1 : -1;  // 32: by size
    if (rows >= 0 && ref.type == dis.type && ref.type != SampleType::kF32 &&
        enqueue_decimate_rows(ref, dis, out_ref, out_dis, rows, stream))
      return;
    variant = kDefaultDecimateS14;
  }
  // Variant 9 (auto): the sweep with the row loader (7) for large inputs, where it measured
  // faster (4K level 1: 0.128 against 0.145 ms for the whole pyramid), the generic kernel (0)
  // for the smaller ones (1080p pyramid: 0.053 against 0.060 ms). Both are exact.
  if (variant == 9) variant = ref.size.pixels() >= kSweepMinPixels ? 7 : 0;
  // Variants 14, 15 (auto): the sweep (7) for large inputs as 9, else 12 / 13.
  if (variant == 14 || variant == 15) variant = ref.size.pixels() >= kSweepMinPixels ? 7 : variant - 2;
  // Variants 19-26 (auto, session 14): for inputs of 1080p and up 17, 7, 16 / sweep2 modes 4, 5, 3
  // (as 1, 2, 0 with the two-shift widening) / 6, 7 (3, 4 with the interior loader), else 13.
  if (variant >= 19) {
    constexpr int kLarge[] = {17, 7, 16, -4, -5, -3, -6, -7};  // negative: decimate_sweep2_kernel<-v>
    variant = ref.size.pixels() < kSweep2MinPixels ? 13 : kLarge[variant - 19];
  }
  if (variant < 0) {
    dim3 sweep(unsigned((half.width + kSwW - 1) / kSwW), unsigned((half.height + kSwH - 1) / kSwH), 2);
    if (variant == -4)
      decimate_sweep2_kernel<4><<<sweep, kSwThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half);
    else if (variant == -5)
      decimate_sweep2_kernel<5><<<sweep, kSwThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half);
    else if (variant == -6)
      decimate_sweep2_kernel<6><<<sweep, kSwThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half);
    else if (variant == -7)
      decimate_sweep2_kernel<7><<<sweep, kSwThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half);
    else
      decimate_sweep2_kernel<3><<<sweep, kSwThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half);
    vqx::cuda::check_launch("ssim: decimate_sweep2_kernel");
    return;
  }
  if (variant >= 16) {
    dim3 sweep(unsigned((half.width + kSwW - 1) / kSwW), unsigned((half.height + kSwH - 1) / kSwH), 2);
    if (variant == 16)
      decimate_sweep2_kernel<0><<<sweep, kSwThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half);
    else if (variant == 17)
      decimate_sweep2_kernel<1><<<sweep, kSwThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half);
    else
      decimate_sweep2_kernel<2><<<sweep, kSwThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half);
    vqx::cuda::check_launch("ssim: decimate_sweep2_kernel");
    return;
  }
  if (variant == 10)
    decimate_kernel<10><<<grid, kDecThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half);
  else if (variant == 11)
    decimate_kernel<11><<<grid, kDecThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half);
  else if (variant == 12)
    decimate_kernel<12><<<grid, kDecThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half);
  else if (variant == 13)
    decimate_kernel<13><<<grid, kDecThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half);
  else if (variant >= 3) {
    dim3 sweep(unsigned((half.width + kSwW - 1) / kSwW), unsigned((half.height + kSwH - 1) / kSwH), 2);
    if (variant == 3)
      decimate_sweep_kernel<kWide, kWide><<<sweep, kSwThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half);
    else if (variant == 4)
      decimate_sweep_kernel<kCvt, kWide><<<sweep, kSwThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half);
    else if (variant == 5)
      decimate_sweep_kernel<kShift, kWide><<<sweep, kSwThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half);
    else if (variant == 6)
      decimate_sweep_kernel<kShift, kShift><<<sweep, kSwThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half);
    else if (variant == 7)
      decimate_sweep_kernel<kShift, kShift, true><<<sweep, kSwThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half);
    else
      decimate_sweep_kernel<kWide, kWide, true><<<sweep, kSwThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half);
  } else if (variant == 1)
    decimate_kernel<1><<<grid, kDecThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half);
  else if (variant == 2)
    decimate_kernel<2><<<grid, kDecThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half);
  else
    decimate_kernel<0><<<grid, kDecThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half);
  vqx::cuda::check_launch("ssim: decimate_kernel");
}

namespace {
// Level k's tile rows of decimate_chain_kernel, and the counter words for levels 1..kScales-1.
int chain_tile_rows(Size level) { return (level.height + kDecTileH - 1) / kDecTileH; }
}  // namespace

static_assert(kTileH == kWindowTileRows, "float_ms_ssim_cuda.cpp cuts scale 0 into bands of whole tile rows");

size_t pyramid_sync_words(Size plane) {
  size_t generic = 2, sweep = 2;  // decimate_chain_kernel's counters, decimate_chain_sweep_kernel's
  for (int k = 1; k < kScales; ++k) {
    plane = half_size(plane);
    generic += size_t(chain_tile_rows(plane));
    sweep += 2 * size_t((plane.height + kSwH - 1) / kSwH);
  }
  return std::max(generic, sweep);
}

namespace {
// Variants 3 (levels 1-4) and 4 (level 1 by enqueue_decimate, levels 2-4) of enqueue_pyramid.
void enqueue_chain_sweep(const DevicePlane& ref, const DevicePlane& dis, float* const* out_ref, float* const* out_dis,
                         int first, unsigned* sync, cudaStream_t stream) {
  ChainSweepTable t{};
  t.size[0] = ref.size;
  for (int k = 1; k < kScales; ++k) t.size[k] = half_size(t.size[k - 1]);
  if (first == 1) {
    t.in[0] = ref;
    t.in[1] = dis;
  } else {
    t.in[0] = {out_ref[first - 1], SampleType::kF32, 8, t.size[first - 1]};
    t.in[1] = {out_dis[first - 1], SampleType::kF32, 8, t.size[first - 1]};
  }
  t.first = first;
  t.last = kScales - 1;
  t.sync = sync;
  int blocks = 0, rows = 0;
  for (int k = 1; k < kScales; ++k) {
    t.out[0][k] = out_ref[k];
    t.out[1][k] = out_dis[k];
    t.tiles_x[k] = (t.size[k].width + kSwW - 1) / kSwW;
    const int tile_rows = (t.size[k].height + kSwH - 1) / kSwH;
    t.row_base[k] = rows;
    rows += tile_rows;
    t.block_begin[k] = blocks;
    if (k >= first) blocks += 2 * t.tiles_x[k] * tile_rows;
  }
  t.block_begin[kScales] = blocks;
  t.total = blocks;
  decimate_chain_sweep_kernel<<<unsigned(blocks), kSwThreads, 0, stream>>>(t);
  vqx::cuda::check_launch("ssim: decimate_chain_sweep_kernel");
}
}  // namespace

void enqueue_pyramid(const DevicePlane& ref, const DevicePlane& dis, float* const* out_ref, float* const* out_dis,
                     int variant, unsigned* sync, cudaStream_t stream) {
  int first = variant;
  if (first == 3 || first == 4) {  // the sweep tiles
    if (first == 4) enqueue_decimate(ref, dis, out_ref[1], out_dis[1], stream);
    enqueue_chain_sweep(ref, dis, out_ref, out_dis, first - 2, sync, stream);
    return;
  }
  first = std::clamp(first, 1, 2);
  if (first == 2) enqueue_decimate(ref, dis, out_ref[1], out_dis[1], stream);  // level 1 as configured
  ChainTable t{};
  t.size[0] = ref.size;
  for (int k = 1; k < kScales; ++k) t.size[k] = half_size(t.size[k - 1]);
  if (first == 1) {
    t.in_ref = ref;
    t.in_dis = dis;
  } else {
    t.in_ref = {out_ref[first - 1], SampleType::kF32, 8, t.size[first - 1]};
    t.in_dis = {out_dis[first - 1], SampleType::kF32, 8, t.size[first - 1]};
  }
  t.first = first;
  t.last = kScales - 1;
  t.sync = sync;
  int blocks = 0, rows = 0;
  for (int k = 1; k < kScales; ++k) {
    t.out_ref[k] = out_ref[k];
    t.out_dis[k] = out_dis[k];
    t.tiles_x[k] = (t.size[k].width + kDecTileW - 1) / kDecTileW;
    t.row_base[k] = rows;  // counters of every level from 1, whatever `first` (fixed layout)
    rows += chain_tile_rows(t.size[k]);
    t.block_begin[k] = blocks;
    if (k >= first) blocks += t.tiles_x[k] * chain_tile_rows(t.size[k]);
  }
  t.block_begin[kScales] = blocks;
  t.total = blocks;
  decimate_chain_kernel<<<unsigned(blocks), kDecThreads, 0, stream>>>(t);
  vqx::cuda::check_launch("ssim: decimate_chain_kernel");
}

void enqueue_box_decimate(const DevicePlane& in, int factor, float* out, cudaStream_t stream) {
  const Size small = box_decimated_size(in.size, factor);
  dim3 block(32, 8);
  dim3 grid(unsigned((small.width + 31) / 32), unsigned((small.height + 7) / 8));
  box_decimate_kernel<<<grid, block, 0, stream>>>(in, factor, out, small);
  vqx::cuda::check_launch("ssim: box_decimate_kernel");
}

uint64_t division_mismatches(uint64_t count, uint32_t seed) {
  using vqx::cuda::check;
  unsigned long long* counter = nullptr;
  check(cudaMalloc(&counter, sizeof(*counter)), "ssim: division check");
  check(cudaMemset(counter, 0, sizeof(*counter)), "ssim: division check");
  division_check_kernel<<<1024, 256>>>(count, seed, counter);
  vqx::cuda::check_launch("ssim: division_check_kernel");
  unsigned long long host = 0;
  check(cudaMemcpy(&host, counter, sizeof(host), cudaMemcpyDeviceToHost), "ssim: division check");
  check(cudaFree(counter), "ssim: division check");
  return host;
}

int window_variant_count() { return kWindowVariants; }

size_t partial_count(Size plane) { return size_t(tiles_x(plane)) * size_t(tiles_y(plane)); }

void enqueue_windows(const ScaleJob* jobs, int count, PartialSum* const* partials, cudaStream_t stream) {
  JobTable t{};
  t.count = count;
  int blocks = 0;
  const int variant = g_window_variant;
  const bool tall = variant == kTallVariant;  // a block per two vertically adjacent tiles
  const bool strip = variant >= kStripVariant0;  // a block per strip of g_window_strip tiles
  size_t tiles = 0;
  for (int j = 0; j < count; ++j) tiles += partial_count(jobs[j].ref.size);
  const int strip_tiles = tiles >= size_t(g_window_strip_min) ? g_window_strip : 1;
  const int per_block = tall ? kTallTiles : strip ? strip_tiles : 1;
  for (int j = 0; j < count; ++j) {
    t.job[j] = jobs[j];
    t.partials[j] = partials[j];
    t.tiles_x[j] = tiles_x(jobs[j].ref.size);
    t.block_begin[j] = blocks;
    blocks += tiles_x(jobs[j].ref.size) * ((tiles_y(jobs[j].ref.size) + per_block - 1) / per_block);
  }
  t.block_begin[count] = blocks;
  StripTable st{t, strip_tiles};
  void* args[] = {strip ? static_cast<void*>(&st) : static_cast<void*>(&t)};
  vqx::cuda::check(cudaLaunchKernel(kWindowKernels[variant], dim3(unsigned(blocks)), dim3(tall ? kTallThreads : kThreads),
                                    args, window_smem(variant), stream),
                   "ssim: window_kernel launch");
  vqx::cuda::check_launch("ssim: window_kernel");
  vqx::cuda::check_launch("ssim: window_kernel");
}

void enqueue_reduce(const Size* sizes, int count, PartialSum* const* partials, double* sums,
                    cudaStream_t stream) {
  ReduceTable t{};
  for (int j = 0; j < count; ++j) {
    t.partials[j] = partials[j];
    t.count[j] = int(partial_count(sizes[j]));
  }
  if (g_reduce_variant == 1)
    reduce_kernel<kReduceThreadsWide><<<unsigned(count * kSumQuantities), kReduceThreadsWide, 0, stream>>>(t, sums);
  else
    reduce_kernel<kReduceThreads><<<unsigned(count * kSumQuantities), kReduceThreads, 0, stream>>>(t, sums);
  vqx::cuda::check_launch("ssim: reduce_kernel");
}

}  // namespace vqx::ssim::cuda
