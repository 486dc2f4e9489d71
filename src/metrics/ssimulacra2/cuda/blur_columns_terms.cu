// Stage 3 of SSIMULACRA 2 on the device: the vertical pass of the 15 blurs (section 6.2), then,
// from shared memory, the SSIM and edge terms of each pixel in native f64 (sections 7-8, the
// CPU's exact operations) and their sums per thread and per block (section 9, spec 15.2's tree).
#include <cstdint>
#include <type_traits>

#include "engine/cuda/cuda_check.h"
#include "engine/cuda/device_division.cuh"
#include "metrics/ssimulacra2/cuda/device_math.cuh"
#include "metrics/ssimulacra2/cuda/ssimulacra2_cuda_testing.h"

namespace vqx::ssimulacra2::cuda {
namespace {

using vqx::cuda::check_launch;
using vqx::cuda::div_rn_fast;

static_assert(std::bit_cast<uint32_t>(kC2) == 0x3a6bedfau);

constexpr int kBlockThreads = kLines * kBlurPlanes;  // one warp per plane
constexpr int kChunkRows = 20;                       // rows per step of the vertical pass
constexpr int kTermRows = kChunkRows / kBlurPlanes;  // pixels per thread per chunk
static_assert(kChunkRows % kBlurPlanes == 0 && kChunkRows % 10 == 0);

// ---- sections 7-8 ------------------------------------------------------------------------------

// Section 7's f32 factors of one pixel: num_m, num_s and denom_s, as ssim_term().
struct SsimFactors {
  float num_m, num_s, denom_s;
};
__device__ __forceinline__ SsimFactors ssim_factors(float mu1, float mu2, float s11, float s22,
                                                    float s12) {
  const float mu11 = fmul(mu1, mu1), mu22 = fmul(mu2, mu2), mu12 = fmul(mu1, mu2);
  const float dm = fsub(mu1, mu2);
  const float num_m = fsub(1.0f, fmul(dm, dm));
  const float num_s = fadd(fmul(2.0f, fsub(s12, mu12)), kC2);
  const float denom_s = fadd(fadd(fsub(s11, mu11), fsub(s22, mu22)), kC2);
  return SsimFactors{num_m, num_s, denom_s};
}

// Section 8's operands of the division: (1 + e2) and (1 + e1), as the CPU's edge_ratio() (f64
// differences) or edge_ratio_f32_difference() (the fork's AVX2).
__device__ __forceinline__ void edge_operands(float img1, float mu1, float img2, float mu2,
                                              bool f32_difference, double& num, double& den) {
  double e1, e2;
  if (f32_difference) {
    float a = fsub(img1, mu1), b = fsub(img2, mu2);
    a = a < 0.0f ? -a : a;
    b = b < 0.0f ? -b : b;
    e1 = double(a);
    e2 = double(b);
  } else {
    e1 = __dsub_rn(double(img1), double(mu1));
    e2 = __dsub_rn(double(img2), double(mu2));
    e1 = e1 < 0.0 ? -e1 : e1;
    e2 = e2 < 0.0 ? -e2 : e2;
  }
  num = __dadd_rn(1.0, e2);
  den = __dadd_rn(1.0, e1);
}

__device__ __forceinline__ double quartic(double v) {
  return __dmul_rn(__dmul_rn(v, v), __dmul_rn(v, v));
}

// ---- the block's partial sums ------------------------------------------------------------------

// Thread s adds the 160 threads' sums of accumulator s in thread order, in double-double (exact
// up to the final rounding in the reduce kernel), into the block's slot of channel c.
// block_sums: [kSums][kBlockThreads] of shared memory.
__device__ __forceinline__ void block_partials(const double (&acc)[kSums],
                                               double (*block_sums)[kBlockThreads], int tid, int c,
                                               Dd* __restrict__ partials) {
#pragma unroll
  for (int s = 0; s < kSums; ++s) block_sums[s][tid] = acc[s];
  __syncthreads();
  if (tid < kSums) {
    Dd total{block_sums[tid][0], 0.0};
    for (int i = 1; i < kBlockThreads; ++i) total = dd_add(total, block_sums[tid][i]);
    partials[(size_t(c) * gridDim.x + blockIdx.x) * kSums + tid] = total;
  }
}

// cp.async: the inputs and the XYB samples go to shared memory without passing through registers.
__device__ __forceinline__ void cp_async4(float* smem, const float* gmem, uint32_t bytes) {
  const uint32_t dst = uint32_t(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(gmem), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void cp_async16(float* smem, const float* gmem, uint32_t bytes) {
  const uint32_t dst = uint32_t(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
__device__ __forceinline__ void cp_async_wait_all() {
  asm volatile("cp.async.wait_all;\n" ::: "memory");
}
__device__ __forceinline__ void cp_async_wait_group1() {
  asm volatile("cp.async.wait_group 1;\n" ::: "memory");
}

// ---- the kernel --------------------------------------------------------------------------------
//
// Block (32 columns, 5 planes) x grid (column strips, 3 channels). Thread (lane, k) walks column
// x of plane k, 20 rows per chunk; then each thread forms the terms of 4 pixels of those 20 rows
// (rows k, k + 5, ...) from the five blurred values and the XYB samples, and adds them to its own
// plain f64 sums, in row order (15.2's "each thread sums a fixed slice sequentially"; at most
// ceil(h / 5) <= 432 terms at 4K, all >= 0, so the relative error of a thread's sum is below
// 432 * 2^-53 = 5e-14). The block then adds its 160 threads' sums in double-double, in thread
// order. The partition of pixels to threads, and the order within each thread and across threads,
// depend only on the plane size.
//
// Software-pipelined: iteration j forms the terms of chunk j (from one shared buffer) and walks
// chunk j + 1 (into the other) in one branch-free stretch of code, so that the walk's f32
// recurrence chains and the terms' f64 division chains interleave in each thread; one barrier per
// chunk: the walk of chunk j + 2 writes the buffer that the terms of chunk j read, and every
// thread has finished those terms before it passed the barrier of chunk j + 1. The inputs come by
// cp.async into the thread's own shared slots (zero-filled outside the plane); the XYB samples of
// a chunk (2 planes x 5 quads of rows x 32 columns x 4 rows) are copied coalesced by the block,
// one 16-byte cp.async per thread and plane (a quad of rows of one column is contiguous in the
// blocked layout), into two buffers, those of chunk j + 1 during iteration j. After the last chunk
// the walk runs once more on stale (finite) inputs and its outputs are never read.
//
// The terms of a pixel are section 7-8's operations, with fewer instructions than written there:
// - One range test per pixel instead of three per division: both divisions take div_rn_fast's
//   sequence (its own range tests unused, so the compiler drops them) when
//   z = (num_m * num_s) * (denom_s * (1 + (|e1| + |e2|))) (f32) is finite and nonzero. Then
//   num_m, num_s, denom_s are finite and nonzero and the f32 differences e1, e2 finite, so
//   |num_m * num_s| (exact in f64) lies in [2^-298, 2^256], |denom_s| in [2^-149, 2^128], the
//   quotient in [2^-426, 2^405]; the edge operands 1 + e lie in [1, 2^129] and their quotient in
//   [2^-129, 2^129]: all inside div_rn_fast's range (a >= 2^-967, b, q >= 2^-1000, all < 2^900),
//   where its sequence is __ddiv_rn's result. A product that under- or overflows only sends a
//   chunk's pixels to __ddiv_rn. One branch per chunk.
// - |e| as fabsf: a < 0 ? -a : a differs from it only for -0 (and a NaN's sign), and
//   1 + double(+-0) = 1 either way.
// - The clamps as predicated additions: art = max(r, 0) added to a sum adds +0 when r <= 0, which
//   leaves the (non-negative, never -0) sum's bits unchanged; likewise d < 0 and rows outside the
//   plane. quartic(det) = quartic(-r) = quartic(r) bit for bit ((-r) * (-r) == r * r), so one
//   quartic(r) serves both edge sums.
// - The f64 edge differences (kFloatGroupsOf8's last n % 8 pixels, kDouble's every pixel) in a
//   branch taken only by threads that hold such a pixel in the chunk: there the edge ratio is
//   formed again with the f64 differences and __ddiv_rn.
// - 32-bit row and pixel indices (FramePipeline::init checks the plane sizes).
// kDump: also the vertical pass's outputs and the terms, for the tests.
template <bool kDump>
__global__ void __launch_bounds__(kBlockThreads, 3)
    blur_columns_terms_kernel(const float* __restrict__ hblur, const float* __restrict__ xyb,
                              uint32_t w, uint32_t h, BlurCoef coef, uint32_t f32_end,
                              Dd* __restrict__ partials, float* __restrict__ vblur_dump,
                              double* __restrict__ terms_dump, uint32_t xyb_rows_t,
                              size_t xyb_plane) {
  __shared__ __align__(16) float blurred_buf[2][kBlurPlanes][kChunkRows][kLines];
  __shared__ __align__(16) float inbuf[kBlurPlanes][kChunkRows][kLines];
  __shared__ __align__(16) float xs[2][2][kChunkRows / 4][kLines][4];
  // The block sums reuse the walk's buffers after the last chunk (48 KB of static shared memory).
  double(*block_sums)[kBlockThreads] =
      reinterpret_cast<double(*)[kBlockThreads]>(&blurred_buf[0][0][0][0]);
  static_assert(sizeof(double) * kSums * kBlockThreads <=
                sizeof(float) * 2 * kBlurPlanes * kChunkRows * kLines);
  const uint32_t n = w * h;
  const int c = blockIdx.y;
  const int lane = threadIdx.x, k = threadIdx.y, tid = k * kLines + lane;
  const uint32_t x = blockIdx.x * kLines + lane;
  const bool valid = x < w;
  const float* src = hblur + size_t(c * kBlurPlanes + k) * n + (valid ? x : 0u);
  const int len = int(h);

  // (No zero fill: every walk writes all rows of its buffer before the terms read any.)
  Recurrence rec;
  double acc[kSums];
#pragma unroll
  for (int s = 0; s < kSums; ++s) acc[s] = 0.0;
  float prev_b[10];  // in[t + 4] of the previous chunk's last 10 steps = in[t - 6] of this one's
#pragma unroll
  for (int i = 0; i < 10; ++i) prev_b[i] = 0.0f;

  float* my_in = &inbuf[k][0][lane];
  auto fetch_async = [&](int y0) {
    const int r0 = y0 + 4;
    if (valid && r0 >= 0 && r0 + kChunkRows <= len) {
      const float* p = src + uint32_t(r0) * w;
#pragma unroll
      for (int i = 0; i < kChunkRows; ++i, p += w) cp_async4(my_in + i * kLines, p, 4u);
    } else {
#pragma unroll
      for (int i = 0; i < kChunkRows; ++i) {
        const int row = r0 + i;
        const bool in = valid && row >= 0 && row < len;
        cp_async4(my_in + i * kLines, src + (in ? uint32_t(row) * w : 0u), in ? 4u : 0u);
      }
    }
    cp_async_commit();
  };
  // Thread tid copies rows y0c + 4q .. + 3 (q = tid % 5) of column tid / 5 of the block's 32
  // columns, both planes (rows outside the padded plane zero-filled; never read as terms).
  const int cq = tid % 5, cc = tid / 5;
  const uint32_t cbase = blocked_index(blockIdx.x * kLines + uint32_t(cc), 0u, xyb_rows_t);
  const float* xcol1 = xyb + size_t(c) * xyb_plane + cbase;
  const float* xcol2 = xyb + size_t(3 + c) * xyb_plane + cbase;
  auto fetch_xyb = [&](int y0c, int buf) {
    const int y = y0c + 4 * cq;
    const bool in = y >= 0 && uint32_t(y) < xyb_rows_t;
    const uint32_t off = in ? (uint32_t(y) & ~31u) * 31u + uint32_t(y) : 0u;  // blocked offset
    cp_async16(&xs[buf][0][cq][cc][0], xcol1 + off, in ? 16u : 0u);
    cp_async16(&xs[buf][1][cq][cc][0], xcol2 + off, in ? 16u : 0u);
    cp_async_commit();
  };
  // Walk chunk y0 from the copied inputs into out. Every row steps, without a range test: the
  // steps before t = -4 see zero inputs and zero state, and their o = ((n2 * +0) - (d1 * +0)) - +0
  // is +0 for each pole (d1 < 0, and -0 - -0 = +0), so the state stays exactly +0 as if they had
  // not run; the steps after t = h - 1 only follow the last output. Their rows' terms are dropped.
  // kWaitAll: every copy this thread issued; else all but the most recent group (the XYB copies
  // of the next chunk, issued after the inputs of this one).
  auto walk = [&](int y0, float(&out)[kBlurPlanes][kChunkRows][kLines], auto wait_all) {
    if constexpr (decltype(wait_all)::value)
      cp_async_wait_all();  // own copies
    else
      cp_async_wait_group1();
    float b[kChunkRows];
#pragma unroll
    for (int i = 0; i < kChunkRows; ++i) b[i] = my_in[i * kLines];
#pragma unroll
    for (int i = 0; i < kChunkRows; ++i) {
      const float a = i < 10 ? prev_b[i] : b[i - 10];
      const float o = rec.step(coef, fadd(a, b[i]));
      out[k][i][lane] = o;
      if constexpr (kDump) {
        const int t = y0 + i;
        if (valid && uint32_t(t) < h)
          vblur_dump[size_t(c * kBlurPlanes + k) * n + size_t(t) * w + x] = o;
      }
    }
#pragma unroll
    for (int i = 0; i < 10; ++i) prev_b[i] = b[i + 10];
  };

  // Chunk base y0 = -20 holds the warm-up steps t = -4 ... -1 (spec 6.2 starts at t = -N + 1).
  fetch_async(-kChunkRows);
  walk(-kChunkRows, blurred_buf[0], std::true_type{});
  fetch_xyb(-kChunkRows, 0);
  if (0 < len)
    fetch_async(0);
  else
    cp_async_commit();
  cp_async_wait_group1();  // the XYB copies (this thread's); visible to all after the barrier
  __syncthreads();
  for (int y0 = -kChunkRows; y0 < len; y0 += kChunkRows) {
    const int j = (y0 + kChunkRows) / kChunkRows;
    float(&blurred)[kBlurPlanes][kChunkRows][kLines] = blurred_buf[j & 1];
    const int y_last = min(y0 + k + kBlurPlanes * (kTermRows - 1), len - 1);
    const bool tail = valid && y_last >= 0 && uint32_t(y_last) * w + x >= f32_end;
    fetch_xyb(y0 + kChunkRows, (j + 1) & 1);  // the next chunk's samples
    double sa[kTermRows], sb[kTermRows], sq[kTermRows], ea[kTermRows], eb[kTermRows], eq[kTermRows];
    float t_img1[kTermRows], t_img2[kTermRows], t_mu1[kTermRows], t_mu2[kTermRows];
    bool fast = true;
#pragma unroll
    for (int m = 0; m < kTermRows; ++m) {
      const int i = k + kBlurPlanes * m;
      t_img1[m] = xs[j & 1][0][i >> 2][lane][i & 3];
      t_img2[m] = xs[j & 1][1][i >> 2][lane][i & 3];
      const float mu1 = blurred[0][i][lane], mu2 = blurred[1][i][lane];
      // Section 7, as ssim_term().
      const SsimFactors f =
          ssim_factors(mu1, mu2, blurred[2][i][lane], blurred[3][i][lane], blurred[4][i][lane]);
      const float num_m = f.num_m, num_s = f.num_s, denom_s = f.denom_s;
      sa[m] = __dmul_rn(double(num_m), double(num_s));
      sb[m] = double(denom_s);
      // Section 8 with the f32 differences (edge_ratio_f32_difference).
      const float e1 = fabsf(fsub(t_img1[m], mu1)), e2 = fabsf(fsub(t_img2[m], mu2));
      ea[m] = __dadd_rn(1.0, double(e2));
      eb[m] = __dadd_rn(1.0, double(e1));
      bool unused;
      sq[m] = div_rn_fast(sa[m], sb[m], unused);
      eq[m] = div_rn_fast(ea[m], eb[m], unused);
      const float z = fmul(fmul(num_m, num_s), fmul(denom_s, fadd(1.0f, fadd(e1, e2))));
      fast = fast && fabsf(z) < __int_as_float(0x7f800000) && z != 0.0f;
    }
    // The next chunk's walk (into the other buffer): no branch between here and the divisions
    // above, so that their instructions can interleave.
    walk(y0 + kChunkRows, blurred_buf[(j + 1) & 1], std::false_type{});
    if (!fast) {  // rare: every pixel of the chunk by __ddiv_rn
#pragma unroll
      for (int m = 0; m < kTermRows; ++m) {
        sq[m] = __ddiv_rn(sa[m], sb[m]);
        eq[m] = __ddiv_rn(ea[m], eb[m]);
      }
    }
    if (tail) {  // the f64 differences (edge_ratio) where the pixel index is >= f32_end
#pragma unroll
      for (int m = 0; m < kTermRows; ++m) {
        const int y = y0 + k + kBlurPlanes * m;
        const int i = k + kBlurPlanes * m;
        t_mu1[m] = blurred[0][i][lane];
        t_mu2[m] = blurred[1][i][lane];
        if (valid && uint32_t(y) < h && uint32_t(y) * w + x >= f32_end) {
          double num, den;
          edge_operands(t_img1[m], t_mu1[m], t_img2[m], t_mu2[m], false, num, den);
          eq[m] = __ddiv_rn(num, den);
        }
      }
    }
#pragma unroll
    for (int m = 0; m < kTermRows; ++m) {
      const int y = y0 + k + kBlurPlanes * m;
      const bool ok = valid && uint32_t(y) < h;
      const double d = __dsub_rn(1.0, sq[m]);
      const double r = __dsub_rn(eq[m], 1.0);
      const double d4 = quartic(d), r4 = quartic(r);
      if (ok && !(d < 0.0)) {
        acc[0] = __dadd_rn(acc[0], d);
        acc[1] = __dadd_rn(acc[1], d4);
      }
      if (ok && r > 0.0) {
        acc[2] = __dadd_rn(acc[2], r);
        acc[3] = __dadd_rn(acc[3], r4);
      }
      if (ok && r < 0.0) {
        acc[4] = __dadd_rn(acc[4], -r);
        acc[5] = __dadd_rn(acc[5], r4);
      }
      if constexpr (kDump) {
        if (ok) {
          double* dt = terms_dump + size_t(3 * c) * n + (uint32_t(y) * w + x);
          dt[0] = d < 0.0 ? 0.0 : d;
          dt[n] = r > 0.0 ? r : 0.0;
          dt[size_t(2) * n] = r < 0.0 ? -r : 0.0;
        }
      }
    }
    if (y0 + 2 * kChunkRows < len)
      fetch_async(y0 + 2 * kChunkRows);  // the walk has read inbuf
    else
      cp_async_commit();     // an empty group: the next wait skips exactly one
    cp_async_wait_group1();  // the next chunk's XYB copies (own), then ...
    __syncthreads();         // ... everyone's, after the barrier
  }
  block_partials(acc, block_sums, tid, c, partials);
}

// ---- the device check of the inlined division (tests) ------------------------------------------

__device__ __forceinline__ uint32_t mix32(uint64_t x) {  // splitmix64's finaliser, high half
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return uint32_t((x ^ (x >> 31)) >> 32);
}

// A float from random bits, with the special values every 64th draw.
__device__ __forceinline__ float random_float(uint64_t key) {
  const uint32_t u = mix32(key);
  const uint32_t pick = mix32(key ^ 0x5555555555555555ull);
  if (pick % 64 == 0) {
    const float specials[8] = {0.0f, -0.0f, 1.0f, 1e-45f, 1e-38f, 3.0e38f, kC2, 0.5f};
    return specials[(pick >> 8) % 8];
  }
  return __uint_as_float(u);
}

__global__ void division_check_kernel(uint64_t count, uint32_t seed,
                                      unsigned long long* mismatches) {
  unsigned long long bad = 0;
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < count;
       i += uint64_t(gridDim.x) * blockDim.x) {
    const uint64_t key = (uint64_t(seed) << 40) ^ (i * 4);
    // Section 7: (f64(num_m) * f64(num_s)) / f64(denom_s), any f32 operands.
    const float f0 = random_float(key), f1 = random_float(key + 1), f2 = random_float(key + 2);
    double a = __dmul_rn(double(f0), double(f1)), b = double(f2);
    bool fast;
    double q = div_rn_fast(a, b, fast);
    if (!fast) q = __ddiv_rn(a, b);
    bad += __double_as_longlong(q) != __double_as_longlong(__ddiv_rn(a, b));
    // Section 8: (1 + e2) / (1 + e1), e = |f32 difference| or an f64 difference of two f32.
    const float g = fabsf(random_float(key + 3)), g2 = fabsf(f2);
    const uint32_t mode = mix32(key ^ 0xaaaaaaaaull);
    double num, den;
    if (mode & 1)
      edge_operands(g, 0.0f, g2, 0.0f, true, num, den);
    else
      edge_operands(f0 * 1e-30f, f1 * 1e-30f, g, g2, false, num, den);
    q = div_rn_fast(num, den, fast);
    if (!fast) q = __ddiv_rn(num, den);
    bad += __double_as_longlong(q) != __double_as_longlong(__ddiv_rn(num, den));
  }
  // Integer atomics: the count does not depend on the order.
  if (bad) atomicAdd(mismatches, bad);
}

}  // namespace

void launch_blur_columns_terms(const ColumnsLaunch& l, cudaStream_t stream) {
  const dim3 grid(column_strips(l.width), 3), block(kLines, kBlurPlanes);
  auto kernel = l.vblur_dump ? blur_columns_terms_kernel<true> : blur_columns_terms_kernel<false>;
  kernel<<<grid, block, 0, stream>>>(l.hblur, l.xyb, l.width, l.height, blur_coef(), l.f32_end,
                                     l.partials, l.vblur_dump, l.terms_dump, l.plane.rows_t,
                                     l.plane.floats);
  check_launch("ssimulacra2: blur_columns_terms_kernel");
}

void launch_division_check(uint64_t count, uint32_t seed, unsigned long long* mismatches,
                           cudaStream_t stream) {
  division_check_kernel<<<1024, 256, 0, stream>>>(count, seed, mismatches);
  check_launch("ssimulacra2: division_check_kernel");
}

}  // namespace vqx::ssimulacra2::cuda
