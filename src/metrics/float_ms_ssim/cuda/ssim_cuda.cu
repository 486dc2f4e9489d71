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
// Some products use the conversion instruction and others the integer path, so that both pipes
// work at once. An accumulator may take both kinds: a term of the other kind enters by one DFMA
// with 2^-896 or 2^896, whose product is exact, so it rounds exactly as the plain add would.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <type_traits>

#include "engine/cuda/cuda_check.h"
#include "metrics/float_ms_ssim/cuda/ssim_cuda.h"
#include "metrics/float_ssim/float_ssim.h"

namespace vqx::ssim::cuda {
namespace {

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

// Widening modes: kCvt = the conversion instruction (unscaled accumulator); the others scale by
// 2^-896 (file comment): kShift only for terms with the sign bit clear, kSigned for any finite
// term; kParity and kMix + mask: the window runs' mixes (run_taps).
enum WidenMode : int { kCvt = 0, kShift = 1, kSigned = 2, kParity = 3 };

template <int M>
__device__ __forceinline__ double widen_as(float p) {
  if constexpr (M == kCvt) return widen(p);
  else if constexpr (M == kShift) return widen_scaled_nonneg(p);
  else return widen_scaled(p);
}

template <int M>
__device__ __forceinline__ float finish_as(double acc) {
  if constexpr (M == kCvt) return __double2float_rn(acc);
  else return unscale_to_f32(acc);
}

// Speed knobs for side-by-side measurement (all variants give the same bits; tests run each).
// VQX_SSIM_WIN: window kernel variant; VQX_SSIM_DEC: decimation variant (SpeedVariants).
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
// Whether kLpf[v][u] is negative (prepare_device checks the pattern against the table).
__host__ __device__ constexpr bool lpf_entry_negative(int v, int u) { return lpf_negative(v) != lpf_negative(u); }

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
        if (lpf_entry_negative(v, u)) {
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

// 32x8 outputs per block (decimation variant 26's and the default's kernel below 2e6 samples; it
// was variant 13): a warp per input row, a lane per split column (columns' reflected indices
// computed once per thread, rows once per row, no division), every load of the thread's rows
// issued before the first store. Sign-free tiles: the reference widened by conversion (XU), the
// distorted plane by shifts (ALU), decimate_taps' kNonneg path; a tile holding a sample with its
// sign bit set: the reference by conversion, the distorted plane by widen_scaled (any sign).
__global__ void __launch_bounds__(kDecThreads) decimate_kernel(DevicePlane ref, DevicePlane dis, float* out_ref,
                                                               float* out_dis, Size half) {
  __shared__ float split[2][2][kDecRows][kDecSplit];  // [image][even, odd][row][j]
  const Size in = ref.size;
  const int x0 = int(blockIdx.x) * kDecTileW, y0 = int(blockIdx.y) * kDecTileH;
  const int cols = min(kDecTileW, half.width - x0), rows = min(kDecTileH, half.height - y0);
  const int load_rows = 2 * rows + kLpfTaps - 2, load_cols = cols + kLpfRadius;
  const float inverse_r = inverse_divisor(ref.bit_depth), inverse_d = inverse_divisor(dis.bit_depth);
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
  const bool any_negative = __syncthreads_or(int(negative)) != 0;
  const int tx = int(threadIdx.x) % kDecTileW, ty = int(threadIdx.x) / kDecTileW;
  if (tx >= cols || ty >= rows) return;
  float r, d;
  if (any_negative) decimate_taps<kCvt, kSigned, false>(split, tx, ty, r, d);
  else decimate_taps<kCvt, kShift, true>(split, tx, ty, r, d);
  const size_t o = size_t(y0 + ty) * size_t(half.width) + size_t(x0 + tx);
  out_ref[o] = r;
  out_dis[o] = d;
}

// ---- Row-wise tile loaders ----------------------------------------------------------------------
// The tile loaders give a warp whole rows (no divisions) and issue a batch of loads before the
// first store, so several are in flight (a plain loader issues one global load, waits for it and
// stores it, with a division and a modulo per sample).
template <typename T>
__device__ __forceinline__ float to_sample(T v, float inverse) {
  if constexpr (std::is_floating_point_v<T>) return v;  // f32 planes
  else return __fmul_rn(__uint2float_rn(v), inverse);
}

constexpr int kWarps = 8;  // both the window and the sweep kernels run 256 threads

// ---- Decimation by sliding runs (decimate_sweep2_kernel: inputs of 2e6 samples and up) ----------
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

// decimate_sweep2_kernel (it was decimate_sweep2_kernel<7>; decimation variant 26's and the
// default's kernel for inputs of 2e6 samples and up):
// - a row loader (load_sweep_rows_lean): reflected column indices and shared-memory offsets
//   once per thread, the row once per row, all of a thread's loads of three rows in flight; full
//   tiles away from the borders by load_sweep_rows_interior;
// - for raw luma (level 1) only: two accumulators per output, one fed by the f32->f64
//   conversion (XU pipe) and one by the scaled shift widening (ALU), products of the column classes
//   in kSplitMask going to the first. Exact because at level 1 every partial sum is exact (so their
//   order and grouping cannot change the sum): the samples are k / 2^(bpc-8) with bpc <= 16, so a
//   nonzero product is >= 2^-8 * min|kLpf| >= 2^-20 and a multiple of 2^-43 (its f32 rounding
//   keeps that), and every partial sum is below 256 * sum|kLpf| < 2^9 in magnitude: at most 52
//   significant bits (prepare_device checks min|kLpf| >= 2^-12 and sum|kLpf| < 2). The output
//   f32(acc_c + acc_s * 2^896) is then f32 of the exact sum, which the CPU's sequential f64 sum also
//   is. Other levels (f32 samples of any magnitude) keep one accumulator per output, in the CPU's
//   order (sweep_taps with kMask = 0).

// The column classes (lpf_class) whose products go to the conversion accumulator at level 1: {2, 3,
// 4}; the others are widened by two 32-bit shifts (widen_scaled_nonneg).
constexpr unsigned kSplitMask = 0x1cu;

// The kSwRun outputs of a run. kNonneg as in decimate_taps (products a * |g|, subtracted where
// g < 0, shift widening); else signed samples (widen_scaled). kMask != 0 (raw luma, kNonneg): the
// products of the column classes in kMask go to a second, unscaled accumulator fed by the
// conversion instruction, and the output is f32(acc_c + acc_s * 2^896) (exact sums, above).
// kMix (session 18; the sign-free f32 levels, single scaled accumulator): the products of the
// classes in kMix widened by the conversion instruction and added by one DFMA with +-2^-896 (exact:
// the product times 2^-896 is the shifted widening's term, so the DFMA rounds as the DADD / DSUB
// would), the others by the shift pair: fewer issue slots for a little of the XU pipe.
template <bool kNonneg, unsigned kMask = 0, unsigned kMix = 0>
__device__ __forceinline__ void sweep_taps(const float (*t)[2][kSwCols][kSwRowsHalf], int jr, int y,
                                           float (&out)[kSwRun]) {
  static_assert(kMask == 0 || kNonneg, "split accumulators for sign-free samples only");
  static_assert(kMix == 0 || (kNonneg && kMask == 0), "mixed widening into the single accumulator");
  double acc_s[kSwRun], acc_c[kSwRun];
#pragma unroll
  for (int o = 0; o < kSwRun; ++o) {
    if constexpr (kMask != 0) acc_s[o] = acc_c[o] = 0.0;
    else acc_s[o] = 0.0;
  }
#pragma unroll
  for (int v = 0; v < kLpfTaps; ++v) {
#pragma unroll
    for (int c = 0; c < kSwSamples; ++c) {
      const float a = t[c & 1][v & 1][jr + (c >> 1)][y + (v >> 1)];
      double w[kLpfRadius + 1];
#pragma unroll
      for (int m = 0; m <= kLpfRadius; ++m)
        if (sweep_needs(c, m)) {
          if constexpr (!kNonneg) {
            w[m] = widen_scaled(__fmul_rn(a, c_lpf[v][m]));
          } else {
            const float p = __fmul_rn(a, c_lpf_abs[v][m]);
            w[m] = ((kMask | kMix) >> m) & 1u ? widen(p) : widen_scaled_nonneg(p);
          }
        }
#pragma unroll
      for (int o = 0; o < kSwRun; ++o) {
        const int u = c - 2 * o;
        if (u >= 0 && u < kLpfTaps) {
          const int m = lpf_class(u);
          double& acc = (kMask >> m) & 1u ? acc_c[o] : acc_s[o];
          if ((kMix >> m) & 1u) acc = __fma_rn(w[m], lpf_entry_negative(v, u) ? -0x1p-896 : 0x1p-896, acc);
          else if (kNonneg && lpf_entry_negative(v, u)) acc = __dsub_rn(acc, w[m]);
          else acc = __dadd_rn(acc, w[m]);
        }
      }
    }
  }
#pragma unroll
  for (int o = 0; o < kSwRun; ++o) {
    if constexpr (kMask != 0) out[o] = __double2float_rn(__dadd_rn(acc_c[o], __dmul_rn(acc_s[o], kScaleUp)));
    else out[o] = unscale_to_f32(acc_s[o]);
  }
}

// The sweep tile by rows, leaner: a warp per input row (rows warp, warp + 8, ...: the same row
// parity, so a thread's shared-memory offsets differ only by a constant per row), lanes over
// columns, column indices reflected once per thread; three rows' loads in flight at a time.
template <typename T>
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
          v[i][h] = p[row + col[h]];
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

// A full tile whose input needs no reflection (decimate_sweep2_kernel): no index arithmetic per sample beyond
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

__device__ __forceinline__ unsigned load_sweep_tile_lean(const DevicePlane& in, int x0, int y0, int load_rows,
                                                         int load_cols, float (*t)[2][kSwCols][kSwRowsHalf]) {
  const float inverse = inverse_divisor(in.bit_depth);
  const bool interior = load_rows == 2 * kSwH + kLpfTaps - 2 && load_cols == 2 * kSwW + kLpfTaps - 2 &&
                        2 * x0 - kLpfRadius >= 0 && 2 * x0 - kLpfRadius + load_cols <= in.size.width &&
                        2 * y0 - kLpfRadius >= 0 && 2 * y0 - kLpfRadius + load_rows <= in.size.height;
  if (interior) {
    const unsigned width = unsigned(in.size.width);
    if (in.type == SampleType::kU8) return load_sweep_rows_interior<uint8_t>(in.data, width, x0, y0, inverse, t);
    if (in.type == SampleType::kU16) return load_sweep_rows_interior<uint16_t>(in.data, width, x0, y0, inverse, t);
    return load_sweep_rows_interior<float>(in.data, width, x0, y0, inverse, t);
  }
  if (in.type == SampleType::kU8)
    return load_sweep_rows_lean<uint8_t>(in.data, in.size, x0, y0, load_rows, load_cols, inverse, t);
  if (in.type == SampleType::kU16)
    return load_sweep_rows_lean<uint16_t>(in.data, in.size, x0, y0, load_rows, load_cols, inverse, t);
  return load_sweep_rows_lean<float>(in.data, in.size, x0, y0, load_rows, load_cols, inverse, t);
}
// The runs of one tile after its load: split accumulators for raw luma (above).
// Classes 0 and 2 of the sign-free f32 levels by conversion (4K's level 2: 12.0 -> 11.2 M
// instructions, 23.7 -> 23.5 us; session 18).
constexpr unsigned kSweepMix = 0x05u;
__device__ __forceinline__ void sweep2_taps(const float (*t)[2][kSwCols][kSwRowsHalf], bool raw, bool any_negative,
                                            int jr, int y, float (&res)[kSwRun]) {
  if (raw) sweep_taps<true, kSplitMask>(t, jr, y, res);
  else if (any_negative) sweep_taps<false>(t, jr, y, res);
  else sweep_taps<true, 0, kSweepMix>(t, jr, y, res);
}

__global__ void __launch_bounds__(kSwThreads, 4) decimate_sweep2_kernel(DevicePlane ref, DevicePlane dis,
                                                                        float* out_ref, float* out_dis, Size half) {
  __shared__ float t[2][2][kSwCols][kSwRowsHalf];
  const DevicePlane in = blockIdx.z == 0 ? ref : dis;
  float* out = blockIdx.z == 0 ? out_ref : out_dis;
  const int x0 = int(blockIdx.x) * kSwW, y0 = int(blockIdx.y) * kSwH;
  const int cols = min(kSwW, half.width - x0), rows = min(kSwH, half.height - y0);
  const int load_rows = 2 * rows + kLpfTaps - 2, load_cols = 2 * cols + kLpfTaps - 2;
  const unsigned negative = load_sweep_tile_lean(in, x0, y0, load_rows, load_cols, t);
  const bool any_negative = __syncthreads_or(int(negative)) != 0;
  const int y = int(threadIdx.x) % kSwH, jr = (int(threadIdx.x) / kSwH) * kSwRun;
  float res[kSwRun];
  sweep2_taps(t, in.type != SampleType::kF32, any_negative, jr, y, res);
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
// sum|kLpf| < 2 (comment above sweep_taps). Called by prepare_device.
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
// Row strides of the input and pass regions (session 18). The horizontal runs (h_task) have a
// warp's lanes on neighbouring rows: they read the input rows as 16-byte vectors, and a stride of
// 4 x odd floats puts the 8 lanes of each quarter-warp on different bank groups; they write the
// pass rows as 8-byte pairs, and a stride of 2 x odd floats does the same for each half-warp.
// Everything else walks along rows (lanes on neighbouring columns), conflict-free at any stride.
constexpr int kInStride = kInW + 2, kPassW = kTileW + 2;
static_assert(kPassW % 4 == 2, "8-byte pass rows, conflict-free by half-warp");
static_assert(kInStride % 4 == 0 && (kInStride / 4) % 2 == 1, "16-byte input rows, conflict-free by quarter-warp");
constexpr int kQuantities = 5;  // mu_r, mu_d, r*r, d*d, r*d
constexpr size_t kInputFloats = 2 * size_t(kInH) * kInStride;
constexpr size_t kWindowSmem = (kInputFloats + size_t(kQuantities) * kInH * kPassW) * sizeof(float);
static_assert(kInputFloats * sizeof(float) % 16 == 0, "the pass region must stay aligned for doubles");
static_assert(3 * (kWindowSmem + 1024) <= 228 * 1024, "three blocks per SM (1 KB reserved per block on sm_90)");
static_assert(size_t(kQuantities) * kInH * kPassW * sizeof(float) >=
                  sizeof(DoubleDouble) * kSumQuantities * kThreads,
              "the block tree reuses the horizontal-pass region");

template <typename T>
__device__ __forceinline__ unsigned load_window_rows(const void* ref_data, const void* dis_data, size_t width, int x0,
                                                     int y0, int in_rows, int in_cols, float inverse_r,
                                                     float inverse_d, float (*in)[kInH][kInStride]) {
  const T* ref = static_cast<const T*>(ref_data);
  const T* dis = static_cast<const T*>(dis_data);
  const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
  constexpr int kBatch = 4;
  unsigned negative = 0;
  for (int r0 = warp; r0 < in_rows; r0 += kWarps * kBatch) {
    T a[kBatch][2], b[kBatch][2];
#pragma unroll
    for (int k = 0; k < kBatch; ++k)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = r0 + kWarps * k, c = lane + 32 * h;
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
        const int r = r0 + kWarps * k, c = lane + 32 * h;
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

// Tiles of 8-bit planes by 32-bit words (load_window_words, session 17; 4K K=4 0.334 -> 0.323
// ms, 1080p 0.092 -> 0.089). load_window_rows spends about 15 instructions per sample (a byte
// load per sample, its bounds test and branch, the sign test); here a full-width tile (in_cols == kInW) of planes
// whose rows start on 4-byte boundaries (words_aligned: width % 4 == 0 and 4-byte aligned base
// pointers) is read as 11 words per row, a row's words on neighbouring lanes, a batch of words of
// both planes issued before the first store, without per-sample tests. The words of a row end
// inside the plane's row: x0 + kInW <= width with x0 and width multiples of 4, so the last word's
// two extra bytes (columns 42 and 43, not stored) lie inside the row. Each sample is converted
// as to_sample converts it (the same f32). Unsigned samples times a positive power of two are
// never negative, so there is no sign test. Measured and not kept: the same for 16-bit and f32
// planes (in the one kernel the extra paths made it spill: no gain; a separate f32-only kernel
// for scales 1-4: more instructions, no gain) and fetching the next tile's words before the
// terms loop (registers live across the terms: spills, slower).
constexpr int kWordsPerRow = (kInW + 3) / 4;  // 11 words of 4 samples per input row
static_assert(4 * kWordsPerRow <= kInStride, "a row's last word lands inside the row's stride");
// Words i, i + kThreads, ... of a tile (word i is word i % kWordsPerRow of row i / kWordsPerRow):
// the next one is kWordStepRows rows and kWordStepCols words further on.
constexpr int kWordStepRows = kThreads / kWordsPerRow, kWordStepCols = kThreads % kWordsPerRow;
__device__ __forceinline__ void next_word(int& r, int& w) {
  r += kWordStepRows;
  w += kWordStepCols;
  if (w >= kWordsPerRow) {
    w -= kWordsPerRow;
    ++r;
  }
}

// Walks the words of input rows 0..n-1 (from plane row y0) of a full-width tile of two planes:
// kWordsPerRow words per row (a 32-bit word of 4 8-bit samples, or a 16-byte vector of 4 f32
// samples), a row's words on neighbouring lanes, kBatch words of each plane fetched before the
// first is stored; put(r, w, ref word, dis word) stores the words at row r, columns 4w..4w+3.
template <typename Word, int kBatch, typename Put>
__device__ __forceinline__ void walk_tile_words(const void* ref_data, const void* dis_data, size_t width, int x0,
                                                int y0, int n, Put put) {
  const uint32_t row_words = uint32_t(width / 4);
  const size_t first = size_t(y0) * row_words + size_t(x0 / 4);
  const Word* ref = static_cast<const Word*>(ref_data) + first;
  const Word* dis = static_cast<const Word*>(dis_data) + first;
  const int items = n * kWordsPerRow;
  for (int base = int(threadIdx.x); base < items; base += kThreads * kBatch) {
    Word a[kBatch], b[kBatch];
    const int r0 = base / kWordsPerRow, w0 = base - r0 * kWordsPerRow;
    int r = r0, w = w0;
#pragma unroll
    for (int k = 0; k < kBatch; ++k) {
      if (base + kThreads * k < items) {
        const uint32_t at = uint32_t(r) * row_words + uint32_t(w);
        a[k] = ref[at];
        b[k] = dis[at];
      }
      next_word(r, w);
    }
    r = r0;
    w = w0;
#pragma unroll
    for (int k = 0; k < kBatch; ++k) {
      if (base + kThreads * k < items) put(r, w, a[k], b[k]);
      next_word(r, w);
    }
  }
}

// Input rows 0..n-1 (from plane row y0) of a full-width tile of two 8-bit planes, by words (4 of
// each plane in flight per thread: a 74-row tile's 814 words in one round).
__device__ __forceinline__ void load_window_words(const void* ref_data, const void* dis_data, size_t width, int x0,
                                                  int y0, int n, float inverse_r, float inverse_d,
                                                  float (*in)[kInH][kInStride]) {
  auto samples = [](uint32_t v, float inverse) {
    return make_float4(to_sample(uint8_t(v), inverse), to_sample(uint8_t(v >> 8), inverse),
                       to_sample(uint8_t(v >> 16), inverse), to_sample(uint8_t(v >> 24), inverse));
  };
  // One 16-byte store per word and plane (session 18); the last word's two bytes past the tile
  // land in the row's padding columns 42 and 43, which nothing reads.
  walk_tile_words<uint32_t, 4>(ref_data, dis_data, width, x0, y0, n, [&](int r, int w, uint32_t a, uint32_t b) {
    *reinterpret_cast<float4*>(&in[0][r][4 * w]) = samples(a, inverse_r);
    *reinterpret_cast<float4*>(&in[1][r][4 * w]) = samples(b, inverse_d);
  });
}

// Input rows 0..n-1 (from plane row y0) of a full-width tile of two f32 planes (the pyramid's
// levels), by 16-byte vectors (session 18): 11 per row, one of each plane in flight per thread
// (two made the window kernels spill), the same f32 samples as load_window_rows<float>, no
// per-sample bounds test. The last vector's two extra samples (columns 42, 43) lie inside the
// plane's row (x0 and width multiples of 4, x0 + 42 <= width) and land in the row's padding.
// Returns whether a sample has its sign bit set.
__device__ __forceinline__ unsigned load_window_vectors(const void* ref_data, const void* dis_data, size_t width,
                                                        int x0, int y0, int n, float (*in)[kInH][kInStride]) {
  unsigned bits = 0;
  walk_tile_words<float4, 1>(ref_data, dis_data, width, x0, y0, n, [&](int r, int w, float4 a, float4 b) {
    *reinterpret_cast<float4*>(&in[0][r][4 * w]) = a;
    *reinterpret_cast<float4*>(&in[1][r][4 * w]) = b;
    // Columns 42 and 43 are not the tile's: only the first two samples of the last vector count.
    bits |= __float_as_uint(a.x) | __float_as_uint(a.y) | __float_as_uint(b.x) | __float_as_uint(b.y);
    if (w != kWordsPerRow - 1) bits |= __float_as_uint(a.z) | __float_as_uint(a.w) | __float_as_uint(b.z) | __float_as_uint(b.w);
  });
  return bits >> 31;
}

// Whether load_window_vectors may read a tile of these f32 planes (rows on 16-byte boundaries).
__device__ __forceinline__ bool vectors_aligned(const void* ref_data, const void* dis_data, size_t width) {
  return width % 4 == 0 && ((reinterpret_cast<uintptr_t>(ref_data) | reinterpret_cast<uintptr_t>(dis_data)) & 15) == 0;
}

// Whether load_window_words may read a tile of these planes (rows on 4-byte boundaries).
__device__ __forceinline__ bool words_aligned(const void* ref_data, const void* dis_data, size_t width) {
  return width % 4 == 0 && (reinterpret_cast<uintptr_t>(ref_data) & 3) == 0 &&
         (reinterpret_cast<uintptr_t>(dis_data) & 3) == 0;
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
__device__ __forceinline__ void add_pixel_terms(float mu_r, float mu_d, float sum_rr, float sum_dd, float sum_rd,
                                                double (&plain)[kSumQuantities], const WindowTaps& taps, Size map,
                                                int x, int y) {
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

// The signed path of a tile (a sample with its sign bit set; decimated levels can hold negative
// samples): horizontal pass, vertical pass, statistics, terms and the tile's block tree, after the
// input tile is in shared memory, one output at a time with the CPU's tap order. M0..M4: widening
// mode of each quantity's accumulators (mu_r, mu_d, r*r, d*d, r*d); window_strip_kernel runs it
// with kCvt, kCvt, kShift, kShift, kSigned (the squares have their sign bit clear whatever the
// samples). Each thread adds its terms in plain f64 (a fixed order); only the block tree is
// double-double.
template <int M0, int M1, int M2, int M3, int M4>
__device__ __forceinline__ void window_body(float (*in)[kInH][kInStride], float (*pass)[kInH][kPassW], float* smem,
                                            const WindowTaps& taps, PartialSum* partials, int tile, Size map,
                                            int x0, int y0, int cols, int rows, int in_rows) {
  // Horizontal pass (window_h_one): a warp per row, a lane per column.
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
  double plain[kSumQuantities] = {};
  for (int i = int(threadIdx.x); i < rows * kTileW; i += kThreads) {
    const int y = i / kTileW, c = i % kTileW;
    if (c >= cols) continue;
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
// ---- Window runs (session 14) -------------------------------------------------------------------
// Both passes of a sign-free tile by sliding runs of 16 outputs: a run of R outputs walks R + 10
// samples, and each sample's products with the symmetric tap pairs are formed and widened once
// (kGaussian is symmetric bit for bit, checked by prepare_device): 126 products for R = 16 (7.9
// per output instead of 11); each accumulator still receives its taps k = 0..10 in order, and at
// most 11 accumulators are live at any sample.
template <int R>
__host__ __device__ constexpr bool run_needs(int s, int m) {
  for (int o = 0; o < R; ++o) {
    const int k = s - o;
    if (k >= 0 && k < kWindowTaps && (k < kWindowTaps - 1 - k ? k : kWindowTaps - 1 - k) == m) return true;
  }
  return false;
}

// The R outputs of a run from its R + 10 samples x (taps k = 0..10 of output o are x[o + k]).
// Sign-free terms only (products of samples with their sign bit clear and the positive Gaussian,
// never -0), so each accumulator's first tap is assigned (+0 + t == t bit for bit). M = kShift:
// every product widened by the shift pair (scaled accumulators; window variant 38).
//
// M = kParity (session 16, window variant 44): the accumulators of a run's even outputs are fed by
// the conversion instruction (unscaled, XU pipe: one issue slot per product), those of its odd
// outputs by the shift pair (scaled, two slots). A product of taps k and 10 - k goes to outputs s - k and
// s - 10 + k, an even distance apart, so both accumulators of a shared product have the same mode
// and each product is widened once; every accumulator still takes one mode only. Half the
// products by conversion keeps the XU pipe below the issue rate (all conversions measured 14 %
// slower than all shifts in session 13: the XU pipe, a quarter of the f64 rate, became the bound).
template <int M>
__host__ __device__ constexpr bool output_converted(int o) {
  return M == kCvt || (M == kParity && o % 2 == 0);
}

// M = kMix + mask (session 18, window variant 54): every accumulator unscaled; the products of
// tap class 0 (every output's first tap, so every accumulator starts unscaled) and of the classes
// in mask (bits 1..5) widened by the conversion instruction and added by DADD, the others built
// scaled by the shift pair and added by one DFMA with 2^896 (exact: the scaled term times 2^896
// is the product, so the DFMA rounds acc + p once, as the DADD would). No output needs the DMUL of
// unscale_to_f32, and the share of conversions is free of the output parity.
constexpr int kMix = 16;
template <int M>
__host__ __device__ constexpr bool class_converted(int m) {
  return m == 0 || (((M - kMix) >> m) & 1) != 0;
}
// Window 54 (the default): classes 0 and 4 by conversion, 35 % of a run's products. Session 18
// measured the share (4K K=4, ms; bench/results/session18_final/experiments.md): 37 % 0.314, 52 %
// 0.317, 70 % 0.336 and window 44's parity split 0.318 in one build; 21 % 0.311, 33-38 %
// 0.310-0.311, 40 % 0.313 in the next.
constexpr int kMix54 = kMix + 0x10;

template <int M, int R>
__device__ __forceinline__ void run_taps(const float (&x)[R + kWindowMargin], float (&out)[R]) {
  static_assert(M == kShift || M == kParity || M >= kMix, "widening mode");
  double acc[R];
#pragma unroll
  for (int s = 0; s < R + kWindowMargin; ++s) {
    double w[kWindowTaps / 2 + 1];
#pragma unroll
    for (int m = 0; m <= kWindowTaps / 2; ++m)
      if (run_needs<R>(s, m)) {
        const float p = __fmul_rn(x[s], c_gaussian[m]);
        if constexpr (M >= kMix) w[m] = class_converted<M>(m) ? widen(p) : widen_scaled_nonneg(p);
        else if constexpr (M == kParity) w[m] = output_converted<M>(s - m) ? widen(p) : widen_scaled_nonneg(p);
        else w[m] = widen_scaled_nonneg(p);
      }
#pragma unroll
    for (int o = 0; o < R; ++o) {
      const int k = s - o;
      const int m = k < kWindowTaps - 1 - k ? k : kWindowTaps - 1 - k;
      if (k == 0) acc[o] = w[0];
      else if (k > 0 && k < kWindowTaps) {
        if constexpr (M >= kMix)
          acc[o] = class_converted<M>(m) ? __dadd_rn(acc[o], w[m]) : __fma_rn(w[m], kScaleUp, acc[o]);
        else acc[o] = __dadd_rn(acc[o], w[m]);
      }
    }
  }
#pragma unroll
  for (int o = 0; o < R; ++o) {
    if constexpr (M >= kMix) out[o] = __double2float_rn(acc[o]);
    else out[o] = output_converted<M>(o) ? __double2float_rn(acc[o]) : unscale_to_f32(acc[o]);
  }
}
// Vertical pass by runs of 16 rows, results back in place: 32 columns x 4 runs = 128 tasks per
// quantity, so two quantities per round; a barrier between a round's reads and its writes (a run
// reads rows other runs write), none between rounds (they touch different quantities). The fifth
// quantity is a round of its own: on half the block (!kBalanced, session 15's window 38), or
// (kBalanced, window 44 since session 16) as runs of 8 rows over the whole block, the same taps in
// the same order for every output (4K K=4 0.334 -> 0.332 ms, the window launches 1 % shorter).
template <int M, bool kBalanced>
__device__ __forceinline__ void run_v(float (*pass)[kInH][kPassW]) {
  constexpr int R = 16, kS = R + kWindowMargin, kRuns = kTileH / R, kPerQuantity = kRuns * kTileW;
  static_assert(kThreads == 2 * kPerQuantity && kQuantities == 5, "two quantities per round, the fifth alone");
  const int c = int(threadIdx.x) % kTileW, y0 = ((int(threadIdx.x) / kTileW) % kRuns) * R;
  const int part = int(threadIdx.x) / kPerQuantity;
  constexpr int kPairedQuantities = kBalanced ? kQuantities - 1 : kQuantities;
#pragma unroll 1
  for (int q0 = 0; q0 < kPairedQuantities; q0 += 2) {
    const int q = q0 + part;
    const bool active = kBalanced || q < kQuantities;
    float x[kS], out[R];
    if (active) {
#pragma unroll
      for (int s = 0; s < kS; ++s) x[s] = pass[q][y0 + s][c];
      run_taps<M, R>(x, out);
    }
    __syncthreads();  // every run of this round has read its quantity's rows
    if (active) {
#pragma unroll
      for (int o = 0; o < R; ++o) pass[q][y0 + o][c] = out[o];
    }
  }
  if constexpr (kBalanced) {
    constexpr int R8 = 8, kS8 = R8 + kWindowMargin;
    static_assert(kTileW * (kTileH / R8) == kThreads, "the fifth quantity's runs of 8 fill the block");
    const int y8 = (int(threadIdx.x) / kTileW) * R8;
    float x[kS8], out[R8];
#pragma unroll
    for (int s = 0; s < kS8; ++s) x[s] = pass[kQuantities - 1][y8 + s][c];
    run_taps<M, R8>(x, out);
    __syncthreads();
#pragma unroll
    for (int o = 0; o < R8; ++o) pass[kQuantities - 1][y8 + o][c] = out[o];
  }
  __syncthreads();
}

// ---- Strips of tiles (session 15), the window kernel ------------------------------------------
// window_strip_kernel<M>: a block walks a vertical strip of g_window_strip tiles of one scale, top
// to bottom, and does for each tile: the horizontal pass by runs of 16 (h_task), the vertical
// pass by runs of 16 (run_v), the statistics and terms in a column-wise loop with per-thread sums
// (strip_terms) and the warp tree (strip_tree); one partial per tile, at the tile's index, so the
// partials do not depend on the strip length.
//
// What a strip saves: the horizontal pass of a tile covers its 74 input rows, the last 10 of which
// are the first 10 of the tile below. The vertical pass writes rows 0..63 only (run_v) and the
// block tree's scratch (strip_tree) lies in rows 0..63 of pass[0] and pass[1], so after a
// sign-free tile its pass rows 64..73 still hold exact horizontal sums of input rows 64..73: the
// next tile copies them (and the 10 input rows, for the generic path and the sign test) to rows
// 0..9, loads only its 64 new input rows and runs the horizontal pass over rows 10..73 (13.5 %
// less work). A horizontal sum is a function of its input row alone, whatever the widening that
// formed it, so the copied rows equal the ones the tile would compute. The sign test of a tile
// covers the copied input rows as well; a tile with a sample whose sign bit is set takes the
// signed path (window_body, full recomputation; its tree overwrites the pass rows, so the tile
// after it loads all of its rows).
//
// M = kShift: window variant 38 (session 15's default); M = kParity: variant 44 (session 16's
// default: half of the products by the conversion instruction in both passes, run_taps, and the
// lean terms, cs_terms, for ScaleJob::cs_only scales). Both give the same planes, terms and
// partials bit for bit.
// One horizontal task: the run of R sums of quantity q starting at column run * R of row r, with
// run_taps<M, R>'s arithmetic; the quantity's samples as window_h_one forms them).
template <int M, int R>
__device__ __forceinline__ void h_task(float (*in)[kInH][kInStride], float (*pass)[kInH][kPassW], int q, int run,
                                       int r) {
  constexpr int kS = R + kWindowMargin, kVectors = (kS + 3) / 4;
  static_assert(kTileW - R + 4 * kVectors <= kInStride && R % 4 == 0, "a run's vectors stay in its row");
  const int c0 = run * R;
  // 16-byte loads (session 18): the samples of a run in kVectors loads instead of kS.
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
      put(j, make_float4(__fmul_rn(a.x, b.x), __fmul_rn(a.y, b.y), __fmul_rn(a.z, b.z), __fmul_rn(a.w, b.w)));
    }
  } else {
    const float4* p = q == 2 ? pr : pd;
#pragma unroll
    for (int j = 0; j < kVectors; ++j) {
      const float4 a = p[j];
      put(j, make_float4(__fmul_rn(a.x, a.x), __fmul_rn(a.y, a.y), __fmul_rn(a.z, a.z), __fmul_rn(a.w, a.w)));
    }
  }
  run_taps<M, R>(*reinterpret_cast<const float(*)[kS]>(x), o16);
  float* out = &pass[q][r][c0];
  // 8-byte stores (session 18): kPassW = 2 x odd puts a half-warp's rows on different bank pairs.
#pragma unroll
  for (int o = 0; o < R; o += 2) *reinterpret_cast<float2*>(out + o) = make_float2(o16[o], o16[o + 1]);
}

// Horizontal pass over input rows r0..in_rows-1 (r0 = 0, or kWindowMargin after a copy): tasks
// (quantity, run, row), a warp's lanes on neighbouring rows (odd strides: no bank conflicts).
template <int M>
__device__ __forceinline__ void strip_h(float (*in)[kInH][kInStride], float (*pass)[kInH][kPassW], int r0,
                                        int in_rows) {
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
    h_task<M, R>(in, pass, q, run, r);
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
  double unused;
  lcs_terms<true, false>(mu_r, mu_d, sum_rr, sum_dd, sum_rd, unused, c, s);
}

// The statistics, terms (lcs_terms<true>) and per-thread sums of a tile, in a column-wise loop (each
// thread keeps its column, tid % 32, and steps down the rows by 8), then strip_tree. kCsOnly
// (ScaleJob::cs_only, no taps): the c and s sums alone, the l and ssim partials left at 0.
template <bool kCsOnly = false>
__device__ __forceinline__ void strip_terms(float (*pass)[kInH][kPassW], const WindowTaps& taps, PartialSum* partials,
                                            int tile, Size map, int x0, int y0, int cols, int rows) {
  double plain[kSumQuantities] = {};
  const int c = int(threadIdx.x) % kTileW;
  constexpr int kRowStep = kThreads / kTileW;
  // Two rows per iteration give the scheduler two independent division chains (the per-thread
  // sums still take the rows in order; 4K K=4 -0.5 %, session 17).
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

// Input rows r0..in_rows-1 of a tile (load_window_rows); whether one has its sign bit set.
__device__ __forceinline__ unsigned load_strip_rows(const ScaleJob& job, float (*in)[kInH][kInStride], int x0, int y0,
                                                    int r0, int in_rows, int in_cols) {
  const Size size = job.ref.size;
  const float inverse_r = inverse_divisor(job.ref.bit_depth), inverse_d = inverse_divisor(job.dis.bit_depth);
  // in rows from r0: the same [2][kInH][kInStride] layout shifted by r0 rows.
  auto at = reinterpret_cast<float(*)[kInH][kInStride]>(&in[0][r0][0]);
  const int y = y0 + r0, n = in_rows - r0;
  if (job.ref.type == job.dis.type) {
    const size_t width = size_t(size.width);
    if (job.ref.type == SampleType::kU8 && in_cols == kInW && words_aligned(job.ref.data, job.dis.data, width)) {
      load_window_words(job.ref.data, job.dis.data, width, x0, y, n, inverse_r, inverse_d, at);
      return 0;  // unsigned samples: never negative
    }
    if (job.ref.type == SampleType::kU8)
      return load_window_rows<uint8_t>(job.ref.data, job.dis.data, width, x0, y, n, in_cols, inverse_r, inverse_d, at);
    if (job.ref.type == SampleType::kU16)
      return load_window_rows<uint16_t>(job.ref.data, job.dis.data, width, x0, y, n, in_cols, inverse_r, inverse_d,
                                        at);
    if (in_cols == kInW && vectors_aligned(job.ref.data, job.dis.data, width))
      return load_window_vectors(job.ref.data, job.dis.data, width, x0, y, n, at);
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

template <int M>
__global__ void __launch_bounds__(kThreads, 3) window_strip_kernel(const __grid_constant__ StripTable st) {
  static_assert(M == kShift || M == kParity || M == kMix54, "window variants 38, 44, 54");
  constexpr bool kLean = M != kShift;  // the lean terms for cs_only scales (variants 44, 54)
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
    if (any_negative) {  // the signed path; its tree overwrites the pass rows
      window_body<kCvt, kCvt, kShift, kShift, kSigned>(in, pass, smem, job.taps, partials, tile, map, x0, y0, cols, rows,
                                                       in_rows);
      __syncthreads();  // partials read from the tree before the next tile's loads and copies
      have_prev = false;
      continue;
    }
    strip_h<M>(in, pass, r0, in_rows);
    __syncthreads();
    run_v<M, kLean>(pass);
    if (kLean && job.cs_only && !job.taps.mu_r) strip_terms<true>(pass, job.taps, partials, tile, map, x0, y0, cols, rows);
    else strip_terms(pass, job.taps, partials, tile, map, x0, y0, cols, rows);
    have_prev = rows == kTileH;
  }
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

// ---- Speed variants --------------------------------------------------------------------------------
// Kept since session 16's pruning (docs/float_ms_ssim.md, "Session 16: pruning"); the numbers are
// the ones the measurements in the docs use.
// Window (VQX_SSIM_WIN): 54 = window_strip_kernel<kMix54> (default since session 18: unscaled
// accumulators, tap classes 0 and 4 widened by conversion, a third of the products; with the
// session's vector loads and stores 4K K=4 0.323 -> 0.310 ms); 44 = window_strip_kernel<kParity>
// (session 16's default: half of the products by conversion, chosen by output parity; lean terms
// for cs_only scales in both); 38 = window_strip_kernel<kShift> (session 15's, the comparison).
// Strips of 2 tiles (VQX_SSIM_STRIP) in launches of at least 1000 tiles (VQX_SSIM_STRIP_MIN; 4K's
// scale-0 bands and scales 1-4; at 1080p every launch is smaller, so tiles stay single there:
// fewer, longer blocks left the GPU half empty with one frame in flight).
// Decimation (VQX_SSIM_DEC): 32 = decimate_rows_kernel for raw inputs of 3000x2000 samples and up
// (4K's level 1: 0.343 -> 0.335 ms at K=4), else 26 (session 16's default); 26 =
// decimate_sweep2_kernel for inputs of 2e6 samples and up (1080p's level 1, 4K's levels 1 and 2),
// decimate_kernel below (session 14's default); 28 = decimate_rows_kernel for every raw input
// (level 1; at 1080p the 128 x 64 blocks leave the GPU half empty with one frame in flight: K=1
// 0.107 -> 0.119 ms), 26's kernels for the f32 levels; 34 (default since session 18) = 32 with
// decimate_row_runs_kernel (runs of 4 output columns sharing the products of equal |u - 4|; 4K's
// level 1 64.9 -> 47.8 us, K=4 0.310 -> 0.300 ms) in place of decimate_rows_kernel.
// Reduce (VQX_SSIM_RED): 1 = 1024-thread trees (default), 0 = 256 threads (a different fixed tree).
// Any other value of a knob selects the default.
constexpr int kDefaultWindow = 54, kDefaultStrip = 2, kDefaultStripMinTiles = 1000;
constexpr int kDefaultDecimate = 34, kDefaultReduce = 1;
constexpr size_t kRowsMinPixels = size_t(3000) * 2000;  // decimation 32: decimate_rows_kernel from here
constexpr size_t kSweepMinPixels = size_t(2000000);      // decimation 26: decimate_sweep2_kernel from here

int window_or_default(int v) { return v == 38 || v == 44 || v == 54 ? v : kDefaultWindow; }
int decimate_or_default(int v) { return v == 26 || v == 28 || v == 32 || v == 34 ? v : kDefaultDecimate; }

int g_window_variant = window_or_default(knob("VQX_SSIM_WIN", kDefaultWindow));
int g_decimate_variant = decimate_or_default(knob("VQX_SSIM_DEC", kDefaultDecimate));
int g_reduce_variant = std::clamp(knob("VQX_SSIM_RED", kDefaultReduce), 0, 1);
const void* window_kernel_of(int variant) {
  switch (variant) {
    case 38: return reinterpret_cast<const void*>(window_strip_kernel<kShift>);
    case 44: return reinterpret_cast<const void*>(window_strip_kernel<kParity>);
    default: return reinterpret_cast<const void*>(window_strip_kernel<kMix54>);
  }
}
// Session 15: tiles per strip (VQX_SSIM_STRIP; 1 = every tile on its own).
int g_window_strip = std::clamp(knob("VQX_SSIM_STRIP", kDefaultStrip), 1, 64);
// Launches with fewer tiles than this run one tile per block (VQX_SSIM_STRIP_MIN; 1 = strips
// everywhere).
int g_window_strip_min = std::max(1, knob("VQX_SSIM_STRIP_MIN", kDefaultStripMinTiles));
int tiles_x(Size plane) { return (map_size(plane).width + kTileW - 1) / kTileW; }
int tiles_y(Size plane) { return (map_size(plane).height + kTileH - 1) / kTileH; }

}  // namespace

SpeedVariants speed_variants() {
  return {g_window_variant, g_decimate_variant, g_reduce_variant, g_window_strip, g_window_strip_min};
}

void set_speed_variants(SpeedVariants v) {
  g_window_variant = window_or_default(v.window);
  if (v.strip > 0) g_window_strip = std::min(v.strip, 64);
  if (v.strip_min_tiles > 0) g_window_strip_min = v.strip_min_tiles;
  g_decimate_variant = decimate_or_default(v.decimate);
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
  for (int k = 0; k < kWindowTaps; ++k)  // run_taps shares the products of taps k and 10-k
    if (std::memcmp(&kGaussian[k], &kGaussian[kWindowTaps - 1 - k], sizeof(float)) != 0)
      throw std::logic_error("ssim: kGaussian is not symmetric bit for bit");
  // decimate_sweep2_kernel and decimate_row_runs_kernel share the products of taps u and 8-u.
  for (int v = 0; v < kLpfTaps; ++v)
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
      if ((kLpf[v][u] < 0.0f) != lpf_entry_negative(v, u) || kLpf[v][u] == 0.0f)
        throw std::logic_error("ssim: kLpf's sign pattern is not the one the device code assumes");
      magnitude[v][u] = std::fabs(kLpf[v][u]);
    }
  check(cudaMemcpyToSymbol(c_lpf_abs, magnitude, sizeof(c_lpf_abs)), "ssim: decimation table magnitudes");
  for (int variant : {38, 44, 54})
    check(cudaFuncSetAttribute(window_kernel_of(variant), cudaFuncAttributeMaxDynamicSharedMemorySize, int(kWindowSmem)),
          "ssim: window kernel shared memory");
}
namespace {
// Session 16's level-1 kernel (decimate_rows.cuh) for raw luma: 64 output rows per block, row
// sums of classes 0 and 1 by conversion.
template <typename T>
void launch_decimate_rows(const DevicePlane& ref, const DevicePlane& dis, float* out_ref, float* out_dis,
                          cudaStream_t stream) {
  constexpr int kRows = 64;
  const Size half = half_size(ref.size);
  const dim3 grid(unsigned((half.width + kDrThreads - 1) / kDrThreads), unsigned((half.height + kRows - 1) / kRows), 2);
  decimate_rows_kernel<T, kRows, 0x03><<<grid, kDrThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half);
  vqx::cuda::check_launch("ssim: decimate_rows_kernel");
}
// Session 18's runs of 4 output columns (decimation 34): one warp per 128 x 32 block (a quarter
// of the rows kernel's threads: more blocks against the longer halo of 4 steps; 64 rows per block
// measured the same at K=4 and slower at K=1). Row class 1 by conversion (kCvtMask 0x02: level 1
// 47.8 us against 49.4 with classes 0 and 1, 4K K=4 0.301 -> 0.300 ms).
template <typename T>
void launch_decimate_row_runs(const DevicePlane& ref, const DevicePlane& dis, float* out_ref, float* out_dis,
                              cudaStream_t stream) {
  constexpr int kRows = 32;
  const Size half = half_size(ref.size);
  const dim3 grid(unsigned((half.width + kRnCols - 1) / kRnCols), unsigned((half.height + kRows - 1) / kRows), 2);
  decimate_row_runs_kernel<T, kRows, 0x02><<<grid, kRnThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half);
  vqx::cuda::check_launch("ssim: decimate_row_runs_kernel");
}
}  // namespace

void enqueue_decimate(const DevicePlane& ref, const DevicePlane& dis, float* out_ref, float* out_dis,
                      cudaStream_t stream) {
  const Size half = half_size(ref.size);
  const int variant = g_decimate_variant;
  const bool rows = variant == 28 || ((variant == 32 || variant == 34) && ref.size.pixels() >= kRowsMinPixels);
  if (rows && ref.type == dis.type && ref.type != SampleType::kF32) {
    if (variant == 34) {
      if (ref.type == SampleType::kU8) launch_decimate_row_runs<uint8_t>(ref, dis, out_ref, out_dis, stream);
      else launch_decimate_row_runs<uint16_t>(ref, dis, out_ref, out_dis, stream);
      return;
    }
    if (ref.type == SampleType::kU8) launch_decimate_rows<uint8_t>(ref, dis, out_ref, out_dis, stream);
    else launch_decimate_rows<uint16_t>(ref, dis, out_ref, out_dis, stream);
    return;
  }
  // Variant 26's choice (also 28's and 32's for the f32 levels).
  if (ref.size.pixels() >= kSweepMinPixels) {
    const dim3 sweep(unsigned((half.width + kSwW - 1) / kSwW), unsigned((half.height + kSwH - 1) / kSwH), 2);
    decimate_sweep2_kernel<<<sweep, kSwThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half);
    vqx::cuda::check_launch("ssim: decimate_sweep2_kernel");
    return;
  }
  const dim3 grid(unsigned((half.width + kDecTileW - 1) / kDecTileW), unsigned((half.height + kDecTileH - 1) / kDecTileH));
  decimate_kernel<<<grid, kDecThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half);
  vqx::cuda::check_launch("ssim: decimate_kernel");
}

static_assert(kTileH == kWindowTileRows, "float_ms_ssim_cuda.cpp cuts scale 0 into bands of whole tile rows");

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
  size_t tiles = 0;
  for (int j = 0; j < count; ++j) tiles += partial_count(jobs[j].ref.size);
  // A block per strip of g_window_strip tiles in large launches, else per tile.
  const int per_block = tiles >= size_t(g_window_strip_min) ? g_window_strip : 1;
  for (int j = 0; j < count; ++j) {
    t.job[j] = jobs[j];
    t.partials[j] = partials[j];
    t.tiles_x[j] = tiles_x(jobs[j].ref.size);
    t.block_begin[j] = blocks;
    blocks += tiles_x(jobs[j].ref.size) * ((tiles_y(jobs[j].ref.size) + per_block - 1) / per_block);
  }
  t.block_begin[count] = blocks;
  StripTable st{t, per_block};
  void* args[] = {&st};
  vqx::cuda::check(cudaLaunchKernel(window_kernel_of(g_window_variant), dim3(unsigned(blocks)), dim3(kThreads), args,
                                    kWindowSmem, stream),
                   "ssim: window_kernel launch");
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
