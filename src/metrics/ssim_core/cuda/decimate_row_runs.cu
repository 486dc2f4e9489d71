// Level 1 of the pyramid (spec 3.3) from raw 8- or 16-bit luma of 3000x2000 samples and up
// (enqueue_decimate: 4K's level 1), by row sums shared between output rows and products shared
// within runs of output columns.
//
// Why it is exact. At level 1 every f64 partial sum of an output's 81 products is exact, in any
// order and grouping (decimate_sweep.cu's comment; ssim_tables.cuh checks the bound), so the
// output is f32 of the exact sum whatever the order, as the CPU's sequential sum is. That frees
// the grouping:
// - kLpf is symmetric in v (row v == row 8 - v), so the products of input row r with table row v,
//   summed over the 9 columns u (a "row sum"), are the same numbers for output y (v = r - 2y + 4)
//   and for output y + v - 4 (table row 8 - v): a row sum is formed once and added to both.
// - kLpf is symmetric in u as well, so within a run of 4 neighbouring output columns x..x+3 a
//   sample at input column 2x - 4 + i meets output x + j at u = i - 2j, and its products with
//   entries of equal |u - 4| are the same f32 number: each distinct (sample, table row, |u - 4|)
//   product is formed and widened once and added to every row sum of the run that takes it (30
//   products per table row and run instead of 36; 15 samples per input row instead of 36, read
//   as 4 vector words). Each output's row sum still gets its 9 terms, starting with a positive
//   entry.
//
// Shape: a block is one warp of 32 threads, 128 output columns by 32 output rows; a thread owns a
// run of 4 output columns and walks its block's output rows. Step q takes input rows 2q (classes
// c = |v - 4| = 0, 2, 4) and 2q + 1 (classes 1, 3) and adds their row sums to outputs q-2..q+2 (a
// window of 5 scaled f64 accumulators per column); after step q output q-2 is complete. Each
// step's two input rows are loaded by the block into shared memory, double-buffered with one
// barrier per step; a thread fetches the next step's samples into registers before it computes
// the current one.
//
// Widening: the products of the classes in kRowSumsByConversion by the conversion instruction (an
// unscaled row sum, added to the scaled window by one DFMA with 2^-896: exact, the sum being
// exact), the others by the shift pair. Products with a negative table entry are formed with
// |entry| (sign-free) and subtracted; each row sum starts with a positive entry, so nothing is ever
// -0 (the CPU's sum, starting at +0, never is either).
#include <cstdint>

#include "engine/cuda/cuda_check.h"
#include "metrics/ssim_core/cuda/decimate_launch.h"
#include "metrics/ssim_core/cuda/ssim_device.cuh"
#include "metrics/ssim_core/cuda/ssim_tables.cuh"

namespace vqx::ssim::cuda {
namespace {

constexpr int kRnRows = 32;                 // output rows per block
constexpr int kRowSumsByConversion = 0x02;  // row class 1; the others by the shift pair
constexpr int kRnHalo = 2;                  // a step adds to outputs q-2..q+2
constexpr int kRnWindow = 2 * kRnHalo + 1;

// First column of table row 4 + c with a positive entry (row sums start with it).
__host__ __device__ constexpr int rn_first(int c) {
  for (int u = 0; u < kLpfTaps; ++u)
    if (!lpf_entry_negative(kLpfRadius + c, u)) return u;
  return -1;
}

// acc (scaled) + the row sum of class c.
template <int c>
__device__ __forceinline__ double rn_add(double acc, double row_sum) {
  if constexpr ((kRowSumsByConversion >> c) & 1)
    return __fma_rn(row_sum, 0x1p-896, acc);
  else
    return __dadd_rn(acc, row_sum);
}

// The row sum of class c as a scaled accumulator's first value.
template <int c>
__device__ __forceinline__ double rn_start(double row_sum) {
  if constexpr ((kRowSumsByConversion >> c) & 1)
    return __dmul_rn(row_sum, 0x1p-896);
  else
    return row_sum;
}

// Step q's two input rows 2q and 2q + 1 (reflected; rows past height + 3 feed no output and are
// clamped so that the single reflection stays valid) at this thread's kSlots columns col[].
template <typename T, int kSlots>
__device__ __forceinline__ void fetch_step_rows(const T* in, Size size, int q,
                                                const int (&col)[kSlots], T (&fetched)[2][kSlots]) {
#pragma unroll
  for (int row = 0; row < 2; ++row) {
    const int r = reflect_index(min(2 * q + row, size.height - 1 + kLpfRadius), size.height);
    const T* line = in + size_t(r) * size_t(size.width);
#pragma unroll
    for (int k = 0; k < kSlots; ++k) fetched[row][k] = line[col[k]];
  }
}

// Shared rows: an input row's columns in quads of 4 (quad g = columns 4g..4g+3), even and odd
// quads apart, so that thread t reads quads 2t..2t+3 as even[t], odd[t], even[t + 1], odd[t + 1]:
// neighbouring threads read neighbouring 16-byte words. The odd quads start 16 banks after the even
// ones (the stores of a warp then hit 32 distinct banks).

constexpr int kRnRun = 4;                                  // output columns per thread
constexpr int kRnThreads = 32;                             // one warp per block
constexpr int kRnCols = kRnRun * kRnThreads;               // output columns per block
constexpr int kRnRunSamples = 2 * kRnRun + kLpfTaps - 2;   // input columns of a run: 15
constexpr int kRnRowSamples = 2 * kRnCols + kLpfTaps - 2;  // input columns of a block: 263
constexpr int kRnRowSlots =
    (kRnRowSamples + kRnThreads - 1) / kRnThreads;  // loads per thread and row
constexpr int kRnQuadStride = 36;                   // quads per parity class (33 used)
constexpr int kRnRowFloats = 2 * 4 * kRnQuadStride;
static_assert(kRnRun == 4 && kRnRunSamples <= 16, "a run reads 4 quads of each input row");
static_assert(kRnThreads % 8 == 0,
              "slot k of thread t is column t + 32k: the same quad lane and parity");
static_assert(kRnQuadStride >= (kRnRowSamples + 7) / 8, "the quads of one parity class fit");
static_assert(4 * kRnQuadStride % 32 == 16, "the odd quads start 16 banks after the even ones");
static_assert(kRnRowSlots == 9, "a thread loads columns t + 32k, k < 8, and (t < 7) t + 256");

// Whether some output j of a run uses sample i with an entry at distance d = |u - 4|, u = i - 2j.
__host__ __device__ constexpr bool rn_uses(int i, int d) {
  for (int j = 0; j < kRnRun; ++j) {
    const int u = i - 2 * j;
    if (u >= 0 && u < kLpfTaps && (u < kLpfRadius ? kLpfRadius - u : u - kLpfRadius) == d)
      return true;
  }
  return false;
}
static_assert(
    [] {
      int n = 0;
      for (int i = 0; i < kRnRunSamples; ++i)
        for (int d = 0; d <= kLpfRadius; ++d) n += rn_uses(i, d);
      return n;
    }() == 30,
    "30 distinct products per table row and run");

// The row sums of class c (table row 4 + c) of the run's 4 outputs over its 15 samples s[i]
// (each product formed once): scaled when c is not in kRowSumsByConversion, unscaled when it is.
template <int c>
__device__ __forceinline__ void rn_row_sums(const float (&s)[16], double (&rs)[kRnRun]) {
  constexpr int v = kLpfRadius + c, first = rn_first(c);
  static_assert(first >= 0, "a positive entry in every table row");
  constexpr bool kCvt = (kRowSumsByConversion >> c) & 1;
  double w[kRnRunSamples][kLpfRadius + 1];  // w[i][d]: s[i] * |kLpf[v][4 + d]|, widened
#pragma unroll
  for (int i = 0; i < kRnRunSamples; ++i)
#pragma unroll
    for (int d = 0; d <= kLpfRadius; ++d)
      if (rn_uses(i, d)) {
        const float p = __fmul_rn(s[i], c_tables.lpf_abs[v][kLpfRadius + d]);
        w[i][d] = kCvt ? widen(p) : widen_scaled_nonneg(p);
      }
#pragma unroll
  for (int j = 0; j < kRnRun; ++j) {
    auto term = [&](int u) -> double {
      return w[2 * j + u][u < kLpfRadius ? kLpfRadius - u : u - kLpfRadius];
    };
    double sum = term(first);
#pragma unroll
    for (int u = 0; u < kLpfTaps; ++u) {
      if (u == first) continue;
      sum = lpf_entry_negative(v, u) ? __dsub_rn(sum, term(u)) : __dadd_rn(sum, term(u));
    }
    rs[j] = sum;
  }
}

// The 15 samples of thread t's run from one shared input row (s[15] is the next run's: unused).
__device__ __forceinline__ void rn_samples(const float* row, int t, float (&s)[16]) {
  const float4* quads = reinterpret_cast<const float4*>(row);
#pragma unroll
  for (int m = 0; m < 4; ++m) {
    const float4 q = quads[(m & 1) * kRnQuadStride + t + (m >> 1)];
    s[4 * m] = q.x;
    s[4 * m + 1] = q.y;
    s[4 * m + 2] = q.z;
    s[4 * m + 3] = q.w;
  }
}

// The window of 5 accumulators per column is shifted after each step, not rotated by unrolling the
// step loop 5 times: the unrolled form (about 4,500 instructions, 70 KB of code) is slower, the
// instruction cache being shared with the window kernels.
template <typename T>
__global__ void __launch_bounds__(kRnThreads)
    decimate_row_runs_kernel(DevicePlane ref, DevicePlane dis, float* out_ref, float* out_dis,
                             Size half) {
  // [buffer][input row of the step: 2q, 2q+1][parity class][quad][lane]
  __shared__ __align__(16) float rows[2][2][kRnRowFloats];
  const bool second = blockIdx.z != 0;
  const T* in = static_cast<const T*>(second ? dis.data : ref.data);
  const Size size = second ? dis.size : ref.size;
  const float inverse = inverse_divisor(second ? dis.bit_depth : ref.bit_depth);
  float* out = second ? out_dis : out_ref;
  const int t = int(threadIdx.x), x0 = int(blockIdx.x) * kRnCols, x = x0 + kRnRun * t;
  const int y0 = int(blockIdx.y) * kRnRows, y_last = min(y0 + kRnRows, half.height) - 1;
  // This thread's loads: block column cc = t + 32k of each row, input column 2 x0 - 4 + cc
  // reflected (columns past width + 3 feed no output, only blocks past a narrow plane's edge reach
  // them: clamped so that the single reflection stays valid), stored at quad cc / 4 (parity class
  // (cc / 4) & 1, position cc / 8), lane cc & 3: store_at + 16k; k = 8 only for cc < 263.
  int col[kRnRowSlots];
#pragma unroll
  for (int k = 0; k < kRnRowSlots; ++k)
    col[k] = reflect_index(min(2 * x0 - kLpfRadius + min(t + kRnThreads * k, kRnRowSamples - 1),
                               size.width - 1 + kLpfRadius),
                           size.width);
  const bool last_slot = t + kRnThreads * (kRnRowSlots - 1) < kRnRowSamples;
  const int store_at = ((t >> 2) & 1) * 4 * kRnQuadStride + (t >> 3) * 4 + (t & 3);
  const int q_first = y0 - kRnHalo, q_end = y_last + kRnHalo + 1;
  T fetched[2][kRnRowSlots];
  auto fetch = [&](int q) { fetch_step_rows(in, size, q, col, fetched); };
  // Whole runs inside the plane store one 16-byte word.
  const bool vector_store =
      half.width % kRnRun == 0 && (reinterpret_cast<uintptr_t>(out) & 15) == 0;
  float* const out_run = out + x;
  fetch(q_first);
  double acc[kRnRun][kRnWindow] = {};
#pragma unroll 1
  for (int q = q_first; q < q_end; ++q) {
#pragma unroll
    for (int row = 0; row < 2; ++row)
#pragma unroll
      for (int k = 0; k < kRnRowSlots; ++k)
        if (k + 1 < kRnRowSlots || last_slot)
          rows[q & 1][row][store_at + (kRnThreads / 2) * k] = to_sample(fetched[row][k], inverse);
    __syncthreads();  // this step's rows stored; the step that last read this buffer is done
    fetch(q + 1);
    // Output q + d's accumulator (the window is shifted after each step).
    auto at = [&](int n, int d) -> double& { return acc[n][d + kRnHalo]; };
    const int y = q - kRnHalo;
    float s[16];
    double rs[kRnRun];
    // Input row 2q: classes 4 (output q - 2 completes; output q + 2 starts), 2, 0.
    rn_samples(rows[q & 1][0], t, s);
    rn_row_sums<4>(s, rs);
    float done[kRnRun];
#pragma unroll
    for (int n = 0; n < kRnRun; ++n) {
      done[n] = unscale_to_f32(rn_add<4>(at(n, -kRnHalo), rs[n]));
      at(n, kRnHalo) = rn_start<4>(rs[n]);  // its slot held output q - 3, complete
    }
    if (y >= y0 && y <= y_last) {
      float* o = out_run + size_t(y) * size_t(half.width);
      if (vector_store && x < half.width) {
        *reinterpret_cast<float4*>(o) = make_float4(done[0], done[1], done[2], done[3]);
      } else {
#pragma unroll
        for (int n = 0; n < kRnRun; ++n)
          if (x + n < half.width) o[n] = done[n];
      }
    }
    rn_row_sums<2>(s, rs);
#pragma unroll
    for (int n = 0; n < kRnRun; ++n) {
      at(n, -1) = rn_add<2>(at(n, -1), rs[n]);
      at(n, 1) = rn_add<2>(at(n, 1), rs[n]);
    }
    rn_row_sums<0>(s, rs);
#pragma unroll
    for (int n = 0; n < kRnRun; ++n) at(n, 0) = rn_add<0>(at(n, 0), rs[n]);
    // Input row 2q + 1: classes 3, 1.
    rn_samples(rows[q & 1][1], t, s);
    rn_row_sums<3>(s, rs);
#pragma unroll
    for (int n = 0; n < kRnRun; ++n) {
      at(n, -1) = rn_add<3>(at(n, -1), rs[n]);
      at(n, kRnHalo) = rn_add<3>(at(n, kRnHalo), rs[n]);
    }
    rn_row_sums<1>(s, rs);
#pragma unroll
    for (int n = 0; n < kRnRun; ++n) {
      at(n, 0) = rn_add<1>(at(n, 0), rs[n]);
      at(n, 1) = rn_add<1>(at(n, 1), rs[n]);
    }
#pragma unroll
    for (int n = 0; n < kRnRun; ++n)
#pragma unroll
      for (int d = 0; d + 1 < kRnWindow; ++d) acc[n][d] = acc[n][d + 1];
  }
}

}  // namespace

void enqueue_decimate_row_runs(const DevicePlane& ref, const DevicePlane& dis, float* out_ref,
                               float* out_dis, cudaStream_t stream) {
  const Size half = half_size(ref.size);
  const dim3 grid(unsigned((half.width + kRnCols - 1) / kRnCols),
                  unsigned((half.height + kRnRows - 1) / kRnRows), 2);
  if (ref.type == SampleType::kU8)
    decimate_row_runs_kernel<uint8_t>
        <<<grid, kRnThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half);
  else
    decimate_row_runs_kernel<uint16_t>
        <<<grid, kRnThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half);
  vqx::cuda::check_launch("ssim: decimate_row_runs_kernel");
}

}  // namespace vqx::ssim::cuda
