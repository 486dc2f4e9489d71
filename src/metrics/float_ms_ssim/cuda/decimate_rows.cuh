// Level 1 of the MS-SSIM pyramid (spec 3.3) from raw luma by shared row sums (session 16).
// Included by ssim_cuda.cu inside its anonymous namespace, after the widening helpers, the tables
// and to_sample / reflect_index.
//
// Why it is exact. At level 1 every f64 partial sum of an output's 81 products is exact, in any
// order and grouping (comment above sweep_taps in ssim_cuda.cu; prepare_device checks the bound), so the
// output is f32 of the exact sum whatever the order, as the CPU's sequential sum is. That frees
// the grouping: kLpf is symmetric in v (row v == row 8 - v, checked by prepare_device), so the
// products of input row r with table row v, summed over the 9 columns u (a "row sum"), are the
// same numbers for output y (v = r - 2y + 4) and for output y + v - 4 (table row 8 - v). A row sum
// is formed once and added to both outputs: per output about 5 row sums of 9 products instead of 9
// (the sweep's sharing of symmetric columns does not combine with it: it needs runs of outputs in
// a row, this one runs down a column).
//
// Shape: a thread owns output column x and walks the output rows y0..y0+R-1 of its block; step q
// takes input rows 2q (classes c = |v - 4| = 0, 2, 4) and 2q + 1 (classes 1, 3) and adds their
// row sums to outputs q-2..q+2 (held in a window of 5 scaled f64 accumulators, rotated by
// unrolling the step loop 5 times); after step q output q-2 is complete. Each step's two input
// rows are loaded by the block into shared memory (split by column parity, so that neighbouring
// threads read neighbouring words), double-buffered with one barrier per step; a thread fetches
// the next step's samples into registers before it computes the current one.
//
// Widening: the products of classes in kCvtMask by the conversion instruction (an unscaled row
// sum, added to the scaled window by one DFMA with 2^-896: exact, the sum being exact), the others
// by the shift pair. Products with a negative table entry are formed with |entry| (sign-free) and
// subtracted; each row sum starts with a positive entry, so nothing is ever -0 (the CPU's sum,
// starting at +0, never is either).

constexpr int kDrThreads = 128;                   // output columns per block
constexpr int kDrCols = kDrThreads + kLpfRadius;  // even / odd split columns of one input row
constexpr int kDrRowSamples = 2 * kDrThreads + kLpfTaps - 2;  // input columns of one row
constexpr int kDrRowSlots = (kDrRowSamples + kDrThreads - 1) / kDrThreads;  // loads per thread and row
static_assert(kDrRowSlots == 3, "a thread loads columns t, t + 128 and (t < 7) t + 256 of each row");
constexpr int kDrHalo = 2;   // a step adds to outputs q-2..q+2
constexpr int kDrWindow = 2 * kDrHalo + 1;

// First column of table row 4 + c with a positive entry (row sums start with it).
__host__ __device__ constexpr int dr_first(int c) {
  for (int u = 0; u < kLpfTaps; ++u)
    if (!lpf_entry_negative(kLpfRadius + c, u)) return u;
  return -1;
}

// The row sum of class c (table row 4 + c) over the 9 samples s[u]: scaled when c is not in
// kCvtMask, unscaled when it is.
template <int c, int kCvtMask>
__device__ __forceinline__ double dr_row_sum(const float (&s)[kLpfTaps]) {
  constexpr int v = kLpfRadius + c, first = dr_first(c);
  static_assert(first >= 0, "a positive entry in every table row");
  constexpr bool kCvt = (kCvtMask >> c) & 1;
  auto term = [&](int u) {
    const float p = __fmul_rn(s[u], c_lpf_abs[v][u]);
    return kCvt ? widen(p) : widen_scaled_nonneg(p);
  };
  double sum = term(first);
#pragma unroll
  for (int u = 0; u < kLpfTaps; ++u) {
    if (u == first) continue;
    sum = lpf_entry_negative(v, u) ? __dsub_rn(sum, term(u)) : __dadd_rn(sum, term(u));
  }
  return sum;
}

// acc (scaled) + the row sum of class c.
template <int c, int kCvtMask>
__device__ __forceinline__ double dr_add(double acc, double row_sum) {
  if constexpr ((kCvtMask >> c) & 1) return __fma_rn(row_sum, 0x1p-896, acc);
  else return __dadd_rn(acc, row_sum);
}

// The row sum of class c as a scaled accumulator's first value.
template <int c, int kCvtMask>
__device__ __forceinline__ double dr_start(double row_sum) {
  if constexpr ((kCvtMask >> c) & 1) return __dmul_rn(row_sum, 0x1p-896);
  else return row_sum;
}

// Step q's two input rows 2q and 2q + 1 (reflected; rows past height + 3 feed no output and are
// clamped so that the single reflection stays valid) at this thread's kSlots columns col[].
template <typename T, int kSlots>
__device__ __forceinline__ void fetch_step_rows(const T* in, Size size, int q, const int (&col)[kSlots],
                                                T (&fetched)[2][kSlots]) {
#pragma unroll
  for (int row = 0; row < 2; ++row) {
    const int r = reflect_index(min(2 * q + row, size.height - 1 + kLpfRadius), size.height);
    const T* line = in + size_t(r) * size_t(size.width);
#pragma unroll
    for (int k = 0; k < kSlots; ++k) fetched[row][k] = line[col[k]];
  }
}

template <typename T, int R, int kCvtMask>
__global__ void __launch_bounds__(kDrThreads) decimate_rows_kernel(DevicePlane ref, DevicePlane dis, float* out_ref,
                                                                    float* out_dis, Size half) {
  // [buffer][input row of the step: 2q, 2q+1][column parity][split column]
  __shared__ float rows[2][2][2][kDrCols];
  const bool second = blockIdx.z != 0;
  const T* in = static_cast<const T*>(second ? dis.data : ref.data);
  const Size size = second ? dis.size : ref.size;
  const float inverse = inverse_divisor(second ? dis.bit_depth : ref.bit_depth);
  float* out = second ? out_dis : out_ref;
  const int t = int(threadIdx.x), x0 = int(blockIdx.x) * kDrThreads, x = x0 + t;
  const int y0 = int(blockIdx.y) * R, y_last = min(y0 + R, half.height) - 1;
  // This thread's loads (the same columns every step): split column cc = t + 128 k of each of the
  // step's two rows, input column 2 (x0 - 2) + cc reflected (columns past width + 3 feed no output,
  // only blocks past a narrow plane's edge reach them: clamped so that the single reflection stays
  // valid), stored at [row][cc & 1 = t & 1][cc >> 1 = t / 2 + 64 k]; k = 2 only for cc < 263.
  int col[kDrRowSlots];
#pragma unroll
  for (int k = 0; k < kDrRowSlots; ++k)
    col[k] = reflect_index(min(2 * (x0 - kDrHalo) + min(t + kDrThreads * k, kDrRowSamples - 1),
                               size.width - 1 + kLpfRadius),
                           size.width);
  const bool third = t + kDrThreads * (kDrRowSlots - 1) < kDrRowSamples;
  const int store_at = (t & 1) * kDrCols + t / 2;
  // Steps q = y0-2 .. y_last+2 (output q-2 completes at step q), padded to whole rounds; the
  // padding steps read a valid row and store nothing.
  const int q_first = y0 - kDrHalo, steps = y_last + kDrHalo - q_first + 1;
  const int rounds = (steps + kDrWindow - 1) / kDrWindow;
  T fetched[2][kDrRowSlots];  // the next step's samples (session 16: fetching two steps ahead measured slower)
  auto fetch = [&](int q) { fetch_step_rows(in, size, q, col, fetched); };
  float* const out_column = out + x;
  fetch(q_first);
  double acc[kDrWindow] = {};
#pragma unroll 1
  for (int round = 0; round < rounds; ++round) {
#pragma unroll
    for (int j = 0; j < kDrWindow; ++j) {
      const int q = q_first + round * kDrWindow + j;
      float* buffer = &rows[q & 1][0][0][store_at];
#pragma unroll
      for (int row = 0; row < 2; ++row)
#pragma unroll
        for (int k = 0; k < kDrRowSlots; ++k)
          if (k + 1 < kDrRowSlots || third)
            buffer[row * 2 * kDrCols + (kDrThreads / 2) * k] = to_sample(fetched[row][k], inverse);
      __syncthreads();  // this step's rows stored; the step that last read this buffer is done
      fetch(q + 1);
      float s0[kLpfTaps], s1[kLpfTaps];
      const float(*b)[2][kDrCols] = rows[q & 1];
#pragma unroll
      for (int u = 0; u < kLpfTaps; ++u) {
        s0[u] = b[0][u & 1][t + u / 2];
        s1[u] = b[1][u & 1][t + u / 2];
      }
      const double rs0 = dr_row_sum<0, kCvtMask>(s0), rs2 = dr_row_sum<2, kCvtMask>(s0);
      const double rs4 = dr_row_sum<4, kCvtMask>(s0);
      const double rs1 = dr_row_sum<1, kCvtMask>(s1), rs3 = dr_row_sum<3, kCvtMask>(s1);
      // Output y's accumulator is acc[(y - q_first) mod 5]: static once the loop is unrolled.
      auto at = [&](int d) -> double& { return acc[((j + d) % kDrWindow + kDrWindow) % kDrWindow]; };
      double& done = at(-kDrHalo);  // output q - 2: its last row sum
      done = dr_add<4, kCvtMask>(done, rs4);
      const int y = q - kDrHalo;
      if (y >= y0 && y <= y_last && x < half.width)
        out_column[size_t(y) * size_t(half.width)] = unscale_to_f32(done);
      at(-1) = dr_add<3, kCvtMask>(dr_add<2, kCvtMask>(at(-1), rs2), rs3);
      at(0) = dr_add<1, kCvtMask>(dr_add<0, kCvtMask>(at(0), rs0), rs1);
      at(1) = dr_add<1, kCvtMask>(dr_add<2, kCvtMask>(at(1), rs2), rs1);
      // Output q + 2 starts (its slot held output q - 3, complete since the previous step).
      at(kDrHalo) = dr_add<3, kCvtMask>(dr_start<4, kCvtMask>(rs4), rs3);
    }
  }
}

// ---- Runs of output columns (decimate_row_runs_kernel; decimation 34, session 18) -------------
// The same walk down the output rows with the same row sums, but a thread owns a run of 4
// neighbouring output columns x..x+3. Why: kLpf is also symmetric in u (entry u == entry 8 - u,
// checked by prepare_device), so within a run a sample at input column 2x - 4 + i meets the
// outputs x + j at u = i - 2j, and the products of one table row with entries of equal |u - 4| are
// the same f32 number: each distinct (sample, table row, |u - 4|) product is formed and widened
// once and added to every row sum of the run that takes it (30 products per table row and run
// instead of 36; 15 samples per input row instead of 36, read as 4 vector words). Each output's
// row sum still gets its 9 terms, starting with a positive entry; the order is free at level 1, so
// every output is the same f32 as decimate_rows_kernel's. The cost: a quarter of the threads (one
// 128-column block is one warp), so fewer warps to hide latency, each with 4 independent chains.
//
// Shared rows: an input row's columns in quads of 4 (quad g = columns 4g..4g+3), even and odd
// quads apart, so that thread t reads quads 2t..2t+3 as even[t], odd[t], even[t + 1], odd[t + 1]:
// neighbouring threads read neighbouring 16-byte words. The odd quads start 16 banks after the even
// ones (the stores of a warp then hit 32 distinct banks).

constexpr int kRnRun = 4;                                  // output columns per thread
constexpr int kRnThreads = 32;                             // one warp per block
constexpr int kRnCols = kRnRun * kRnThreads;               // output columns per block
constexpr int kRnRunSamples = 2 * kRnRun + kLpfTaps - 2;   // input columns of a run: 15
constexpr int kRnRowSamples = 2 * kRnCols + kLpfTaps - 2;  // input columns of a block: 263
constexpr int kRnRowSlots = (kRnRowSamples + kRnThreads - 1) / kRnThreads;  // loads per thread and row
constexpr int kRnQuadStride = 36;                          // quads per parity class (33 used)
constexpr int kRnRowFloats = 2 * 4 * kRnQuadStride;
static_assert(kRnRun == 4 && kRnRunSamples <= 16, "a run reads 4 quads of each input row");
static_assert(kRnThreads % 8 == 0, "slot k of thread t is column t + 32k: the same quad lane and parity");
static_assert(kRnQuadStride >= (kRnRowSamples + 7) / 8, "the quads of one parity class fit");
static_assert(4 * kRnQuadStride % 32 == 16, "the odd quads start 16 banks after the even ones");
static_assert(kRnRowSlots == 9, "a thread loads columns t + 32k, k < 8, and (t < 7) t + 256");

// Whether some output j of a run uses sample i with an entry at distance d = |u - 4|, u = i - 2j.
__host__ __device__ constexpr bool rn_uses(int i, int d) {
  for (int j = 0; j < kRnRun; ++j) {
    const int u = i - 2 * j;
    if (u >= 0 && u < kLpfTaps && (u < kLpfRadius ? kLpfRadius - u : u - kLpfRadius) == d) return true;
  }
  return false;
}
static_assert([] {
  int n = 0;
  for (int i = 0; i < kRnRunSamples; ++i)
    for (int d = 0; d <= kLpfRadius; ++d) n += rn_uses(i, d);
  return n;
}() == 30, "30 distinct products per table row and run");

// The row sums of class c (table row 4 + c) of the run's 4 outputs over its 15 samples s[i]
// (dr_row_sum's terms, each product formed once): scaled when c is not in kCvtMask, unscaled when
// it is.
template <int c, int kCvtMask>
__device__ __forceinline__ void rn_row_sums(const float (&s)[16], double (&rs)[kRnRun]) {
  constexpr int v = kLpfRadius + c, first = dr_first(c);
  static_assert(first >= 0, "a positive entry in every table row");
  constexpr bool kCvt = (kCvtMask >> c) & 1;
  double w[kRnRunSamples][kLpfRadius + 1];  // w[i][d]: s[i] * |kLpf[v][4 + d]|, widened
#pragma unroll
  for (int i = 0; i < kRnRunSamples; ++i)
#pragma unroll
    for (int d = 0; d <= kLpfRadius; ++d)
      if (rn_uses(i, d)) {
        const float p = __fmul_rn(s[i], c_lpf_abs[v][kLpfRadius + d]);
        w[i][d] = kCvt ? widen(p) : widen_scaled_nonneg(p);
      }
#pragma unroll
  for (int j = 0; j < kRnRun; ++j) {
    auto term = [&](int u) -> double { return w[2 * j + u][u < kLpfRadius ? kLpfRadius - u : u - kLpfRadius]; };
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
// step loop 5 times as decimate_rows_kernel does: the unrolled form (about 4,500 instructions, 70 KB
// of code) measured slower at 4K with 4 frames in flight (0.317 against 0.301 ms), the instruction
// cache being shared with the window kernels.
template <typename T, int R, int kCvtMask>
__global__ void __launch_bounds__(kRnThreads) decimate_row_runs_kernel(DevicePlane ref, DevicePlane dis, float* out_ref,
                                                                        float* out_dis, Size half) {
  // [buffer][input row of the step: 2q, 2q+1][parity class][quad][lane]
  __shared__ __align__(16) float rows[2][2][kRnRowFloats];
  const bool second = blockIdx.z != 0;
  const T* in = static_cast<const T*>(second ? dis.data : ref.data);
  const Size size = second ? dis.size : ref.size;
  const float inverse = inverse_divisor(second ? dis.bit_depth : ref.bit_depth);
  float* out = second ? out_dis : out_ref;
  const int t = int(threadIdx.x), x0 = int(blockIdx.x) * kRnCols, x = x0 + kRnRun * t;
  const int y0 = int(blockIdx.y) * R, y_last = min(y0 + R, half.height) - 1;
  // This thread's loads: block column cc = t + 32k of each row, input column 2 x0 - 4 + cc
  // reflected and clamped as in decimate_rows_kernel, stored at quad cc / 4 (parity class
  // (cc / 4) & 1, position cc / 8), lane cc & 3: store_at + 16k; k = 8 only for cc < 263.
  int col[kRnRowSlots];
#pragma unroll
  for (int k = 0; k < kRnRowSlots; ++k)
    col[k] = reflect_index(min(2 * x0 - kLpfRadius + min(t + kRnThreads * k, kRnRowSamples - 1),
                               size.width - 1 + kLpfRadius),
                           size.width);
  const bool last_slot = t + kRnThreads * (kRnRowSlots - 1) < kRnRowSamples;
  const int store_at = ((t >> 2) & 1) * 4 * kRnQuadStride + (t >> 3) * 4 + (t & 3);
  const int q_first = y0 - kDrHalo, q_end = y_last + kDrHalo + 1;
  T fetched[2][kRnRowSlots];
  auto fetch = [&](int q) { fetch_step_rows(in, size, q, col, fetched); };
  // Whole runs inside the plane store one 16-byte word.
  const bool vector_store = half.width % kRnRun == 0 && (reinterpret_cast<uintptr_t>(out) & 15) == 0;
  float* const out_run = out + x;
  fetch(q_first);
  double acc[kRnRun][kDrWindow] = {};
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
    auto at = [&](int n, int d) -> double& { return acc[n][d + kDrHalo]; };
    const int y = q - kDrHalo;
    float s[16];
    double rs[kRnRun];
    // Input row 2q: classes 4 (output q - 2 completes; output q + 2 starts), 2, 0.
    rn_samples(rows[q & 1][0], t, s);
    rn_row_sums<4, kCvtMask>(s, rs);
    float done[kRnRun];
#pragma unroll
    for (int n = 0; n < kRnRun; ++n) {
      done[n] = unscale_to_f32(dr_add<4, kCvtMask>(at(n, -kDrHalo), rs[n]));
      at(n, kDrHalo) = dr_start<4, kCvtMask>(rs[n]);  // its slot held output q - 3, complete
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
    rn_row_sums<2, kCvtMask>(s, rs);
#pragma unroll
    for (int n = 0; n < kRnRun; ++n) {
      at(n, -1) = dr_add<2, kCvtMask>(at(n, -1), rs[n]);
      at(n, 1) = dr_add<2, kCvtMask>(at(n, 1), rs[n]);
    }
    rn_row_sums<0, kCvtMask>(s, rs);
#pragma unroll
    for (int n = 0; n < kRnRun; ++n) at(n, 0) = dr_add<0, kCvtMask>(at(n, 0), rs[n]);
    // Input row 2q + 1: classes 3, 1.
    rn_samples(rows[q & 1][1], t, s);
    rn_row_sums<3, kCvtMask>(s, rs);
#pragma unroll
    for (int n = 0; n < kRnRun; ++n) {
      at(n, -1) = dr_add<3, kCvtMask>(at(n, -1), rs[n]);
      at(n, kDrHalo) = dr_add<3, kCvtMask>(at(n, kDrHalo), rs[n]);
    }
    rn_row_sums<1, kCvtMask>(s, rs);
#pragma unroll
    for (int n = 0; n < kRnRun; ++n) {
      at(n, 0) = dr_add<1, kCvtMask>(at(n, 0), rs[n]);
      at(n, 1) = dr_add<1, kCvtMask>(at(n, 1), rs[n]);
    }
#pragma unroll
    for (int n = 0; n < kRnRun; ++n)
#pragma unroll
      for (int d = 0; d + 1 < kDrWindow; ++d) acc[n][d] = acc[n][d + 1];
  }
}
