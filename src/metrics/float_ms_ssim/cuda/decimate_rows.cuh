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
  auto fetch = [&](int q) {
#pragma unroll
    for (int row = 0; row < 2; ++row) {
      const int r = reflect_index(min(2 * q + row, size.height - 1 + kLpfRadius), size.height);
      const T* line = in + size_t(r) * size_t(size.width);
#pragma unroll
      for (int k = 0; k < kDrRowSlots; ++k) fetched[row][k] = line[col[k]];
    }
  };
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
