// The pyramid's decimation by sliding runs (spec 3.2, 3.3) for planes of 2e6 samples and up
// (enqueue_decimate): 1080p's level 1, 4K's levels 1 (16-bit) and 2.
//
// One image per block (blockIdx.z), 64 x 32 outputs; a thread owns a run of 8 neighbouring
// outputs of one row and walks the 9 input rows and the 23 input columns of the run once per row.
// kLpf is symmetric in u (ssim_tables.cuh), so a sample's products with taps u and 8-u of the same
// row are one f32, formed and widened once and added to both outputs' accumulators; every
// accumulator still adds its 81 taps rows outer, columns inner (spec 3.3). The tile is stored
// split by column and row parity and transposed ([col parity][row parity][col][row]), so the 32
// threads of a warp (32 neighbouring output rows) read 32 neighbouring words.
//
// - A row loader (load_sweep_rows): reflected column indices and shared-memory offsets once
//   per thread, the row once per row, all of a thread's loads of three rows in flight; full tiles
//   away from the borders by load_sweep_rows_interior.
// - For raw luma (level 1) only: two accumulators per output, one fed by the f32->f64 conversion
//   (XU pipe) and one by the scaled shift widening (ALU), products of the column classes in
//   kSplitMask going to the first. Exact because at level 1 every partial sum is exact (so their
//   order and grouping cannot change the sum): the samples are k / 2^(bpc-8) with bpc <= 16, so a
//   nonzero product is >= 2^-8 * min|kLpf| >= 2^-20 and a multiple of 2^-43 (its f32 rounding keeps
//   that), and every partial sum is below 256 * sum|kLpf| < 2^9 in magnitude: at most 52
//   significant bits (ssim_tables.cuh checks min|kLpf| >= 2^-12 and sum|kLpf| < 2). The output
//   f32(acc_c + acc_s * 2^896) is then f32 of the exact sum, which the CPU's sequential f64 sum
//   also is. Other levels (f32 samples of any magnitude) keep one accumulator per output, in the
//   CPU's order (sweep_taps with kMask = 0).
#include "engine/cuda/cuda_check.h"
#include "metrics/ssim_core/cuda/decimate_launch.h"
#include "metrics/ssim_core/cuda/ssim_device.cuh"
#include "metrics/ssim_core/cuda/ssim_tables.cuh"

namespace vqx::ssim::cuda {
namespace {

constexpr int kSwRun = 8, kSwRuns = 8, kSwW = kSwRun * kSwRuns, kSwH = 32,
              kSwThreads = kSwRuns * kSwH;
// kSwRowsHalf is padded to an odd stride (fewer bank conflicts when the tile is stored).
constexpr int kSwCols = kSwW + kLpfRadius, kSwRowsHalf = kSwH + kLpfRadius + 1;
constexpr int kSwSamples = 2 * kSwRun + kLpfTaps - 2;  // input columns a run reads per row
static_assert(kSwThreads == 256 && 2 * 2 * kSwCols * kSwRowsHalf >= kSwW * kSwH,
              "tile reuse for the outputs");

__host__ __device__ constexpr int lpf_class(int u) {
  return u < kLpfTaps - 1 - u ? u : kLpfTaps - 1 - u;
}

__host__ __device__ constexpr bool sweep_needs(int c, int m) {
  for (int o = 0; o < kSwRun; ++o) {
    const int u = c - 2 * o;
    if (u >= 0 && u < kLpfTaps && lpf_class(u) == m) return true;
  }
  return false;
}

// The column classes (lpf_class) whose products go to the conversion accumulator at level 1: {2, 3,
// 4}; the others are widened by two 32-bit shifts (widen_scaled_nonneg).
constexpr unsigned kSplitMask = 0x1cu;

// The kSwRun outputs of a run. kNonneg: sign-free samples (products a * |g|, subtracted where
// g < 0, ssim_device.cuh; shift widening); else signed samples (widen_scaled). kMask != 0 (raw
// luma, kNonneg): the products of the column classes in kMask go to a second, unscaled accumulator
// fed by the conversion instruction, and the output is f32(acc_c + acc_s * 2^896) (exact sums,
// above). kMix (the sign-free f32 levels, single scaled accumulator): the products of the classes
// in kMix widened by the conversion instruction and added by one DFMA with +-2^-896 (exact: the
// product times 2^-896 is the shifted widening's term, so the DFMA rounds as the DADD / DSUB
// would), the others by the shift pair: fewer issue slots for a little of the XU pipe.
template <bool kNonneg, unsigned kMask = 0, unsigned kMix = 0>
__device__ __forceinline__ void sweep_taps(const float (*t)[2][kSwCols][kSwRowsHalf], int jr, int y,
                                           float (&out)[kSwRun]) {
  static_assert(kMask == 0 || kNonneg, "split accumulators for sign-free samples only");
  static_assert(kMix == 0 || (kNonneg && kMask == 0), "mixed widening into the single accumulator");
  double acc_s[kSwRun], acc_c[kSwRun];
#pragma unroll
  for (int o = 0; o < kSwRun; ++o) {
    if constexpr (kMask != 0)
      acc_s[o] = acc_c[o] = 0.0;
    else
      acc_s[o] = 0.0;
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
            w[m] = widen_scaled(__fmul_rn(a, c_tables.lpf[v][m]));
          } else {
            const float p = __fmul_rn(a, c_tables.lpf_abs[v][m]);
            w[m] = ((kMask | kMix) >> m) & 1u ? widen(p) : widen_scaled_nonneg(p);
          }
        }
#pragma unroll
      for (int o = 0; o < kSwRun; ++o) {
        const int u = c - 2 * o;
        if (u >= 0 && u < kLpfTaps) {
          const int m = lpf_class(u);
          double& acc = (kMask >> m) & 1u ? acc_c[o] : acc_s[o];
          if ((kMix >> m) & 1u)
            acc = __fma_rn(w[m], lpf_entry_negative(v, u) ? -0x1p-896 : 0x1p-896, acc);
          else if (kNonneg && lpf_entry_negative(v, u))
            acc = __dsub_rn(acc, w[m]);
          else
            acc = __dadd_rn(acc, w[m]);
        }
      }
    }
  }
#pragma unroll
  for (int o = 0; o < kSwRun; ++o) {
    if constexpr (kMask != 0)
      out[o] = __double2float_rn(__dadd_rn(acc_c[o], __dmul_rn(acc_s[o], kScaleUp)));
    else
      out[o] = unscale_to_f32(acc_s[o]);
  }
}

// The sweep tile by rows: a warp per input row (rows warp, warp + 8, ...: the same row
// parity, so a thread's shared-memory offsets differ only by a constant per row), lanes over
// columns, column indices reflected once per thread; three rows' loads in flight at a time.
template <typename T>
__device__ __forceinline__ unsigned load_sweep_rows(const void* data, Size size, int x0, int y0,
                                                    int load_rows, int load_cols, float inverse,
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
          r < load_rows
              ? unsigned(reflect_index(2 * y0 + r - kLpfRadius, size.height)) * unsigned(size.width)
              : 0u;
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

// A full tile whose input needs no reflection: no index arithmetic per sample beyond one multiply
// per row, loads and stores at constant offsets, bounds tests only in the last
// column pass and the last row step (compile-time).
template <typename T>
__device__ __forceinline__ unsigned load_sweep_rows_interior(const void* data, unsigned width,
                                                             int x0, int y0, float inverse,
                                                             float (*t)[2][kSwCols][kSwRowsHalf]) {
  constexpr int kCols = (2 * kSwW + kLpfTaps - 2 + 31) / 32;                  // 5 column passes
  constexpr int kRowSteps = (2 * kSwH + kLpfTaps - 2 + kWarps - 1) / kWarps;  // 9 rows per warp
  constexpr int kLastLanes =
      2 * kSwW + kLpfTaps - 2 - 32 * (kCols - 1);  // 7 columns in the last pass
  constexpr int kLastWarps =
      2 * kSwH + kLpfTaps - 2 - kWarps * (kRowSteps - 1);  // 7 rows in the last step
  constexpr int kBatch = 3;
  const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
  float* dst[kCols];
#pragma unroll
  for (int h = 0; h < kCols; ++h) {
    const int k = lane + 32 * h;
    dst[h] = &t[k & 1][warp & 1][k >> 1][warp >> 1];
  }
  const T* base = static_cast<const T*>(data) +
                  (size_t(2 * y0 - kLpfRadius + warp) * width + size_t(2 * x0 - kLpfRadius + lane));
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
        if ((h < kCols - 1 || lane < kLastLanes) && (i0 + i < kRowSteps - 1 || warp < kLastWarps))
          v[i][h] = row[32 * h];
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

__device__ __forceinline__ unsigned load_sweep_tile(const DevicePlane& in, int x0, int y0,
                                                    int load_rows, int load_cols,
                                                    float (*t)[2][kSwCols][kSwRowsHalf]) {
  const float inverse = inverse_divisor(in.bit_depth);
  const bool interior =
      load_rows == 2 * kSwH + kLpfTaps - 2 && load_cols == 2 * kSwW + kLpfTaps - 2 &&
      2 * x0 - kLpfRadius >= 0 && 2 * x0 - kLpfRadius + load_cols <= in.size.width &&
      2 * y0 - kLpfRadius >= 0 && 2 * y0 - kLpfRadius + load_rows <= in.size.height;
  if (interior) {
    const unsigned width = unsigned(in.size.width);
    if (in.type == SampleType::kU8)
      return load_sweep_rows_interior<uint8_t>(in.data, width, x0, y0, inverse, t);
    if (in.type == SampleType::kU16)
      return load_sweep_rows_interior<uint16_t>(in.data, width, x0, y0, inverse, t);
    return load_sweep_rows_interior<float>(in.data, width, x0, y0, inverse, t);
  }
  if (in.type == SampleType::kU8)
    return load_sweep_rows<uint8_t>(in.data, in.size, x0, y0, load_rows, load_cols, inverse, t);
  if (in.type == SampleType::kU16)
    return load_sweep_rows<uint16_t>(in.data, in.size, x0, y0, load_rows, load_cols, inverse, t);
  return load_sweep_rows<float>(in.data, in.size, x0, y0, load_rows, load_cols, inverse, t);
}

// The runs of one tile after its load: split accumulators for raw luma (above); on the sign-free
// f32 levels the products of classes 0 and 2 by conversion.
constexpr unsigned kSweepMix = 0x05u;
__device__ __forceinline__ void sweep_tile_taps(const float (*t)[2][kSwCols][kSwRowsHalf], bool raw,
                                                bool any_negative, int jr, int y,
                                                float (&res)[kSwRun]) {
  if (raw)
    sweep_taps<true, kSplitMask>(t, jr, y, res);
  else if (any_negative)
    sweep_taps<false>(t, jr, y, res);
  else
    sweep_taps<true, 0, kSweepMix>(t, jr, y, res);
}

__global__ void __launch_bounds__(kSwThreads, 4)
    decimate_sweep_kernel(DevicePlane ref, DevicePlane dis, float* out_ref, float* out_dis,
                          Size half) {
  __shared__ float t[2][2][kSwCols][kSwRowsHalf];
  const DevicePlane in = blockIdx.z == 0 ? ref : dis;
  float* out = blockIdx.z == 0 ? out_ref : out_dis;
  const int x0 = int(blockIdx.x) * kSwW, y0 = int(blockIdx.y) * kSwH;
  const int cols = min(kSwW, half.width - x0), rows = min(kSwH, half.height - y0);
  const int load_rows = 2 * rows + kLpfTaps - 2, load_cols = 2 * cols + kLpfTaps - 2;
  const unsigned negative = load_sweep_tile(in, x0, y0, load_rows, load_cols, t);
  const bool any_negative = __syncthreads_or(int(negative)) != 0;
  const int y = int(threadIdx.x) % kSwH, jr = (int(threadIdx.x) / kSwH) * kSwRun;
  float res[kSwRun];
  sweep_tile_taps(t, in.type != SampleType::kF32, any_negative, jr, y, res);
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

}  // namespace

void enqueue_decimate_sweep(const DevicePlane& ref, const DevicePlane& dis, float* out_ref,
                            float* out_dis, cudaStream_t stream) {
  const Size half = half_size(ref.size);
  const dim3 sweep(unsigned((half.width + kSwW - 1) / kSwW),
                   unsigned((half.height + kSwH - 1) / kSwH), 2);
  decimate_sweep_kernel<<<sweep, kSwThreads, 0, stream>>>(ref, dis, out_ref, out_dis, half);
  vqx::cuda::check_launch("ssim: decimate_sweep_kernel");
}

}  // namespace vqx::ssim::cuda
