// cambi on CUDA (shared/spec/cambi.md section 10, seed 001; contract in shared/spec/README.md).
//
// Per picture (the distorted one, then the reference with full_ref), all on the device:
//   validate (status bit) -> one kernel for the 10-bit conversion (through init-time resize index
//   tables, none without resize), the 2x2 anti-dither and the spatial mask (zero-derivative flags,
//   7-row then 7-column sums of a shared-memory halo tile) -> per scale: decimation fused into the
//   3x3 mode filter, which also writes the level map (code - base, or "not counted") -> c-values
//   of all five scales in one launch of 32-column tiles (16 rows below 4K, 32 from 4K) whose
//   window histograms live in shared memory, one cell per level the tile needs; a classification
//   kernel first lists the tiles needing too many, which a dense kernel does on a forked stream
//   beside the compact one (below 4K in two row pieces each) ->
//   three radix passes -> the exact top-K sum in units of 2^-24 as a 128-bit integer, per scale,
//   in the result slot. Earlier designs stay selectable for comparison (docs/cambi.md: the global
//   column histograms of seed 001, separate preprocessing and mask kernels).
// The host turns each sum into the mean exactly as the CPU's exact path does and applies the
// CPU's own weight_scores(). Everything but the final f64 weighting is integer or the CPU's f32
// formula operation for operation, so the device computes the same c-values bit for bit; the sums
// are exact integers, so no atomic order or grid shape can change a result.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "engine/cuda/cuda_check.h"
#include "core/error.h"
#include "metrics/cambi/cambi_setup.h"
#include "metrics/cambi/cambi_stages.h"
#include "metrics/cambi/cuda/cambi_cuda.h"

namespace vqx {
namespace {

using cambi::kNumScales;
using u64 = unsigned long long;
using u128 = unsigned __int128;

constexpr uint16_t kNotCounted = 0xFFFF;  // masked out or outside the band (as the CPU)
constexpr int kCvThreads = 128;           // columns per c-value block
constexpr int kPassThreads = 256;
constexpr int kBins0 = 2048, kBins1 = 2048, kBins2 = 1024;  // radix digits 11 + 11 + 10 bits
// Column histograms of all five scales together stay within this (spec 10.3: the seed capped
// them at 64 MiB on its devices; 256 MiB is the spec's figure for an H200). More rows per chunk
// means fewer chunks, never a different count.
constexpr size_t kHistogramBudget = size_t{256} << 20;

// Status bits of the result slot.
constexpr unsigned kStatusInvalidDis = 1u;   // a distorted luma sample above 2^bpc - 1 (spec 4.1)
constexpr unsigned kStatusInvalidRef = 2u;   // the same for the reference (full_ref)
constexpr unsigned kStatusBadValue = 4u;     // a c-value that is not 0 or in [0.5, 2^14)
constexpr unsigned kStatusSelection = 8u;    // the radix select found no bin for rank k

// Per picture and scale, cleared at the start of every frame.
struct ScaleState {
  unsigned bins0[kBins0];
  unsigned bins1[kBins1];
  unsigned bins2[kBins2];
  u64 total[2];    // exact sum of all c-values, units of 2^-24 (lo, hi)
  u64 greater[2];  // exact sum of the values above the 21-bit prefix (pass 2)
  u64 above;       // how many values lie above the current prefix
  unsigned ticket[3];
  unsigned done;   // the sum is final (written to the result)
  unsigned prefix;  // digits found so far
};

// The result slot, copied back once per frame.
struct CambiResult {
  u64 sum[2][kNumScales][2];  // [picture][scale] exact top-K sum in units of 2^-24 (lo, hi)
  unsigned status;
  unsigned pad;
};

// ---- Small device helpers -------------------------------------------------------------------

__device__ __forceinline__ uint32_t to_10bit(uint32_t v, int bpc) {  // spec 4.2, as the CPU
  if (bpc <= 8) return v << (10 - bpc);
  if (bpc == 9) return v << 1;
  if (bpc == 10) return v;
  return (v + (1u << (bpc - 11))) >> (bpc - 10);
}

// Majority of three, the smallest when all differ (spec 6.2).
__device__ __forceinline__ uint16_t mode3(uint16_t a, uint16_t b, uint16_t c) {
  if (a == b || a == c) return a;
  if (b == c) return b;
  return min(a, min(b, c));
}

// v * 2^24 as an integer for a c-value's bit pattern; false unless v is 0 or in [0.5, 2^14).
__device__ __forceinline__ bool units_of(uint32_t bits, u64& units) {
  if (bits == 0) {
    units = 0;
    return true;
  }
  const uint32_t e = bits >> 23;
  if (e < 126 || e > 140) {
    units = 0;
    return false;
  }
  units = u64((bits & 0x7FFFFFu) | 0x800000u) << (e - 126);
  return true;
}

// Exact 128-bit accumulation with two 64-bit integer atomics (carry propagated).
__device__ __forceinline__ void atomic_add_u128(u64* p, u128 v) {
  u64 lo = u64(v), hi = u64(v >> 64);
  if (lo) {
    u64 old = atomicAdd(p, lo);
    if (old + lo < old) ++hi;
  }
  if (hi) atomicAdd(p + 1, hi);
}

// Block-wide sum of one u128 per thread (blockDim.x a multiple of 32, at most 1024).
__device__ u128 block_sum_u128(u128 v) {
  __shared__ u64 part[2][32];
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  u64 lo = u64(v), hi = u64(v >> 64);
  // Warp: add lo and hi separately, carries counted into hi.
  for (int s = 16; s > 0; s >>= 1) {
    u64 olo = __shfl_down_sync(0xffffffffu, lo, s), ohi = __shfl_down_sync(0xffffffffu, hi, s);
    u64 nlo = lo + olo;
    hi = hi + ohi + (nlo < lo ? 1u : 0u);
    lo = nlo;
  }
  __syncthreads();
  if (lane == 0) part[0][warp] = lo, part[1][warp] = hi;
  __syncthreads();
  u128 total = 0;
  if (threadIdx.x == 0)
    for (unsigned w = 0; w < (blockDim.x + 31) / 32; ++w) total += (u128(part[1][w]) << 64) + part[0][w];
  return total;  // valid in thread 0
}

// The radix scan, by a whole block: the bin b (searching from the top) that holds the value of
// rank `k` (1-based, counted from the largest) and how many values lie in bins above b. Returns
// false when the bins hold fewer than k values. Result valid in every thread. blockDim <= 256.
__device__ bool block_find_bin(const unsigned* bins, int nbins, u64 k, int& bin, u64& above) {
  __shared__ u64 totals[256];
  __shared__ int found_bin;
  __shared__ u64 found_above;
  const int per = (nbins + int(blockDim.x) - 1) / int(blockDim.x);
  const int first = int(threadIdx.x) * per;
  u64 mine = 0;
  for (int b = first; b < first + per && b < nbins; ++b) mine += __ldcg(bins + b);
  totals[threadIdx.x] = mine;
  if (threadIdx.x == 0) found_bin = -1, found_above = 0;
  __syncthreads();
  // Suffix sums over the threads (Hillis-Steele, log2(blockDim) steps).
  for (unsigned s = 1; s < blockDim.x; s <<= 1) {
    u64 add = threadIdx.x + s < blockDim.x ? totals[threadIdx.x + s] : 0;
    __syncthreads();
    totals[threadIdx.x] += add;
    __syncthreads();
  }
  const u64 inclusive = totals[threadIdx.x];
  const u64 exclusive = inclusive - mine;  // values in the bins of higher threads
  if (exclusive < k && k <= inclusive) {
    u64 acc = exclusive;
    for (int b = min(first + per, nbins) - 1; b >= first; --b) {
      const u64 c = __ldcg(bins + b);
      if (acc + c >= k) {
        found_bin = b;
        found_above = acc;
        break;
      }
      acc += c;
    }
  }
  __syncthreads();
  bin = found_bin;
  above = found_above;
  __syncthreads();
  return bin >= 0;
}

// The last block of a pass to finish (after a fence) does the scan; this says whether it is.
__device__ bool last_block(unsigned* ticket, unsigned blocks) {
  __shared__ bool last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(ticket, 1u) == blocks - 1;
  __syncthreads();
  if (last) __threadfence();
  return last;
}

// ---- Preprocessing (spec 4) ------------------------------------------------------------------

template <typename Sample>
__global__ void validate_kernel(const Sample* luma, u64 count, unsigned limit, unsigned* status,
                                unsigned bit) {
  bool bad = false;
  const u64 stride = u64(gridDim.x) * blockDim.x;
  for (u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
    bad |= unsigned(luma[i]) > limit;
  if (__any_sync(0xffffffffu, bad) && (threadIdx.x & 31) == 0) atomicOr(status, bit);
}

// Conversion to 10 bits through the index tables (spec 4.2), fused with the out-of-place 2x2
// anti-dither (spec 4.3) when it is on.
template <typename Sample>
__global__ void preprocess_kernel(const Sample* luma, unsigned in_w, int bpc, const uint32_t* rows,
                                  const uint32_t* cols, unsigned w, unsigned h, bool dither,
                                  uint16_t* out) {
  const unsigned c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  if (c >= w || r >= h) return;
  auto at = [&](unsigned rr, unsigned cc) {  // null tables: no resize (identity maps)
    if (!rows) return to_10bit(luma[size_t(rr) * in_w + cc], bpc);
    return to_10bit(luma[size_t(rows[rr]) * in_w + cols[cc]], bpc);
  };
  uint32_t v = at(r, c);
  if (dither) {
    const bool right = c + 1 < w, down = r + 1 < h;
    if (right && down) v = (v + at(r, c + 1) + at(r + 1, c) + at(r + 1, c + 1)) >> 2;
    else if (down) v = (v + at(r + 1, c)) >> 1;
    else if (right) v = (v + at(r, c + 1)) >> 1;
  }
  out[size_t(r) * w + c] = uint16_t(v);
}

// ---- Spatial mask (spec 5) ---------------------------------------------------------------------

// Column sums of the zero-derivative flag z over rows r-3..r+3 (clipped).
__global__ void mask_vsum_kernel(const uint16_t* img, unsigned w, unsigned h, uint8_t* vsum) {
  const unsigned c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  if (c >= w || r >= h) return;
  const unsigned r0 = r >= 3 ? r - 3 : 0, r1 = min(h - 1, r + 3);
  unsigned n = 0;
  uint16_t cur = img[size_t(r0) * w + c];
  for (unsigned y = r0; y <= r1; ++y) {
    const uint16_t* row = img + size_t(y) * w;
    const bool eq_right = c + 1 >= w || cur == row[c + 1];
    uint16_t below = cur;
    if (y + 1 < h) below = row[w + c];
    n += (eq_right && cur == below) ? 1u : 0u;
    cur = below;
  }
  vsum[size_t(r) * w + c] = uint8_t(n);
}

__global__ void mask_kernel(const uint8_t* vsum, unsigned w, unsigned h, int mask_index,
                            uint8_t* mask) {
  const unsigned c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  if (c >= w || r >= h) return;
  const uint8_t* row = vsum + size_t(r) * w;
  const unsigned c0 = c >= 3 ? c - 3 : 0, c1 = min(w - 1, c + 3);
  int n = 0;
  for (unsigned x = c0; x <= c1; ++x) n += row[x];
  mask[size_t(r) * w + c] = uint8_t(n > mask_index);
}

constexpr int kMaskTw = 32, kMaskTh = 8;
// The halo an output tile needs: rows r0-3..r0+th+3, columns c0-3..c0+tw+3.
constexpr int kMaskIR = kMaskTh + 7, kMaskIC = kMaskTw + 7;

// The mask of one 32 x 8 tile from its image halo in shared memory (filled by the caller; the
// first barrier here waits for it): z flags (0 outside the image, spec 5), sums of 7 rows then 7
// columns, threshold. Shared by the mask-only and the preprocess-and-mask kernels.
__device__ __forceinline__ void mask_from_halo(const uint16_t (&im)[kMaskIR][kMaskIC + 1], int r0,
                                               int c0, int w, int h, int mask_index,
                                               uint8_t* mask) {
  constexpr int ZR = kMaskTh + 6, ZC = kMaskTw + 6;
  __shared__ uint8_t z[ZR][ZC + 2];
  __shared__ uint8_t vs[kMaskTh][ZC + 2];
  const int t = int(threadIdx.y) * kMaskTw + int(threadIdx.x), nt = kMaskTw * kMaskTh;
  __syncthreads();
  for (int i = t; i < ZR * ZC; i += nt) {
    const int zr = i / ZC, zc = i % ZC, y = r0 - 3 + zr, x = c0 - 3 + zc;
    uint8_t v = 0;
    if (y >= 0 && y < h && x >= 0 && x < w) {
      const uint16_t cur = im[zr][zc];
      v = uint8_t((x + 1 >= w || cur == im[zr][zc + 1]) && (y + 1 >= h || cur == im[zr + 1][zc]));
    }
    z[zr][zc] = v;
  }
  __syncthreads();
  for (int i = t; i < kMaskTh * ZC; i += nt) {
    const int r = i / ZC, x = i % ZC;
    int n = 0;
    for (int k = 0; k < 7; ++k) n += z[r + k][x];
    vs[r][x] = uint8_t(n);
  }
  __syncthreads();
  const int r = int(threadIdx.y), c = int(threadIdx.x);
  if (r0 + r < h && c0 + c < w) {
    int n = 0;
    for (int k = 0; k < 7; ++k) n += vs[r][c + k];
    mask[size_t(r0 + r) * w + c0 + c] = uint8_t(n > mask_index);
  }
}

// The same mask in one kernel: a 32 x 8 output tile loads its image halo (15 x 39) into shared
// memory, forms z there (0 outside the image, spec 5), sums 7 rows then 7 columns and thresholds.
// Integer counts, so identical to the two-kernel version.
__global__ void __launch_bounds__(kMaskTw * kMaskTh) mask_fused_kernel(const uint16_t* img, int w, int h,
                                                                        int mask_index, uint8_t* mask) {
  __shared__ uint16_t im[kMaskIR][kMaskIC + 1];
  constexpr int IC = kMaskIC;
  const int c0 = int(blockIdx.x) * kMaskTw, r0 = int(blockIdx.y) * kMaskTh;
  const int t = int(threadIdx.y) * kMaskTw + int(threadIdx.x), nt = kMaskTw * kMaskTh;
  for (int i = t; i < kMaskIR * IC; i += nt) {
    const int y = r0 - 3 + i / IC, x = c0 - 3 + i % IC;
    im[i / IC][i % IC] = (y >= 0 && y < h && x >= 0 && x < w) ? img[size_t(y) * w + x] : uint16_t(0);
  }
  mask_from_halo(im, r0, c0, w, h, mask_index, mask);
}

// Preprocessing and the mask in one kernel: the halo tile is converted (and anti-dithered) from
// the input directly, with the same formula as preprocess_kernel, and the tile's own pixels are
// written out as the 10-bit image. Integer throughout, so identical to the three-kernel version.
template <typename Sample>
__device__ __forceinline__ uint16_t pre_value(const Sample* luma, unsigned in_w, int bpc,
                                              const uint32_t* rows, const uint32_t* cols, int w,
                                              int h, bool dither, int r, int c) {
  auto at = [&](int rr, int cc) {  // null tables: no resize (identity maps)
    if (!rows) return to_10bit(luma[size_t(rr) * in_w + cc], bpc);
    return to_10bit(luma[size_t(__ldg(rows + rr)) * in_w + __ldg(cols + cc)], bpc);
  };
  uint32_t v = at(r, c);
  if (dither) {
    const bool right = c + 1 < w, down = r + 1 < h;
    if (right && down) v = (v + at(r, c + 1) + at(r + 1, c) + at(r + 1, c + 1)) >> 2;
    else if (down) v = (v + at(r + 1, c)) >> 1;
    else if (right) v = (v + at(r, c + 1)) >> 1;
  }
  return uint16_t(v);
}

template <typename Sample>
__global__ void __launch_bounds__(kMaskTw * kMaskTh) premask_kernel(
    const Sample* luma, unsigned in_w, int bpc, const uint32_t* rows, const uint32_t* cols, int w,
    int h, bool dither, int mask_index, uint16_t* pre, uint8_t* mask) {
  __shared__ uint16_t im[kMaskIR][kMaskIC + 1];
  constexpr int IC = kMaskIC;
  const int c0 = int(blockIdx.x) * kMaskTw, r0 = int(blockIdx.y) * kMaskTh;
  const int t = int(threadIdx.y) * kMaskTw + int(threadIdx.x), nt = kMaskTw * kMaskTh;
  for (int i = t; i < kMaskIR * IC; i += nt) {
    const int y = r0 - 3 + i / IC, x = c0 - 3 + i % IC;
    uint16_t v = 0;
    if (y >= 0 && y < h && x >= 0 && x < w) {
      v = pre_value(luma, in_w, bpc, rows, cols, w, h, dither, y, x);
      const int ty = y - r0, tx = x - c0;
      if (ty >= 0 && ty < kMaskTh && tx >= 0 && tx < kMaskTw) pre[size_t(y) * w + x] = v;
    }
    im[i / IC][i % IC] = v;
  }
  mask_from_halo(im, r0, c0, w, h, mask_index, mask);
}

// ---- Per scale: decimation + mode filter + level map (spec 6 step 1, 6.2) -------------------

// The input of scale s is `prev` sampled every `step` pixels (step 2 = the decimation of spec 6
// step 1). The mask of scale s is the full-resolution mask sampled every 2^shift pixels (it is
// never recomputed). Writes the filtered image (the next scale's input) and the level map.
__global__ void mode_kernel(const uint16_t* prev, unsigned prev_w, unsigned step,
                            const uint8_t* mask, unsigned mask_w, unsigned shift, unsigned w,
                            unsigned h, int base, int band, uint16_t* out, uint16_t* level) {
  const unsigned c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  if (c >= w || r >= h) return;
  auto in = [&](unsigned rr, unsigned cc) { return prev[size_t(rr * step) * prev_w + cc * step]; };
  uint16_t v;
  if (r == 0 || r + 1 == h) {
    v = in(r, c);  // border rows stay exactly as they were (quirk 5)
  } else {
    uint16_t hm[3];
    for (int k = 0; k < 3; ++k) {
      const unsigned rr = r + k - 1;
      hm[k] = (c == 0 || c + 1 == w) ? in(rr, c) : mode3(in(rr, c - 1), in(rr, c), in(rr, c + 1));
    }
    v = mode3(hm[0], hm[1], hm[2]);
  }
  const size_t at = size_t(r) * w + c;
  out[at] = v;
  const bool m = mask[size_t(r << shift) * mask_w + (c << shift)] != 0;
  const unsigned l = unsigned(v) - unsigned(base);  // wraps for codes below base
  level[at] = (m && l < unsigned(band)) ? uint16_t(l) : kNotCounted;
}

// Per row r, 32 columns per word (bit c%32 of word c/32):
//   run:     level(r, c) != level(r, c-1) (always set at c = 0): where runs of equal levels begin;
//   counted: level(r, c) is counted;
//   change:  the row leaving the window at row r (r-pad-1) and the one entering it (r+pad) differ
//            at c; a missing row counts as "not counted" everywhere.
__global__ void bits_kernel(const uint16_t* level, int w, int h, int pad, int words, uint32_t* run,
                            uint32_t* counted, uint32_t* change) {
  const int c = int(blockIdx.x) * 32 + int(threadIdx.x), r = int(blockIdx.y) * blockDim.y + threadIdx.y;
  if (r >= h) return;  // whole warps leave together (a warp is one row)
  const bool in = c < w;
  const uint16_t* row = level + size_t(r) * w;
  const uint16_t l = in ? row[c] : kNotCounted;
  const bool run_bit = in && (c == 0 || row[c - 1] != l);
  const int leave = r - pad - 1, enter = r + pad;
  const uint16_t a = (in && leave >= 0) ? level[size_t(leave) * w + c] : kNotCounted;
  const uint16_t b = (in && enter < h) ? level[size_t(enter) * w + c] : kNotCounted;
  const unsigned rb = __ballot_sync(0xffffffffu, run_bit);
  const unsigned cb = __ballot_sync(0xffffffffu, in && l != kNotCounted);
  const unsigned xb = __ballot_sync(0xffffffffu, a != b);
  if (threadIdx.x == 0) {
    const size_t at = size_t(r) * words + blockIdx.x;
    run[at] = rb;
    counted[at] = cb;
    change[at] = xb;
  }
}

// ---- c-values (spec 6.3, 10.3) -----------------------------------------------------------------

struct CvScale {
  const uint16_t* level;
  const uint32_t *run, *counted, *change;
  float* out;
  uint16_t* hist;  // [chunk][level][column]
  int w, h, words, rows_per_chunk, col_blocks, block_begin, blocks;
  u64 k, n;
  ScaleState* state;
};

struct CvArgs {
  CvScale scale[kNumScales];
  int pad, band;
  const float* recip;       // the CPU's reciprocal table R
  const uint32_t* diffs;    // per level: bit d set when contrast d takes part (spec 6.3 step 3)
  int weights[cambi::kMaxNumDiffs];
  u64* sums;                // result: [scale][2] for this picture
  unsigned* status;
};

// First set bit of `words` at a position in [p, hi], or hi + 1.
__device__ __forceinline__ int next_set(const uint32_t* words, int p, int hi) {
  while (p <= hi) {
    const int wi = p >> 5;
    const uint32_t bits = __ldg(words + wi) >> (p & 31);
    if (bits) {
      const int q = p + __ffs(int(bits)) - 1;
      return q <= hi ? q : hi + 1;
    }
    p = (wi + 1) << 5;
  }
  return hi + 1;
}

// First position in [p, hi] where `sel` is clear or a new run begins, or hi + 1.
__device__ __forceinline__ int next_stop(const uint32_t* sel, const uint32_t* run, int p, int hi) {
  while (p <= hi) {
    const int wi = p >> 5;
    const uint32_t bits = (~__ldg(sel + wi) | __ldg(run + wi)) >> (p & 31);
    if (bits) {
      const int q = p + __ffs(int(bits)) - 1;
      return q <= hi ? q : hi + 1;
    }
    p = (wi + 1) << 5;
  }
  return hi + 1;
}

// Adds sign * (how many selected pixels of this row in [lo, hi] have level l) to cell l of the
// thread's column, one run of equal levels at a time. uint16 arithmetic is modular and every true
// count lies in [0, 4225], so the order of updates cannot matter (spec 10.3).
__device__ __forceinline__ void apply_row(const uint16_t* row, const uint32_t* sel,
                                          const uint32_t* run, int lo, int hi, uint16_t* column,
                                          int stride, int sign) {
  int pos = next_set(sel, lo, hi);
  while (pos <= hi) {
    const uint16_t l = __ldg(row + pos);
    const int end = next_stop(sel, run, pos + 1, hi);
    if (l != kNotCounted) {
      uint16_t* cell = column + size_t(l) * stride;
      *cell = uint16_t(*cell + sign * (end - pos));
    }
    pos = next_set(sel, end, hi);
  }
}

__global__ void __launch_bounds__(kCvThreads) c_values_kernel(CvArgs args) {
  __shared__ unsigned bins[kBins0];
  int s = 0;
  while (s + 1 < kNumScales && int(blockIdx.x) >= args.scale[s + 1].block_begin) ++s;
  const CvScale& sc = args.scale[s];
  const int local = int(blockIdx.x) - sc.block_begin;
  const int chunk = local / sc.col_blocks;
  const int j = (local % sc.col_blocks) * kCvThreads + int(threadIdx.x);
  const int w = sc.w, h = sc.h, pad = args.pad, band = args.band;
  const int r0 = chunk * sc.rows_per_chunk, r1 = min(h, r0 + sc.rows_per_chunk);

  for (int b = threadIdx.x; b < kBins0; b += kCvThreads) bins[b] = 0;
  __syncthreads();

  u64 units_sum = 0;
  unsigned zeros = 0;
  bool bad = false;
  if (j < w && r0 < h) {
    uint16_t* column = sc.hist + size_t(chunk) * size_t(band) * size_t(w) + j;
    const int lo = max(0, j - pad), hi = min(w - 1, j + pad);
    auto row_of = [&](int r) { return sc.level + size_t(r) * w; };
    auto words_of = [&](const uint32_t* bits, int r) { return bits + size_t(r) * sc.words; };
    // The window of the chunk's first row.
    for (int r = max(0, r0 - pad); r <= min(h - 1, r0 + pad); ++r)
      apply_row(row_of(r), words_of(sc.counted, r), words_of(sc.run, r), lo, hi, column, w, +1);
    for (int i = r0; i < r1; ++i) {
      if (i > r0) {
        // Slide: the changed columns of the leaving row come out, those of the entering row go
        // in; a row step with no change inside [lo, hi] is skipped.
        const uint32_t* change = words_of(sc.change, i);
        if (next_set(change, lo, hi) <= hi) {
          const int leave = i - pad - 1, enter = i + pad;
          if (leave >= 0)
            apply_row(row_of(leave), change, words_of(sc.run, leave), lo, hi, column, w, -1);
          if (enter < h)
            apply_row(row_of(enter), change, words_of(sc.run, enter), lo, hi, column, w, +1);
        }
      }
      // Spec 6.3 step 3, float for float the CPU's: int product, round-to-nearest int->f32, one
      // f32 multiply by the table entry; c is the max over the contrasts.
      const uint16_t l = __ldg(row_of(i) + j);
      float c = 0.0f;
      if (l != kNotCounted) {
        uint32_t diffs = __ldg(args.diffs + l);
        const int p0 = column[size_t(l) * w];
        while (diffs) {
          const int d = __ffs(int(diffs)) - 1;
          diffs &= diffs - 1;
          const int up = int(l) + d + 1 < band ? int(column[size_t(l + d + 1) * w]) : 0;
          const int down = int(l) - d - 1 >= 0 ? int(column[size_t(l - d - 1) * w]) : 0;
          const int pm = up > down ? up : down;
          const float val = __fmul_rn(__int2float_rn(args.weights[d] * p0 * pm), __ldg(args.recip + p0 + pm));
          if (val > c) c = val;
        }
      }
      sc.out[size_t(i) * w + j] = c;
      const uint32_t bits = __float_as_uint(c);
      u64 units;
      bad |= !units_of(bits, units);
      units_sum += units;
      if (bits == 0) ++zeros;
      else atomicAdd(&bins[bits >> 21], 1u);
    }
    // Take the last window out again: the histograms are all zero between uses.
    for (int r = max(0, r1 - 1 - pad); r <= min(h - 1, r1 - 1 + pad); ++r)
      apply_row(row_of(r), words_of(sc.counted, r), words_of(sc.run, r), lo, hi, column, w, -1);
  }
  if (__any_sync(0xffffffffu, bad) && (threadIdx.x & 31) == 0) atomicOr(args.status, kStatusBadValue);
  // Zeros are counted in registers (most pixels), the rest in shared bins.
  for (int sft = 16; sft > 0; sft >>= 1) zeros += __shfl_down_sync(0xffffffffu, zeros, sft);
  if ((threadIdx.x & 31) == 0 && zeros) atomicAdd(&bins[0], zeros);
  const u128 block_units = block_sum_u128(u128(units_sum));
  ScaleState* st = sc.state;
  if (threadIdx.x == 0 && block_units) atomic_add_u128(st->total, block_units);
  __syncthreads();
  for (int b = threadIdx.x; b < kBins0; b += kCvThreads)
    if (bins[b]) atomicAdd(&st->bins0[b], bins[b]);

  if (!last_block(&st->ticket[0], unsigned(sc.blocks))) return;
  // Radix pass 0 scan: the 11-bit digit of the k-th largest value.
  int bin;
  u64 above;
  const bool found = block_find_bin(st->bins0, kBins0, sc.k, bin, above);
  if (threadIdx.x == 0) {
    if (!found) {
      atomicOr(args.status, kStatusSelection);
      st->done = 1;
    } else if (bin == 0) {
      // The k-th largest is 0: the top-K sum is the sum of everything (seed 001's fast path).
      args.sums[2 * s] = __ldcg(&st->total[0]);
      args.sums[2 * s + 1] = __ldcg(&st->total[1]);
      st->done = 1;
    } else {
      st->prefix = unsigned(bin);
      st->above = above;
    }
  }
}

// ---- Top-K: radix passes 1 and 2 (spec 10.4) ---------------------------------------------------

struct PassScale {
  const float* values;
  u64 n, k;
  ScaleState* state;
};
struct PassArgs {
  PassScale scale[kNumScales];
  u64* sums;
  unsigned* status;
  bool skip_idle;  // pass 0: blocks past the scale's values only take their ticket
};

// Pass 0 (tiled c-values only; the global kernel counts it itself): the top digit (bits 21..31) of
// every value, the exact sum of all values (units of 2^-24) and the validity check; the last block
// finds the digit of the k-th largest. When that is bin 0 (only exact zeros there) the top-K sum
// is the total (seed 001's fast path).
__global__ void __launch_bounds__(kPassThreads) radix_pass0_kernel(PassArgs args) {
  __shared__ unsigned bins[kBins0];
  const int s = blockIdx.y;
  const PassScale& sc = args.scale[s];
  ScaleState* st = sc.state;
  // VQX_CAMBI_CUDA_PASS_IDLE: a block with no value of its scale (the small scales use a few of
  // the grid's blocks) adds nothing; it only takes its ticket (block-uniform branch).
  if (args.skip_idle && u64(blockIdx.x) * kPassThreads >= sc.n) goto ticket;
  {
  for (int b = threadIdx.x; b < kBins0; b += kPassThreads) bins[b] = 0;
  __syncthreads();
  const uint32_t* v = reinterpret_cast<const uint32_t*>(sc.values);
  u64 units_sum = 0;  // per thread < 2^25 values * 2^38
  unsigned zeros = 0;
  bool bad = false;
  for (u64 i = u64(blockIdx.x) * kPassThreads + threadIdx.x; i < sc.n; i += u64(gridDim.x) * kPassThreads) {
    const uint32_t bits = __ldg(v + i);
    u64 units;
    bad |= !units_of(bits, units);
    units_sum += units;
    if (bits == 0) {
      ++zeros;  // most values: counted in registers
    } else {
      // Banded content repeats values: lanes with the same bin add once (warp-aggregated).
      const unsigned active = __activemask(), bin = bits >> 21;
      const unsigned same = __match_any_sync(active, bin);
      if ((threadIdx.x & 31) == unsigned(__ffs(int(same)) - 1)) atomicAdd(&bins[bin], unsigned(__popc(same)));
    }
  }
  if (__any_sync(0xffffffffu, bad) && (threadIdx.x & 31) == 0) atomicOr(args.status, kStatusBadValue);
  for (int sft = 16; sft > 0; sft >>= 1) zeros += __shfl_down_sync(0xffffffffu, zeros, sft);
  if ((threadIdx.x & 31) == 0 && zeros) atomicAdd(&bins[0], zeros);
  const u128 block_units = block_sum_u128(u128(units_sum));
  if (threadIdx.x == 0 && block_units) atomic_add_u128(st->total, block_units);
  __syncthreads();
  for (int b = threadIdx.x; b < kBins0; b += kPassThreads)
    if (bins[b]) atomicAdd(&st->bins0[b], bins[b]);
  }
ticket:
  if (!last_block(&st->ticket[0], gridDim.x)) return;
  int bin;
  u64 above;
  const bool found = block_find_bin(st->bins0, kBins0, sc.k, bin, above);
  if (threadIdx.x == 0) {
    if (!found) {
      atomicOr(args.status, kStatusSelection);
      st->done = 1;
    } else if (bin == 0) {
      args.sums[2 * s] = __ldcg(&st->total[0]);
      args.sums[2 * s + 1] = __ldcg(&st->total[1]);
      st->done = 1;
    } else {
      st->prefix = unsigned(bin);
      st->above = above;
    }
  }
}

// Debug (VQX_CAMBI_CUDA_STATS): how many tiles the dense kernel redid.
__global__ void tile_stats_kernel(const unsigned* overflow_count, int tiles, int pic) {
  printf("cambi cuda stats: picture %d: %u of %d tiles dense\n", pic, *overflow_count, tiles);
}

// Pass 1: the second digit (bits 10..20) among the values whose top digit is the pass-0 bin.
__global__ void __launch_bounds__(kPassThreads) radix_pass1_kernel(PassArgs args) {
  __shared__ unsigned bins[kBins1];
  const PassScale& sc = args.scale[blockIdx.y];
  ScaleState* st = sc.state;
  if (__ldcg(&st->done)) return;  // whole grid row alike: set by an earlier kernel
  const unsigned prefix = __ldcg(&st->prefix);
  for (int b = threadIdx.x; b < kBins1; b += kPassThreads) bins[b] = 0;
  __syncthreads();
  const uint32_t* v = reinterpret_cast<const uint32_t*>(sc.values);
  for (u64 i = u64(blockIdx.x) * kPassThreads + threadIdx.x; i < sc.n; i += u64(gridDim.x) * kPassThreads) {
    const uint32_t bits = __ldg(v + i);
    if ((bits >> 21) == prefix) atomicAdd(&bins[(bits >> 10) & 0x7FFu], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kBins1; b += kPassThreads)
    if (bins[b]) atomicAdd(&st->bins1[b], bins[b]);
  if (!last_block(&st->ticket[1], gridDim.x)) return;
  int bin;
  u64 above;
  const u64 have = __ldcg(&st->above);
  const bool found = block_find_bin(st->bins1, kBins1, sc.k - have, bin, above);
  if (threadIdx.x == 0) {
    if (!found) {
      atomicOr(args.status, kStatusSelection);
      st->done = 1;
    } else {
      st->prefix = (prefix << 11) | unsigned(bin);
      st->above = have + above;
    }
  }
}

// Pass 2: the last digit (bits 0..9) among the values with the 22-bit prefix, and the exact sum of
// the values above that prefix; then T, G and S = S_gt + (k - G) * T (spec 10.4).
__global__ void __launch_bounds__(kPassThreads) radix_pass2_kernel(PassArgs args) {
  __shared__ unsigned bins[kBins2];
  const int s = blockIdx.y;
  const PassScale& sc = args.scale[s];
  ScaleState* st = sc.state;
  if (__ldcg(&st->done)) return;
  const unsigned prefix = __ldcg(&st->prefix);
  for (int b = threadIdx.x; b < kBins2; b += kPassThreads) bins[b] = 0;
  __syncthreads();
  const uint32_t* v = reinterpret_cast<const uint32_t*>(sc.values);
  u64 units_sum = 0;  // per thread < 2^25 values * 2^38
  for (u64 i = u64(blockIdx.x) * kPassThreads + threadIdx.x; i < sc.n; i += u64(gridDim.x) * kPassThreads) {
    const uint32_t bits = __ldg(v + i);
    const uint32_t top = bits >> 10;
    if (top == prefix) {
      atomicAdd(&bins[bits & 0x3FFu], 1u);
    } else if (top > prefix) {
      u64 u;
      units_of(bits, u);  // validity was checked by the c-value kernel
      units_sum += u;
    }
  }
  const u128 block_units = block_sum_u128(u128(units_sum));
  if (threadIdx.x == 0 && block_units) atomic_add_u128(st->greater, block_units);
  __syncthreads();
  for (int b = threadIdx.x; b < kBins2; b += kPassThreads)
    if (bins[b]) atomicAdd(&st->bins2[b], bins[b]);
  if (!last_block(&st->ticket[2], gridDim.x)) return;
  int bin;
  u64 above;
  const u64 have = __ldcg(&st->above);
  const bool found = block_find_bin(st->bins2, kBins2, sc.k - have, bin, above);
  if (!found) {
    if (threadIdx.x == 0) atomicOr(args.status, kStatusSelection), st->done = 1;
    return;
  }
  // Values in the bins above T's, inside the prefix: count * units each, exact.
  u128 part = 0;
  for (int b = bin + 1 + int(threadIdx.x); b < kBins2; b += kPassThreads) {
    const unsigned c = __ldcg(st->bins2 + b);
    if (c) {
      u64 u;
      units_of((prefix << 10) | unsigned(b), u);
      part += u128(c) * u;
    }
  }
  const u128 inside = block_sum_u128(part);
  if (threadIdx.x == 0) {
    const uint32_t t_bits = (prefix << 10) | unsigned(bin);
    u64 t_units;
    units_of(t_bits, t_units);
    const u64 greater_count = have + above;  // G
    const u128 sum = (u128(__ldcg(&st->greater[1])) << 64) + __ldcg(&st->greater[0]) + inside +
                     u128(sc.k - greater_count) * t_units;
    args.sums[2 * s] = u64(sum);
    args.sums[2 * s + 1] = u64(sum >> 64);
    st->done = 1;
  }
}

// ---- c-values, tiled (spec 6.3; an exact-count alternative to 10.3's global histograms) --------
//
// One warp owns a tile of 32 columns x `rows` rows of one scale. Lane j keeps the (2 pad + 1)^2
// window histogram of its column j in shared memory and slides it down the tile, as seed 001's
// column-owned design does, but:
//   - only the levels some pixel of the tile needs (its own level and level +-(d + 1) for its
//     active contrasts d) have a cell: a per-tile bitmap over the band, popcount-indexed, so a
//     tile needs K cells per lane instead of `band` and many warps fit an SM. A tile needing more
//     than K cells is listed and redone by the dense kernel (a cell per band level, one warp per
//     block). A tile without a counted pixel writes zeros at once.
//   - the leaving and entering rows' segments [c0 - pad, c0 + 31 + pad] are read by the whole
//     warp (coalesced); run starts are found by ballot, and each run of one level is applied by
//     all lanes at once: lane j adds the overlap of the run with its window [j, j + 2 pad]
//     (segment coordinates) to its own cell. The loop over runs is warp-uniform.
// Counts are integers and every update lands exactly once, so each cell holds the true window
// count when it is read, whatever the order: the same counts as the CPU's sliding histogram, and
// the c-value formula below is the CPU's float for float.
constexpr int kTileW = 32;
constexpr int kTileWarps = 4;                   // warps (tiles) per block of the compact kernel
constexpr int kBandWords = (1056 + 31) / 32;    // band <= 1023 + 32 + 1 levels (spec 3 step 11)

struct TileScale {
  const uint16_t* level;
  float* out;
  int w, h, tiles_x, tile_begin;
  int rows;  // tile height of this scale (VQX_CAMBI_CUDA_TILE_ROWS_S: per scale)
};

struct TileArgs {
  TileScale scale[kNumScales];
  int scales, pad, band, rows, first, end;  // tiles [first, end) of this launch
  bool lane_runs;                           // apply_lane (else the warp-uniform apply_segment)
  bool reverse;                             // compact tiles in reverse order
  const float* recip;
  const uint32_t* diffs;
  int weights[cambi::kMaxNumDiffs];
  unsigned* overflow_count;  // tiles the compact kernel left to the dense one
  uint32_t* overflow_list;
  int dense_split;           // the dense kernel does each listed tile as this many row pieces
  bool skip_list;            // the classification kernel listed them already (dense fork mode)
};

// Cell index of level l in the tile's set (compact: popcount below l in the bitmap), or -1.
template <bool kDense>
__device__ __forceinline__ int cell_of(unsigned l, const uint32_t* bm, const uint16_t* pre) {
  if (l == kNotCounted) return -1;
  if (kDense) return int(l);
  const uint32_t word = bm[l >> 5], bit = 1u << (l & 31);
  if (!(word & bit)) return -1;
  return int(pre[l >> 5]) + __popc(word & (bit - 1));
}

// First set bit of the 3-word mask b at a position > a, or `end`.
__device__ __forceinline__ int next_bit_after(const uint32_t b[3], int a, int end) {
  int q = (a + 1) >> 5;
  const int sh = (a + 1) & 31;
  if (q < 3) {
    uint32_t m = b[q] & (0xFFFFFFFFu << sh);
    while (true) {
      if (m) return min(end, (q << 5) + __ffs(int(m)) - 1);
      if (++q >= 3) break;
      m = b[q];
    }
  }
  return end;
}

// Loads one row's segment [seg0, seg0 + segw) (levels; kNotCounted outside the image, and for
// rr outside [0, h)). Issued a row step ahead of its use, so the loads overlap the updates.
__device__ __forceinline__ void load_segment(const uint16_t* level, int w, int h, int rr, int seg0,
                                             int segw, int lane, unsigned raw[3]) {
#pragma unroll
  for (int q = 0; q < 3; ++q) {
    const int p = q * 32 + lane, col = seg0 + p;
    raw[q] = kNotCounted;
    if (rr >= 0 && rr < h && p < segw && col >= 0 && col < w) raw[q] = __ldg(level + size_t(rr) * w + col);
  }
}

// The levels as cell indices (-1: not counted, outside the image or the tile's set).
template <bool kDense>
__device__ __forceinline__ void to_cells(const unsigned raw[3], const uint32_t* bm,
                                         const uint16_t* pre, int cell[3]) {
#pragma unroll
  for (int q = 0; q < 3; ++q) cell[q] = cell_of<kDense>(raw[q], bm, pre);
}

// Adds sign * |run ∩ window(lane)| to the lane's cell of each run of equal cells among the
// selected positions (sel: 3 warp-uniform words). Warp-uniform loop over the run starts.
__device__ __forceinline__ void apply_segment(const int cell[3], const uint32_t sel[3], int segw,
                                              int lane, int pad2, uint16_t* hist, int sign) {
  uint32_t start[3], bound[3];
#pragma unroll
  for (int q = 0; q < 3; ++q) {
    int prev = __shfl_up_sync(0xffffffffu, cell[q], 1);
    const int last_prev = q > 0 ? __shfl_sync(0xffffffffu, cell[q > 0 ? q - 1 : 0], 31) : -1;
    if (lane == 0) prev = last_prev;
    const int p = q * 32 + lane;
    const bool s = (sel[q] >> lane) & 1u;
    const bool s_prev = p > 0 && (lane > 0 ? ((sel[q] >> (lane - 1)) & 1u) : ((sel[q - 1 >= 0 ? q - 1 : 0] >> 31) & 1u));
    const bool b = !s || !s_prev || cell[q] != prev;
    bound[q] = __ballot_sync(0xffffffffu, b);
    start[q] = __ballot_sync(0xffffffffu, s && cell[q] >= 0 && b);
  }
#pragma unroll
  for (int q = 0; q < 3; ++q) {
    uint32_t bits = start[q];
    while (bits) {
      const int bpos = __ffs(int(bits)) - 1;
      bits &= bits - 1;
      const int a = q * 32 + bpos;
      const int e = next_bit_after(bound, a, segw);  // run [a, e)
      const int c = __shfl_sync(0xffffffffu, cell[q], bpos);
      const int ov = min(e - 1, lane + pad2) - max(a, lane) + 1;
      if (ov > 0) {
        uint16_t* h = hist + c * kTileW + lane;
        *h = uint16_t(*h + sign * ov);
      }
    }
  }
}

// The same update, lane by lane: each run start (and end) is published once per position in
// `seg` (cell | end << 16); lane j then walks only the runs inside its own window [j, j + 2 pad]
// (plus the run that covers j from the left) and adds sign * |run ∩ window| to its cell. A row of
// short runs (texture, noise) costs each lane the runs of its window, not every run of the
// segment as a warp-uniform iteration.
__device__ __forceinline__ void apply_lane(const int cell[3], const uint32_t sel[3], int segw,
                                           int lane, int pad2, const uint32_t wmask[3],
                                           uint32_t* seg, uint16_t* hist, int sign) {
  uint32_t start[3], bound[3];
#pragma unroll
  for (int q = 0; q < 3; ++q) {
    int prev = __shfl_up_sync(0xffffffffu, cell[q], 1);
    const int last_prev = q > 0 ? __shfl_sync(0xffffffffu, cell[q > 0 ? q - 1 : 0], 31) : -1;
    if (lane == 0) prev = last_prev;
    const int p = q * 32 + lane;
    const bool s = (sel[q] >> lane) & 1u;
    const bool s_prev = p > 0 && (lane > 0 ? ((sel[q] >> (lane - 1)) & 1u) : ((sel[q - 1 >= 0 ? q - 1 : 0] >> 31) & 1u));
    const bool b = !s || !s_prev || cell[q] != prev;
    bound[q] = __ballot_sync(0xffffffffu, b);
    start[q] = __ballot_sync(0xffffffffu, s && cell[q] >= 0 && b);
  }
  __syncwarp();  // the previous row's readers are done with seg
#pragma unroll
  for (int q = 0; q < 3; ++q) {
    const int p = q * 32 + lane;
    if (p < segw) seg[p] = (uint32_t(cell[q]) & 0xFFFFu) | (uint32_t(next_bit_after(bound, p, segw)) << 16);
  }
  __syncwarp();
  uint32_t S[3];
#pragma unroll
  for (int q = 0; q < 3; ++q) S[q] = start[q] & wmask[q];
  if (((sel[0] >> lane) & 1u) && cell[0] >= 0) S[0] |= 1u << lane;  // the run covering j
  const int lim = lane + pad2 + 1;
#pragma unroll
  for (int q = 0; q < 3; ++q) {
    uint32_t m = S[q];
    while (m) {
      const int a = q * 32 + __ffs(int(m)) - 1;
      m &= m - 1;
      const uint32_t info = seg[a];
      const int e = min(int(info >> 16), lim);
      uint16_t* h = hist + int(info & 0xFFFFu) * kTileW + lane;
      *h = uint16_t(*h + sign * (e - a));
    }
  }
}

template <bool kDense>
__device__ __forceinline__ void tile_c_values(const TileArgs& args, const TileScale& sc, int tx,
                                              int r0, int r1, int lane, uint16_t* hist,
                                              const uint32_t* bm, const uint16_t* pre, uint32_t* seg) {
  // Rows [r0, r1) of tile column tx (the whole tile, or a piece of it in the dense kernel).
  const int w = sc.w, h = sc.h, pad = args.pad, band = args.band;
  const bool lane_runs = args.lane_runs;
  const int c0 = tx * kTileW;
  const int seg0 = c0 - pad, segw = kTileW + 2 * pad;
  uint32_t all[3];
#pragma unroll
  for (int q = 0; q < 3; ++q) {
    const int n = segw - q * 32;
    all[q] = n >= 32 ? 0xFFFFFFFFu : (n > 0 ? (1u << n) - 1u : 0u);
  }
  // The lane's window [lane, lane + 2 pad] as bits of the three segment words.
  uint32_t wmask[3];
#pragma unroll
  for (int q = 0; q < 3; ++q) {
    const int lo = max(lane, q * 32), hi = min(lane + 2 * pad, q * 32 + 31);
    wmask[q] = lo > hi ? 0u : ((hi - lo == 31) ? 0xFFFFFFFFu : (((1u << (hi - lo + 1)) - 1u) << (lo - q * 32)));
  }
  auto apply = [&](const int c[3], const uint32_t sl[3], int sign) {
    if (lane_runs) apply_lane(c, sl, segw, lane, 2 * pad, wmask, seg, hist, sign);
    else apply_segment(c, sl, segw, lane, 2 * pad, hist, sign);
  };
  int cell[3], other[3];
  unsigned raw[3], raw2[3];
  // The window of the tile's first row (the next row's load issued before this one's updates).
  const int b0 = max(0, r0 - pad), b1 = min(h - 1, r0 + pad);
  load_segment(sc.level, w, h, b0, seg0, segw, lane, raw);
  for (int rr = b0; rr <= b1; ++rr) {
    to_cells<kDense>(raw, bm, pre, cell);
    if (rr < b1) load_segment(sc.level, w, h, rr + 1, seg0, segw, lane, raw);
    apply(cell, all, +1);
  }
  const int col = c0 + lane;
  // Rows leaving and entering at the first slide step, and the first pixel.
  if (r0 + 1 < r1) {
    load_segment(sc.level, w, h, r0 - pad, seg0, segw, lane, raw);
    load_segment(sc.level, w, h, r0 + 1 + pad, seg0, segw, lane, raw2);
  }
  unsigned own = col < w ? __ldg(sc.level + size_t(r0) * w + col) : kNotCounted;
  for (int i = r0; i < r1; ++i) {
    const unsigned l = own;
    if (i + 1 < r1 && col < w) own = __ldg(sc.level + size_t(i + 1) * w + col);
    if (i > r0) {
      // Slide: positions where the leaving and entering rows differ (as cells) come out / go in.
      to_cells<kDense>(raw, bm, pre, cell);
      to_cells<kDense>(raw2, bm, pre, other);
      if (i + 1 < r1) {
        load_segment(sc.level, w, h, i - pad, seg0, segw, lane, raw);
        load_segment(sc.level, w, h, i + 1 + pad, seg0, segw, lane, raw2);
      }
      uint32_t sel[3];
      bool any = false;
#pragma unroll
      for (int q = 0; q < 3; ++q) {
        sel[q] = __ballot_sync(0xffffffffu, cell[q] != other[q]) & all[q];
        any |= sel[q] != 0;
      }
      if (any) {
        apply(cell, sel, -1);
        apply(other, sel, +1);
      }
    }
    // Spec 6.3 step 3, float for float the CPU's (int product, round-to-nearest int->f32, one
    // f32 multiply by the table entry; c is the max over the contrasts).
    if (col < w) {
      float c = 0.0f;
      if (l != kNotCounted) {
        uint32_t diffs = __ldg(args.diffs + l);
        const int p0 = hist[cell_of<kDense>(l, bm, pre) * kTileW + lane];
        while (diffs) {
          const int d = __ffs(int(diffs)) - 1;
          diffs &= diffs - 1;
          const int up = int(l) + d + 1 < band ? int(hist[cell_of<kDense>(l + d + 1, bm, pre) * kTileW + lane]) : 0;
          const int down = int(l) - d - 1 >= 0 ? int(hist[cell_of<kDense>(l - d - 1, bm, pre) * kTileW + lane]) : 0;
          const int pm = up > down ? up : down;
          const float val = __fmul_rn(__int2float_rn(args.weights[d] * p0 * pm), __ldg(args.recip + p0 + pm));
          if (val > c) c = val;
        }
      }
      sc.out[size_t(i) * w + col] = c;
    }
  }
}

__device__ __forceinline__ int scale_of_tile(const TileArgs& args, int t) {
  int s = 0;
  while (s + 1 < args.scales && t >= args.scale[s + 1].tile_begin) ++s;
  return s;
}

// The levels tile (tx, ty) needs, as a bitmap over the band with its exclusive popcount prefix;
// returns the number of cells (warp-uniform).
__device__ __forceinline__ int tile_levels(const TileArgs& args, const TileScale& sc, int tx, int ty,
                                           int lane, uint32_t* bm, uint16_t* pre) {
  const int words = (args.band + 31) >> 5;
  for (int q = lane; q < kBandWords; q += 32) bm[q] = 0;
  __syncwarp();
  // The levels the tile's pixels need.
  const int col = tx * kTileW + lane, r0 = ty * sc.rows, r1 = min(sc.h, r0 + sc.rows);
  unsigned last = kNotCounted;
  if (col < sc.w)
    for (int i = r0; i < r1; ++i) {
      const unsigned l = __ldg(sc.level + size_t(i) * sc.w + col);
      if (l == kNotCounted || l == last) continue;
      last = l;
      atomicOr(&bm[l >> 5], 1u << (l & 31));
      uint32_t diffs = __ldg(args.diffs + l);
      while (diffs) {
        const int d = __ffs(int(diffs)) - 1;
        diffs &= diffs - 1;
        const int up = int(l) + d + 1, down = int(l) - d - 1;
        if (up < args.band) atomicOr(&bm[up >> 5], 1u << (up & 31));
        if (down >= 0) atomicOr(&bm[down >> 5], 1u << (down & 31));
      }
    }
  __syncwarp();
  // Exclusive popcount prefix over the bitmap words (two warp scans: up to 33 words).
  int total = 0;
  for (int base = 0; base < words; base += 32) {
    const int q = base + lane;
    const int n = q < words ? __popc(bm[q]) : 0;
    int inc = n;
    for (int o = 1; o < 32; o <<= 1) {
      const int v = __shfl_up_sync(0xffffffffu, inc, o);
      if (lane >= o) inc += v;
    }
    if (q < words) pre[q] = uint16_t(total + inc - n);
    total += __shfl_sync(0xffffffffu, inc, 31);
  }
  __syncwarp();
  return total;
}

// Dense fork mode: lists the tiles needing more than `cells` cells before any c-value kernel
// runs, so the dense kernel can run beside the compact one (on a forked stream).
__global__ void __launch_bounds__(kTileW * kTileWarps) tile_classify_kernel(TileArgs args, int cells) {
  __shared__ uint32_t bm_all[kTileWarps][kBandWords];
  __shared__ uint16_t pre_all[kTileWarps][kBandWords];
  const int warp = int(threadIdx.x) >> 5, lane = int(threadIdx.x) & 31;
  const int t = args.first + int(blockIdx.x) * kTileWarps + warp;
  if (t >= args.end) return;  // whole warp
  const int s = scale_of_tile(args, t);
  const TileScale& sc = args.scale[s];
  const int local = t - sc.tile_begin, tx = local % sc.tiles_x, ty = local / sc.tiles_x;
  const int total = tile_levels(args, sc, tx, ty, lane, bm_all[warp], pre_all[warp]);
  if (total > cells && lane == 0) args.overflow_list[atomicAdd(args.overflow_count, 1u)] = uint32_t(t);
}

// Compact kernel: kTileWarps tiles per block, K cells per lane.
template <int K>
__global__ void __launch_bounds__(kTileW * kTileWarps) c_values_tile_kernel(TileArgs args) {
  __shared__ uint16_t hist_all[kTileWarps][K * kTileW];
  __shared__ uint32_t bm_all[kTileWarps][kBandWords];
  __shared__ uint16_t pre_all[kTileWarps][kBandWords];
  __shared__ uint32_t seg_all[kTileWarps][96];
  const int warp = int(threadIdx.x) >> 5, lane = int(threadIdx.x) & 31;
  const int idx = int(blockIdx.x) * kTileWarps + warp;
  if (args.first + idx >= args.end) return;  // whole warp
  // Reverse order by default: the small scales' tiles (few, and the slowest per tile: the same
  // window covers more detail) start first instead of forming the tail.
  const int t = args.reverse ? args.end - 1 - idx : args.first + idx;
  const int s = scale_of_tile(args, t);
  const TileScale& sc = args.scale[s];
  const int local = t - sc.tile_begin, tx = local % sc.tiles_x, ty = local / sc.tiles_x;
  uint16_t* hist = hist_all[warp];
  uint32_t* bm = bm_all[warp];
  uint16_t* pre = pre_all[warp];
  const int total = tile_levels(args, sc, tx, ty, lane, bm, pre);
  const int col = tx * kTileW + lane, r0 = ty * sc.rows, r1 = min(sc.h, r0 + sc.rows);
  if (total == 0) {  // no counted pixel in the tile: every c-value is 0
    if (col < sc.w)
      for (int i = r0; i < r1; ++i) sc.out[size_t(i) * sc.w + col] = 0.0f;
    return;
  }
  if (total > K) {  // too many levels: the dense kernel does this tile
    if (lane == 0 && !args.skip_list) args.overflow_list[atomicAdd(args.overflow_count, 1u)] = uint32_t(t);
    return;
  }
  for (int q = lane; q < K * kTileW / 2; q += 32) reinterpret_cast<uint32_t*>(hist)[q] = 0;
  __syncwarp();
  tile_c_values<false>(args, sc, tx, r0, r1, lane, hist, bm, pre, seg_all[warp]);
}

// Dense kernel: the listed tiles, one warp per block, a cell per band level (dynamic shared
// memory, band * 64 bytes). A grid that fits the device at once walks the list (it is usually
// short or empty).
__global__ void __launch_bounds__(kTileW) c_values_dense_kernel(TileArgs args) {
  extern __shared__ uint32_t dense_smem[];
  __shared__ uint32_t seg[96];
  const unsigned count = __ldcg(args.overflow_count);
  const int lane = int(threadIdx.x);
  const unsigned split = unsigned(max(1, args.dense_split));
  for (unsigned item = blockIdx.x; item < count * split; item += gridDim.x) {
    const int t = int(__ldcg(args.overflow_list + item / split));
    const int s = scale_of_tile(args, t);
    const TileScale& sc = args.scale[s];
    const int local = t - sc.tile_begin, tx = local % sc.tiles_x, ty = local / sc.tiles_x;
    // Piece item % split of the tile's rows (shorter chains; each piece builds its own window).
    const int piece = (sc.rows + int(split) - 1) / int(split);
    const int r0 = ty * sc.rows + int(item % split) * piece;
    const int r1 = min(min(sc.h, ty * sc.rows + sc.rows), r0 + piece);
    if (r0 >= r1) continue;  // whole block
    __syncwarp();
    for (int q = lane; q < args.band * kTileW / 2; q += 32) dense_smem[q] = 0;
    __syncwarp();
    tile_c_values<true>(args, sc, tx, r0, r1, lane, reinterpret_cast<uint16_t*>(dense_smem), nullptr,
                        nullptr, seg);
  }
}

// ---- Host side -------------------------------------------------------------------------------

struct ScaleGeom {
  unsigned w = 0, h = 0, words = 0;
  size_t img_off = 0, word_off = 0, hist_off = 0;
  unsigned rows_per_chunk = 0, chunks = 0, col_blocks = 0, block_begin = 0, blocks = 0;
  unsigned tiles_x = 0, tiles_y = 0, tile_begin = 0;  // tiled c-values
  unsigned tile_rows = 0;                              // this scale's tile height
  u64 n = 0, k = 0;
};

struct PictureGeom {
  unsigned width = 0, height = 0, window = 0, pad = 0;
  int mask_index = 0;
  std::array<ScaleGeom, kNumScales> scale;
  size_t img_total = 0, word_total = 0, hist_total = 0;  // elements
  unsigned cv_blocks = 0, tiles = 0;
};

// Variants of the c-value stage, chosen at init (env VQX_CAMBI_CUDA_CV; all give the same bits).
enum class CvVariant { kTile, kGlobal };
// Spatial mask: two kernels after the preprocessing, one kernel, or one kernel that also does the
// preprocessing (env VQX_CAMBI_CUDA_MASK = split | fused | premask).
enum class MaskMode { kSplit, kFused, kPremask };

// The compact tile kernel for K cells per lane (32, 64, 96 or 128).
void launch_tile_kernel(int cells, unsigned blocks, cudaStream_t stream, const TileArgs& a) {
  switch (cells) {
    case 32: c_values_tile_kernel<32><<<blocks, kTileW * kTileWarps, 0, stream>>>(a); break;
    case 96: c_values_tile_kernel<96><<<blocks, kTileW * kTileWarps, 0, stream>>>(a); break;
    case 128: c_values_tile_kernel<128><<<blocks, kTileW * kTileWarps, 0, stream>>>(a); break;
    default: c_values_tile_kernel<64><<<blocks, kTileW * kTileWarps, 0, stream>>>(a); break;
  }
  cuda::check_launch("cambi: c_values_tile_kernel");
}

size_t dense_smem_bytes(int band) { return size_t(band) * kTileW * 2; }

// Allows the dense kernel its shared memory; returns how many of its blocks the device holds at
// once (its grid).
unsigned prepare_dense_kernel(int band) {
  cuda::check(cudaFuncSetAttribute(c_values_dense_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   int(dense_smem_bytes(band))),
              "cambi: dense c-value kernel shared memory");
  int per_sm = 0, device = 0, sms = 0;
  cuda::check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, c_values_dense_kernel, kTileW,
                                                            dense_smem_bytes(band)),
              "cambi: dense c-value kernel occupancy");
  cuda::check(cudaGetDevice(&device), "cambi: device");
  cuda::check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cambi: SM count");
  return unsigned(std::max(1, per_sm) * std::max(1, sms));
}

// Tiles of rows[s] rows x 32 columns, numbered scale by scale.
unsigned plan_tiles(ScaleGeom* scales, int count, const unsigned* rows_of) {
  unsigned tiles = 0;
  for (int s = 0; s < count; ++s) {
    ScaleGeom& sc = scales[s];
    const unsigned rows = std::max(1u, rows_of[s]);
    sc.tile_rows = rows;
    sc.tiles_x = (sc.w + kTileW - 1) / kTileW;
    sc.tiles_y = (sc.h + rows - 1) / rows;
    sc.tile_begin = tiles;
    tiles += sc.tiles_x * sc.tiles_y;
  }
  return tiles;
}

// Compact tiles (all of them, or scale by scale with `split` for per-kernel timing), then the
// dense kernel for the tiles the compact one listed. cells == 0: every tile dense (test hook).
// Dense tiles beside the compact ones (VQX_CAMBI_CUDA_DENSE=fork|forkc): a classification kernel
// lists them first, then the dense kernel runs on `side` (forked from and joined back into
// `stream` by events) while the compact kernel runs on `stream`; fork launches the dense kernel
// first, forkc the compact one first. Same tiles, same per-tile code, so the same bits.
struct DenseFork {
  int mode = 0;  // 0: after the compact kernel; 1: fork (dense first); 2: forkc (compact first)
  cudaStream_t side = nullptr;
  cudaEvent_t fork = nullptr, join = nullptr;
  unsigned grid = 0;  // dense grid in fork mode (0: dense_grid)
};

void launch_tiled_c_values(TileArgs a, const ScaleGeom* scales, int count, unsigned tiles, int cells,
                           bool split, unsigned dense_grid, cudaStream_t stream,
                           const DenseFork& df = DenseFork{}) {
  if (df.mode != 0 && cells != 0 && !split && tiles > 0) {
    cuda::check(cudaMemsetAsync(a.overflow_count, 0, 4, stream), "cambi: clear tile list");
    a.first = 0, a.end = int(tiles);
    tile_classify_kernel<<<(tiles + kTileWarps - 1) / kTileWarps, kTileW * kTileWarps, 0, stream>>>(a, cells);
    cuda::check_launch("cambi: tile_classify_kernel");
    a.skip_list = true;
    cuda::check(cudaEventRecord(df.fork, stream), "cambi: fork");
    cuda::check(cudaStreamWaitEvent(df.side, df.fork, 0), "cambi: fork wait");
    const unsigned grid = std::min(tiles, df.grid ? df.grid : dense_grid);
    auto dense = [&] {
      c_values_dense_kernel<<<grid, kTileW, dense_smem_bytes(a.band), df.side>>>(a);
      cuda::check_launch("cambi: c_values_dense_kernel");
    };
    if (df.mode == 1) dense();
    launch_tile_kernel(cells, (tiles + kTileWarps - 1) / kTileWarps, stream, a);
    if (df.mode != 1) dense();
    cuda::check(cudaEventRecord(df.join, df.side), "cambi: join");
    cuda::check(cudaStreamWaitEvent(stream, df.join, 0), "cambi: join wait");
    return;
  }
  if (cells == 0) {
    // Test hook only: the caller listed every tile for the dense kernel.
  } else if (!split) {
    cuda::check(cudaMemsetAsync(a.overflow_count, 0, 4, stream), "cambi: clear tile list");
    a.first = 0, a.end = int(tiles);
    launch_tile_kernel(cells, (tiles + kTileWarps - 1) / kTileWarps, stream, a);
  } else {
    cuda::check(cudaMemsetAsync(a.overflow_count, 0, 4, stream), "cambi: clear tile list");
    for (int s = 0; s < count; ++s) {
      a.first = int(scales[s].tile_begin);
      a.end = int(scales[s].tile_begin + scales[s].tiles_x * scales[s].tiles_y);
      launch_tile_kernel(cells, unsigned(a.end - a.first + kTileWarps - 1) / kTileWarps, stream, a);
    }
  }
  if (tiles > 0) {
    c_values_dense_kernel<<<std::min(tiles, dense_grid), kTileW, dense_smem_bytes(a.band), stream>>>(a);
    cuda::check_launch("cambi: c_values_dense_kernel");
  }
}

dim3 grid2d(unsigned w, unsigned h, dim3 block) {
  return dim3((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
}

class CambiCuda final : public CudaMetric {
 public:
  explicit CambiCuda(const OptionValues& o) : options_(o), name_(cambi::output_name(o)) {}
  ~CambiCuda() override {
    if (dense_.fork) cudaEventDestroy(dense_.fork);
    if (dense_.join) cudaEventDestroy(dense_.join);
    if (dense_.side) cudaStreamDestroy(dense_.side);
  }

  std::vector<std::string> feature_names() const override {
    if (options_.full_ref) return {name_, "cambi_source", "cambi_full_reference"};
    return {name_};
  }

  std::vector<std::string> stage_names() const override {
    std::vector<std::string> names = {"clear"};
    for (const char* who : {"dis", "src"}) {
      if (std::string(who) == "src" && !options_.full_ref) break;
      for (const char* stage : {"preprocess", "spatial mask", "mode filter",
                                "c-values", "top-k"})
        names.push_back(std::string(who) + " " + stage);
    }
    return names;
  }

  void init(const CudaMetricContext& context) override {
    setup_ = cambi::make_setup(options_, context.format);  // the CPU's checks and messages
    if (!options_.heatmaps_path.empty())
      throw InputError(
          "cambi: heatmaps_path needs --backend cpu (the CUDA twin keeps the c-value maps on the "
          "device and reads back only the pooled sums)");
    format_ = context.format;
    auto& device = *context.device;
    // Tuning knobs (docs/cambi.md); none changes a result.
    if (const char* e = std::getenv("VQX_CAMBI_CUDA_CV"); e && std::string(e) == "global")
      variant_ = CvVariant::kGlobal;
    if (const char* e = std::getenv("VQX_CAMBI_CUDA_TILE_K"); e && std::atoi(e) > 0)
      cells_ = std::atoi(e);
    if (cells_ != 32 && cells_ != 64 && cells_ != 96 && cells_ != 128) cells_ = 64;
    // Defaults by size (H200, round 3 of session 13): below 4K 16-row tiles and dense tiles in two
    // row pieces; from 4K on 32-row tiles, dense tiles whole. Dense tiles always beside the compact
    // ones (forkc). VQX_CAMBI_CUDA_DENSE=after VQX_CAMBI_CUDA_TILE_ROWS=32
    // VQX_CAMBI_CUDA_DENSE_SPLIT=1 is the previous default.
    const bool below_4k = u64{format_.width} * format_.height < u64{3840} * 2160;
    tile_rows_ = below_4k ? 16 : 32;
    dense_split_ = below_4k ? 2 : 1;
    dense_.mode = 2;
    if (const char* e = std::getenv("VQX_CAMBI_CUDA_TILE_ROWS"); e && std::atoi(e) > 0)
      tile_rows_ = unsigned(std::atoi(e));
    for (int s = 0; s < kNumScales; ++s) scale_rows_[s] = tile_rows_;
    // VQX_CAMBI_CUDA_TILE_ROWS_S=r0,r1,...: tile height per scale (missing entries: the last one).
    if (const char* e = std::getenv("VQX_CAMBI_CUDA_TILE_ROWS_S"); e && *e) {
      const char* q = e;
      for (int s = 0; s < kNumScales; ++s) {
        const int v = std::atoi(q);
        if (v > 0) scale_rows_[s] = unsigned(v);
        else if (s > 0) scale_rows_[s] = scale_rows_[s - 1];
        const char* c = std::strchr(q, ',');
        if (c) q = c + 1;
        else for (int r = s + 1; r < kNumScales; ++r) scale_rows_[r] = scale_rows_[s];
        if (!c) break;
      }
    }
    split_ = std::getenv("VQX_CAMBI_CUDA_SPLIT") != nullptr;
    pass_idle_ = std::getenv("VQX_CAMBI_CUDA_PASS_IDLE") != nullptr;
    always_maps_ = std::getenv("VQX_CAMBI_CUDA_MAPS") != nullptr;
    forward_ = std::getenv("VQX_CAMBI_CUDA_FORWARD") != nullptr;
    if (const char* e = std::getenv("VQX_CAMBI_CUDA_RUNS")) lane_runs_ = std::string(e) != "warp";
    if (const char* e = std::getenv("VQX_CAMBI_CUDA_MASK")) {
      const std::string m = e;
      mask_mode_ = m == "fused" ? MaskMode::kFused : m == "premask" ? MaskMode::kPremask : MaskMode::kSplit;
    }
    stats_ = std::getenv("VQX_CAMBI_CUDA_STATS") != nullptr;
    if (const char* e = std::getenv("VQX_CAMBI_CUDA_DENSE")) {
      const std::string m = e;
      dense_.mode = m == "fork" ? 1 : m == "forkc" ? 2 : 0;  // after (or anything else): 0
    }
    const cambi::LevelParams& p = setup_.params;

    const int pictures = options_.full_ref ? 2 : 1;
    const cambi::PictureSetup* setups[2] = {&setup_.dis, &setup_.src};
    size_t max_pixels = 0, max_img = 0, max_words = 0;
    for (int i = 0; i < pictures; ++i) {
      geom_[i] = plan(*setups[i], p.band);
      max_pixels = std::max(max_pixels, size_t{geom_[i].width} * geom_[i].height);
      max_img = std::max(max_img, geom_[i].img_total);
      max_words = std::max(max_words, geom_[i].word_total);
      hist_elems_ = std::max(hist_elems_, geom_[i].hist_total);
    }

    // Tables: resize maps, the CPU's reciprocal table, per-level contrast masks.
    for (int i = 0; i < pictures; ++i) {
      const auto& map = setups[i]->map;
      identity_[i] = map.rows.size() == format_.height && map.cols.size() == format_.width;
      for (size_t k = 0; identity_[i] && k < map.rows.size(); ++k) identity_[i] = map.rows[k] == k;
      for (size_t k = 0; identity_[i] && k < map.cols.size(); ++k) identity_[i] = map.cols[k] == k;
      maps_[i][0] = upload(device, map.rows.data(), map.rows.size() * 4, "cambi resize rows");
      maps_[i][1] = upload(device, map.cols.data(), map.cols.size() * 4, "cambi resize cols");
    }
    const auto& lut = cambi::reciprocal_lut();
    recip_ = upload(device, lut.data(), lut.size() * sizeof(float), "cambi reciprocal table");
    std::vector<uint32_t> diffs(size_t(p.band), 0);
    for (int l = 0; l < p.band; ++l) {
      const int v = l + p.base;
      for (int d = 0; d < p.num_diffs; ++d)
        // Adjusted v against the adjusted tvi, and against the raw vlt_luma (quirk 2).
        if (v + p.num_diffs <= p.tvi[d] && v + p.num_diffs + d + 1 > p.vlt_luma) diffs[l] |= 1u << d;
    }
    diffs_ = upload(device, diffs.data(), diffs.size() * 4, "cambi level table");

    pre_ = cuda::DeviceBuffer(device, max_pixels * 2, "cambi 10-bit image");
    vsum_ = cuda::DeviceBuffer(device, max_pixels, "cambi mask sums");
    mask_ = cuda::DeviceBuffer(device, max_pixels, "cambi mask");
    filtered_ = cuda::DeviceBuffer(device, max_img * 2, "cambi filtered scales");
    level_ = cuda::DeviceBuffer(device, max_img * 2, "cambi level maps");
    cvals_ = cuda::DeviceBuffer(device, max_img * 4, "cambi c-values");
    for (auto* b : {&run_, &counted_, &change_})
      *b = cuda::DeviceBuffer(device, std::max<size_t>(max_words, 1) * 4, "cambi row bit masks");
    size_t max_tiles = 1;
    for (int i = 0; i < pictures; ++i) max_tiles = std::max<size_t>(max_tiles, geom_[i].tiles);
    if (variant_ == CvVariant::kGlobal) {
      hist_ = cuda::DeviceBuffer(device, hist_elems_ * 2, "cambi column histograms");
    } else {
      hist_ = cuda::DeviceBuffer(device, 4, "cambi column histograms (unused)");
      hist_elems_ = 2;
      dense_grid_ = prepare_dense_kernel(p.band);
      if (dense_.mode != 0) {
        int least = 0, greatest = 0;
        cuda::check(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cambi: stream priorities");
        cuda::check(cudaStreamCreateWithPriority(&dense_.side, cudaStreamNonBlocking, greatest),
                    "cambi: dense stream");
        cuda::check(cudaEventCreateWithFlags(&dense_.fork, cudaEventDisableTiming), "cambi: event");
        cuda::check(cudaEventCreateWithFlags(&dense_.join, cudaEventDisableTiming), "cambi: event");
        if (const char* e = std::getenv("VQX_CAMBI_CUDA_DENSE_GRID"); e && std::atoi(e) > 0)
          dense_.grid = unsigned(std::atoi(e));
      }
      if (const char* e = std::getenv("VQX_CAMBI_CUDA_DENSE_SPLIT"); e && std::atoi(e) > 0)
        dense_split_ = std::min(8, std::atoi(e));
    }
    tile_list_ = cuda::DeviceBuffer(device, (max_tiles + 1) * 4, "cambi dense tile list");
    state_ = cuda::DeviceBuffer(device, sizeof(ScaleState) * 2 * kNumScales, "cambi top-k state");
    // The histograms start at zero once; every use takes its counts out again.
    cuda::check(cudaMemset(hist_.get(), 0, hist_.bytes()), "cambi: clear histograms");
    cuda::check(cudaDeviceSynchronize(), "cambi: init");
    pass_blocks_ = 1;
    for (int i = 0; i < pictures; ++i)
      pass_blocks_ = std::max<unsigned>(
          pass_blocks_, unsigned(std::min<u64>(1024, (geom_[i].scale[0].n + 8 * kPassThreads - 1) /
                                                      (8 * kPassThreads))));
  }

  size_t result_bytes() const override { return sizeof(CambiResult); }
  bool graph_safe() const override { return !stats_; }

  void enqueue(const CudaFrame& frame, uint64_t, cudaStream_t stream, void* result,
               StageMarks& marks) override {
    marks.stage(stream, 0);
    cuda::check(cudaMemsetAsync(result, 0, sizeof(CambiResult), stream), "cambi: clear result");
    cuda::check(cudaMemsetAsync(state_.get(), 0, state_.bytes(), stream), "cambi: clear state");
    auto* r = static_cast<CambiResult*>(result);
    enqueue_picture(frame.dis, 0, stream, r, marks, 1);
    if (options_.full_ref) enqueue_picture(frame.ref, 1, stream, r, marks, 6);
  }

  void collect(const void* result, uint64_t frame, FeatureWriter& out) override {
    const auto& r = *static_cast<const CambiResult*>(result);
    if (r.status & (kStatusInvalidDis | kStatusInvalidRef))
      throw InputError(cambi::invalid_input_message(frame, setup_.bpc));
    if (r.status & kStatusBadValue)
      throw RuntimeFailure("cambi (cuda): frame " + std::to_string(frame) +
                           ": a c-value outside [0.5, 2^14) appeared, so the top-K sum would not "
                           "be exact (internal error)");
    if (r.status & kStatusSelection)
      throw RuntimeFailure("cambi (cuda): frame " + std::to_string(frame) +
                           ": the top-K radix select lost count (internal error)");
    const double dist = score(r, 0, setup_.dis.window);
    out.put(frame, 0, std::min(dist, options_.max_val));
    if (options_.full_ref) {
      const double src = score(r, 1, setup_.src.window);
      out.put(frame, 1, std::min(src, options_.max_val));
      out.put(frame, 2, std::min(std::max(0.0, dist - src), options_.max_val));
    }
  }

 private:
  // Scale sizes, k, bit-mask words and the chunking of the c-values within the budget.
  PictureGeom plan(const cambi::PictureSetup& ps, int band) const {
    PictureGeom g;
    g.width = ps.width, g.height = ps.height, g.window = ps.window, g.pad = ps.window >> 1;
    g.mask_index = cambi::mask_index(ps.width, ps.height);
    unsigned w = ps.width, h = ps.height;
    for (int s = 0; s < kNumScales; ++s) {
      if (s > 0 || setup_.speedup) w = (w + 1) >> 1, h = (h + 1) >> 1;
      ScaleGeom& sc = g.scale[s];
      sc.w = w, sc.h = h, sc.words = (w + 31) / 32;
      sc.n = u64(w) * h;
      sc.k = cambi::top_k_count(options_.topk, sc.n);
      sc.img_off = g.img_total;
      g.img_total += sc.n;
      sc.word_off = g.word_total;
      g.word_total += size_t(sc.words) * h;
      // Chunks about a window tall (shorter ones repeat the window build too often), fewer when
      // the histograms would not fit the budget. VQX_CAMBI_CUDA_CHUNK_ROWS overrides the start
      // value for tuning (docs/cambi.md); counts are exact, so no value changes a result.
      sc.rows_per_chunk = std::max(16u, g.pad + 1);
      if (const char* e = std::getenv("VQX_CAMBI_CUDA_CHUNK_ROWS"); e && std::atoi(e) > 0)
        sc.rows_per_chunk = unsigned(std::atoi(e));
    }
    auto bytes = [&](const ScaleGeom& sc) {
      const unsigned chunks = (sc.h + sc.rows_per_chunk - 1) / sc.rows_per_chunk;
      return size_t(chunks) * sc.w * size_t(band) * 2;
    };
    while (variant_ == CvVariant::kGlobal) {
      size_t total = 0, largest = 0;
      int which = 0;
      for (int s = 0; s < kNumScales; ++s) {
        size_t b = bytes(g.scale[s]);
        total += b;
        if (b > largest) largest = b, which = s;
      }
      if (total <= kHistogramBudget) break;
      ScaleGeom& sc = g.scale[which];
      if (sc.rows_per_chunk >= sc.h)
        throw RuntimeFailure("cambi (cuda): the column histograms do not fit the memory budget");
      sc.rows_per_chunk = std::min(sc.h, sc.rows_per_chunk + std::max(1u, sc.rows_per_chunk / 4));
    }
    g.tiles = plan_tiles(g.scale.data(), kNumScales, scale_rows_);
    for (int s = 0; s < kNumScales; ++s) {
      ScaleGeom& sc = g.scale[s];
      sc.chunks = (sc.h + sc.rows_per_chunk - 1) / sc.rows_per_chunk;
      sc.col_blocks = (sc.w + kCvThreads - 1) / kCvThreads;
      sc.blocks = sc.chunks * sc.col_blocks;
      sc.block_begin = g.cv_blocks;
      g.cv_blocks += sc.blocks;
      sc.hist_off = g.hist_total;
      g.hist_total += size_t(sc.chunks) * sc.w * size_t(band);
    }
    return g;
  }

  static cuda::DeviceBuffer upload(cuda::DeviceContext& device, const void* data, size_t bytes,
                                   const char* what) {
    cuda::DeviceBuffer b(device, std::max<size_t>(bytes, 4), what);
    cuda::check(cudaMemcpy(b.get(), data, bytes, cudaMemcpyHostToDevice), what);
    return b;
  }

  // Resize index tables, or null when they are the identity (VQX_CAMBI_CUDA_MAPS=always keeps them).
  const uint32_t* rows_of(int pic) const { return identity_[pic] && !always_maps_ ? nullptr : maps_[pic][0].get<uint32_t>(); }
  const uint32_t* cols_of(int pic) const { return identity_[pic] && !always_maps_ ? nullptr : maps_[pic][1].get<uint32_t>(); }

  template <typename Sample>
  void launch_preprocess(const uint8_t* picture, int pic, cudaStream_t stream, unsigned* status) {
    const PictureGeom& g = geom_[pic];
    const Sample* luma = reinterpret_cast<const Sample*>(picture);  // plane 0 is first
    const int bpc = setup_.bpc;
    if (bpc != 8 && bpc != 16) {
      const u64 count = u64(format_.width) * format_.height;
      const unsigned blocks = unsigned(std::min<u64>(1024, (count + 255) / 256));
      validate_kernel<Sample><<<blocks, 256, 0, stream>>>(
          luma, count, (1u << bpc) - 1, status, pic == 0 ? kStatusInvalidDis : kStatusInvalidRef);
      cuda::check_launch("cambi: validate_kernel");
    }
    if (mask_mode_ == MaskMode::kPremask) {  // preprocessing fused with the mask
      const dim3 mb(kMaskTw, kMaskTh);
      premask_kernel<Sample><<<grid2d(g.width, g.height, mb), mb, 0, stream>>>(
          luma, format_.width, bpc, rows_of(pic), cols_of(pic),
          int(g.width), int(g.height), setup_.anti_dither, g.mask_index, pre_.get<uint16_t>(),
          mask_.get<uint8_t>());
      cuda::check_launch("cambi: premask_kernel");
      return;
    }
    const dim3 block(32, 8);
    preprocess_kernel<Sample><<<grid2d(g.width, g.height, block), block, 0, stream>>>(
        luma, format_.width, bpc, rows_of(pic), cols_of(pic), g.width, g.height,
        setup_.anti_dither, pre_.get<uint16_t>());
    cuda::check_launch("cambi: preprocess_kernel");
  }

  void enqueue_picture(const uint8_t* picture, int pic, cudaStream_t stream, CambiResult* r,
                       StageMarks& marks, size_t first_stage) {
    const PictureGeom& g = geom_[pic];
    const cambi::LevelParams& p = setup_.params;
    marks.stage(stream, first_stage);
    if (format_.bytes_per_sample() == 1)
      launch_preprocess<uint8_t>(picture, pic, stream, &r->status);
    else
      launch_preprocess<uint16_t>(picture, pic, stream, &r->status);

    marks.stage(stream, first_stage + 1);
    const dim3 block(32, 8);
    if (mask_mode_ == MaskMode::kPremask) {
      // done with the preprocessing
    } else if (mask_mode_ == MaskMode::kFused) {
      mask_fused_kernel<<<grid2d(g.width, g.height, dim3(kMaskTw, kMaskTh)), dim3(kMaskTw, kMaskTh), 0,
                          stream>>>(pre_.get<uint16_t>(), int(g.width), int(g.height), g.mask_index,
                                    mask_.get<uint8_t>());
      cuda::check_launch("cambi: mask_fused_kernel");
    } else {
      mask_vsum_kernel<<<grid2d(g.width, g.height, block), block, 0, stream>>>(
          pre_.get<uint16_t>(), g.width, g.height, vsum_.get<uint8_t>());
      cuda::check_launch("cambi: mask_vsum_kernel");
      mask_kernel<<<grid2d(g.width, g.height, block), block, 0, stream>>>(
          vsum_.get<uint8_t>(), g.width, g.height, g.mask_index, mask_.get<uint8_t>());
      cuda::check_launch("cambi: mask_kernel");
    }

    marks.stage(stream, first_stage + 2);
    uint16_t* filtered = filtered_.get<uint16_t>();
    uint16_t* level = level_.get<uint16_t>();
    for (int s = 0; s < kNumScales; ++s) {
      const ScaleGeom& sc = g.scale[s];
      const uint16_t* prev = s == 0 ? pre_.get<uint16_t>() : filtered + g.scale[s - 1].img_off;
      const unsigned prev_w = s == 0 ? g.width : g.scale[s - 1].w;
      const unsigned step = (s > 0 || setup_.speedup) ? 2 : 1;
      const unsigned shift = unsigned(s) + (setup_.speedup ? 1 : 0);
      mode_kernel<<<grid2d(sc.w, sc.h, block), block, 0, stream>>>(
          prev, prev_w, step, mask_.get<uint8_t>(), g.width, shift, sc.w, sc.h, p.base, p.band,
          filtered + sc.img_off, level + sc.img_off);
      cuda::check_launch("cambi: mode_kernel");
      if (variant_ != CvVariant::kGlobal) continue;
      bits_kernel<<<dim3(sc.words, (sc.h + 7) / 8), dim3(32, 8), 0, stream>>>(
          level + sc.img_off, int(sc.w), int(sc.h), int(g.pad), int(sc.words),
          run_.get<uint32_t>() + sc.word_off, counted_.get<uint32_t>() + sc.word_off,
          change_.get<uint32_t>() + sc.word_off);
      cuda::check_launch("cambi: bits_kernel");
    }

    marks.stage(stream, first_stage + 3);
    ScaleState* states = state_.get<ScaleState>() + pic * kNumScales;
    PassArgs pa{};
    for (int s = 0; s < kNumScales; ++s) {
      const ScaleGeom& sc = g.scale[s];
      pa.scale[s] = PassScale{cvals_.get<float>() + sc.img_off, sc.n, sc.k, states + s};
    }
    pa.sums = &r->sum[pic][0][0];
    pa.status = &r->status;
    pa.skip_idle = pass_idle_;
    if (variant_ == CvVariant::kTile) {
      TileArgs ta{};
      for (int s = 0; s < kNumScales; ++s) {
        const ScaleGeom& sc = g.scale[s];
        ta.scale[s] = TileScale{level + sc.img_off, cvals_.get<float>() + sc.img_off, int(sc.w),
                                int(sc.h), int(sc.tiles_x), int(sc.tile_begin), int(sc.tile_rows)};
      }
      ta.scales = kNumScales;
      ta.pad = int(g.pad);
      ta.band = p.band;
      ta.rows = int(tile_rows_);
      ta.lane_runs = lane_runs_;
      ta.reverse = !forward_;
      ta.recip = recip_.get<float>();
      ta.diffs = diffs_.get<uint32_t>();
      for (int d = 0; d < cambi::kMaxNumDiffs; ++d) ta.weights[d] = p.diff_weights[d];
      ta.overflow_count = tile_list_.get<unsigned>();
      ta.overflow_list = tile_list_.get<uint32_t>() + 1;
      ta.dense_split = dense_split_;
      launch_tiled_c_values(ta, g.scale.data(), kNumScales, g.tiles, cells_, split_, dense_grid_, stream,
                            dense_);
      if (stats_) tile_stats_kernel<<<1, 1, 0, stream>>>(ta.overflow_count, int(g.tiles), pic);
      marks.stage(stream, first_stage + 4);
      radix_pass0_kernel<<<dim3(pass_blocks_, kNumScales), kPassThreads, 0, stream>>>(pa);
      cuda::check_launch("cambi: radix_pass0_kernel");
      radix_pass1_kernel<<<dim3(pass_blocks_, kNumScales), kPassThreads, 0, stream>>>(pa);
      cuda::check_launch("cambi: radix_pass1_kernel");
      radix_pass2_kernel<<<dim3(pass_blocks_, kNumScales), kPassThreads, 0, stream>>>(pa);
      cuda::check_launch("cambi: radix_pass2_kernel");
      return;
    }
    CvArgs cv{};
    for (int s = 0; s < kNumScales; ++s) {
      const ScaleGeom& sc = g.scale[s];
      cv.scale[s] = CvScale{level + sc.img_off,
                            run_.get<uint32_t>() + sc.word_off,
                            counted_.get<uint32_t>() + sc.word_off,
                            change_.get<uint32_t>() + sc.word_off,
                            cvals_.get<float>() + sc.img_off,
                            hist_.get<uint16_t>() + sc.hist_off,
                            int(sc.w), int(sc.h), int(sc.words), int(sc.rows_per_chunk),
                            int(sc.col_blocks), int(sc.block_begin), int(sc.blocks),
                            sc.k, sc.n, states + s};
    }
    cv.pad = int(g.pad);
    cv.band = p.band;
    cv.recip = recip_.get<float>();
    cv.diffs = diffs_.get<uint32_t>();
    for (int d = 0; d < cambi::kMaxNumDiffs; ++d) cv.weights[d] = p.diff_weights[d];
    cv.sums = &r->sum[pic][0][0];
    cv.status = &r->status;
    c_values_kernel<<<g.cv_blocks, kCvThreads, 0, stream>>>(cv);
    cuda::check_launch("cambi: c_values_kernel");

    marks.stage(stream, first_stage + 4);
    radix_pass1_kernel<<<dim3(pass_blocks_, kNumScales), kPassThreads, 0, stream>>>(pa);
    cuda::check_launch("cambi: radix_pass1_kernel");
    radix_pass2_kernel<<<dim3(pass_blocks_, kNumScales), kPassThreads, 0, stream>>>(pa);
    cuda::check_launch("cambi: radix_pass2_kernel");
  }

  // Spec 10.2 step 4: mean_s = f64(S_s * 2^-24) / k_s, the conversion correctly rounded (exact
  // below 2^53, where it is the CPU's exact sum bit for bit), then the CPU's weighting.
  double score(const CambiResult& r, int pic, unsigned window) const {
    std::array<double, kNumScales> means{};
    for (int s = 0; s < kNumScales; ++s) {
      const u64 lo = r.sum[pic][s][0], hi = r.sum[pic][s][1];
      // u64 -> f64 rounds to nearest; sums stay below 2^63 (< 2^25 values below 2^38 units).
      const double sum = hi == 0 ? double(lo) : double((u128(hi) << 64) | lo);
      means[size_t(s)] = std::ldexp(sum, -24) / double(geom_[pic].scale[s].k);
    }
    return cambi::weight_scores(means, window);
  }

  cambi::Options options_;
  std::string name_;
  cambi::Setup setup_;
  PictureFormat format_;
  PictureGeom geom_[2];
  size_t hist_elems_ = 0;
  unsigned pass_blocks_ = 1;
  bool pass_idle_ = false;
  CvVariant variant_ = CvVariant::kTile;
  int cells_ = 64;
  unsigned tile_rows_ = 32, dense_grid_ = 1;
  unsigned scale_rows_[kNumScales] = {};
  bool split_ = false, stats_ = false, lane_runs_ = true, always_maps_ = false, forward_ = false;
  bool identity_[2] = {false, false};
  DenseFork dense_;
  int dense_split_ = 1;
  MaskMode mask_mode_ = MaskMode::kPremask;
  cuda::DeviceBuffer maps_[2][2];
  cuda::DeviceBuffer recip_, diffs_, pre_, vsum_, mask_, filtered_, level_, cvals_;
  cuda::DeviceBuffer run_, counted_, change_, hist_, state_, tile_list_;
};

}  // namespace

std::unique_ptr<CudaMetric> make_cambi_cuda(const OptionValues& options) {
  return std::make_unique<CambiCuda>(options);
}

}  // namespace vqx

namespace vqx {

std::vector<std::vector<float>> cambi_cuda_c_values(const std::vector<CambiCvPlane>& planes,
                                                    unsigned window,
                                                    const cambi::LevelParams& params,
                                                    unsigned tile_rows, int cells,
                                                    unsigned* dense_tiles, bool warp_runs) {
  if (planes.empty() || planes.size() > size_t(kNumScales) || tile_rows == 0)
    throw RuntimeFailure("cambi_cuda_c_values: one to five planes and tile_rows > 0");
  const int count = int(planes.size());
  ScaleGeom geom[kNumScales];
  size_t total = 0;
  for (int s = 0; s < count; ++s) {
    geom[s].w = planes[size_t(s)].w, geom[s].h = planes[size_t(s)].h;
    geom[s].img_off = total;
    total += size_t(geom[s].w) * geom[s].h;
  }
  // VQX_CAMBI_CUDA_TEST_PERSCALE=1: scale s gets tile_rows >> s rows (at least 1), to check
  // per-scale tile heights (VQX_CAMBI_CUDA_TILE_ROWS_S) pixel for pixel.
  unsigned rows_of[kNumScales];
  const bool per_scale = std::getenv("VQX_CAMBI_CUDA_TEST_PERSCALE") != nullptr;
  for (int s = 0; s < kNumScales; ++s) rows_of[s] = per_scale ? std::max(1u, tile_rows >> s) : tile_rows;
  const unsigned tiles = plan_tiles(geom, count, rows_of);
  // Level maps as mode_kernel writes them (and as the CPU's c_values forms them).
  std::vector<uint16_t> levels(std::max<size_t>(total, 1));
  for (int s = 0; s < count; ++s) {
    const CambiCvPlane& p = planes[size_t(s)];
    for (size_t i = 0; i < size_t(p.w) * p.h; ++i) {
      const unsigned l = unsigned(p.image[i]) - unsigned(params.base);
      levels[geom[s].img_off + i] = (p.mask[i] && l < unsigned(params.band)) ? uint16_t(l) : kNotCounted;
    }
  }
  std::vector<uint32_t> diffs(size_t(params.band), 0);
  for (int l = 0; l < params.band; ++l) {
    const int v = l + params.base;
    for (int d = 0; d < params.num_diffs; ++d)
      if (v + params.num_diffs <= params.tvi[d] && v + params.num_diffs + d + 1 > params.vlt_luma)
        diffs[size_t(l)] |= 1u << d;
  }
  // The list: [count, tile ids...]; cells == 0 lists every tile for the dense kernel.
  std::vector<uint32_t> list(size_t(tiles) + 1, 0);
  if (cells == 0) {
    list[0] = tiles;
    for (unsigned t = 0; t < tiles; ++t) list[t + 1] = t;
  }
  auto alloc = [](size_t bytes) {
    void* p = nullptr;
    cuda::check(cudaMalloc(&p, std::max<size_t>(bytes, 4)), "cambi_cuda_c_values: alloc");
    return std::unique_ptr<void, decltype(&cudaFree)>(p, &cudaFree);
  };
  const auto& lut = cambi::reciprocal_lut();
  auto d_level = alloc(levels.size() * 2), d_out = alloc(levels.size() * 4),
       d_recip = alloc(lut.size() * sizeof(float)), d_diffs = alloc(diffs.size() * 4),
       d_list = alloc(list.size() * 4);
  auto up = [](void* d, const void* h, size_t bytes) {
    cuda::check(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice), "cambi_cuda_c_values: upload");
  };
  up(d_level.get(), levels.data(), levels.size() * 2);
  up(d_recip.get(), lut.data(), lut.size() * sizeof(float));
  up(d_diffs.get(), diffs.data(), diffs.size() * 4);
  up(d_list.get(), list.data(), list.size() * 4);
  // NaN everywhere first: a pixel the kernels never write cannot match the CPU.
  cuda::check(cudaMemset(d_out.get(), 0xFF, levels.size() * 4), "cambi_cuda_c_values: clear");
  TileArgs ta{};
  for (int s = 0; s < count; ++s)
    ta.scale[s] = TileScale{static_cast<const uint16_t*>(d_level.get()) + geom[s].img_off,
                            static_cast<float*>(d_out.get()) + geom[s].img_off, int(geom[s].w),
                            int(geom[s].h), int(geom[s].tiles_x), int(geom[s].tile_begin),
                            int(geom[s].tile_rows)};
  ta.scales = count;
  ta.pad = int(window >> 1);
  ta.band = params.band;
  ta.rows = int(tile_rows);
  ta.lane_runs = !warp_runs;
  ta.reverse = (tile_rows & 1) != 0;  // both orders in the tests
  ta.recip = static_cast<const float*>(d_recip.get());
  ta.diffs = static_cast<const uint32_t*>(d_diffs.get());
  for (int d = 0; d < cambi::kMaxNumDiffs; ++d) ta.weights[d] = params.diff_weights[size_t(d)];
  ta.overflow_count = static_cast<unsigned*>(d_list.get());
  ta.overflow_list = static_cast<uint32_t*>(d_list.get()) + 1;
  ta.dense_split = 1;
  if (const char* e = std::getenv("VQX_CAMBI_CUDA_DENSE_SPLIT"); e && std::atoi(e) > 0)
    ta.dense_split = std::min(8, std::atoi(e));
  // A small dense grid in the hook, so its list walk takes several turns.
  prepare_dense_kernel(params.band);
  // VQX_CAMBI_CUDA_DENSE=fork|forkc: the engine's forked schedule (classification kernel, dense
  // kernel on a second stream beside the compact one).
  DenseFork df;
  if (const char* e = std::getenv("VQX_CAMBI_CUDA_DENSE"))
    df.mode = std::string(e) == "fork" ? 1 : std::string(e) == "forkc" ? 2 : 0;
  if (df.mode != 0) {
    cuda::check(cudaStreamCreateWithFlags(&df.side, cudaStreamNonBlocking), "cambi_cuda_c_values: stream");
    cuda::check(cudaEventCreateWithFlags(&df.fork, cudaEventDisableTiming), "cambi_cuda_c_values: event");
    cuda::check(cudaEventCreateWithFlags(&df.join, cudaEventDisableTiming), "cambi_cuda_c_values: event");
  }
  launch_tiled_c_values(ta, geom, count, tiles, cells, false, 7, nullptr, df);
  cuda::check(cudaDeviceSynchronize(), "cambi_cuda_c_values: run");
  if (df.mode != 0) {
    cudaEventDestroy(df.fork);
    cudaEventDestroy(df.join);
    cudaStreamDestroy(df.side);
  }
  if (dense_tiles)
    cuda::check(cudaMemcpy(dense_tiles, d_list.get(), 4, cudaMemcpyDeviceToHost),
                "cambi_cuda_c_values: readback");
  std::vector<float> all(levels.size());
  cuda::check(cudaMemcpy(all.data(), d_out.get(), all.size() * 4, cudaMemcpyDeviceToHost),
              "cambi_cuda_c_values: readback");
  std::vector<std::vector<float>> out;
  for (int s = 0; s < count; ++s)
    out.emplace_back(all.begin() + ptrdiff_t(geom[s].img_off),
                     all.begin() + ptrdiff_t(geom[s].img_off + size_t(geom[s].w) * geom[s].h));
  return out;
}

}  // namespace vqx

namespace vqx {

namespace {
template <typename Sample>
void run_premask_modes(const void* d_luma, unsigned in_w, int bpc, const uint32_t* rows,
                       const uint32_t* cols, unsigned w, unsigned h, bool dither, int mask_index,
                       int mode, uint16_t* pre, uint8_t* vsum, uint8_t* mask) {
  const Sample* luma = static_cast<const Sample*>(d_luma);
  const dim3 mb(kMaskTw, kMaskTh), block(32, 8);
  if (mode == 2) {
    premask_kernel<Sample><<<grid2d(w, h, mb), mb>>>(luma, in_w, bpc, rows, cols, int(w), int(h),
                                                     dither, mask_index, pre, mask);
    cuda::check_launch("cambi: premask_kernel");
    return;
  }
  preprocess_kernel<Sample><<<grid2d(w, h, block), block>>>(luma, in_w, bpc, rows, cols, w, h, dither, pre);
  cuda::check_launch("cambi: preprocess_kernel");
  if (mode == 1) {
    mask_fused_kernel<<<grid2d(w, h, mb), mb>>>(pre, int(w), int(h), mask_index, mask);
    cuda::check_launch("cambi: mask_fused_kernel");
  } else {
    mask_vsum_kernel<<<grid2d(w, h, block), block>>>(pre, w, h, vsum);
    cuda::check_launch("cambi: mask_vsum_kernel");
    mask_kernel<<<grid2d(w, h, block), block>>>(vsum, w, h, mask_index, mask);
    cuda::check_launch("cambi: mask_kernel");
  }
}
}  // namespace

CambiPreMask cambi_cuda_preprocess_mask(const void* luma, unsigned in_w, unsigned in_h, int bpc,
                                        unsigned w, unsigned h, bool dither, int mask_index,
                                        int mode, bool tables) {
  const cambi::ResizeMap map = cambi::make_resize_map(in_w, in_h, w, h);
  const size_t in_bytes = size_t(in_w) * in_h * (bpc > 8 ? 2 : 1), n = size_t(w) * h;
  auto alloc = [](size_t bytes) {
    void* p = nullptr;
    cuda::check(cudaMalloc(&p, std::max<size_t>(bytes, 4)), "cambi_cuda_preprocess_mask: alloc");
    return std::unique_ptr<void, decltype(&cudaFree)>(p, &cudaFree);
  };
  auto d_luma = alloc(in_bytes), d_rows = alloc(map.rows.size() * 4), d_cols = alloc(map.cols.size() * 4),
       d_pre = alloc(n * 2), d_vsum = alloc(n), d_mask = alloc(n);
  auto up = [](void* d, const void* hp, size_t bytes) {
    cuda::check(cudaMemcpy(d, hp, bytes, cudaMemcpyHostToDevice), "cambi_cuda_preprocess_mask: upload");
  };
  up(d_luma.get(), luma, in_bytes);
  up(d_rows.get(), map.rows.data(), map.rows.size() * 4);
  up(d_cols.get(), map.cols.data(), map.cols.size() * 4);
  // 0xFF everywhere first: a pixel the kernels never write cannot match the CPU.
  cuda::check(cudaMemset(d_pre.get(), 0xFF, n * 2), "cambi_cuda_preprocess_mask: clear");
  cuda::check(cudaMemset(d_mask.get(), 0xFF, n), "cambi_cuda_preprocess_mask: clear");
  const auto* rows = tables ? static_cast<const uint32_t*>(d_rows.get()) : nullptr;
  const auto* cols = tables ? static_cast<const uint32_t*>(d_cols.get()) : nullptr;
  if (bpc > 8)
    run_premask_modes<uint16_t>(d_luma.get(), in_w, bpc, rows, cols, w, h, dither, mask_index, mode,
                                static_cast<uint16_t*>(d_pre.get()), static_cast<uint8_t*>(d_vsum.get()),
                                static_cast<uint8_t*>(d_mask.get()));
  else
    run_premask_modes<uint8_t>(d_luma.get(), in_w, bpc, rows, cols, w, h, dither, mask_index, mode,
                               static_cast<uint16_t*>(d_pre.get()), static_cast<uint8_t*>(d_vsum.get()),
                               static_cast<uint8_t*>(d_mask.get()));
  cuda::check(cudaDeviceSynchronize(), "cambi_cuda_preprocess_mask: run");
  CambiPreMask out;
  out.image.resize(n);
  out.mask.resize(n);
  cuda::check(cudaMemcpy(out.image.data(), d_pre.get(), n * 2, cudaMemcpyDeviceToHost),
              "cambi_cuda_preprocess_mask: readback");
  cuda::check(cudaMemcpy(out.mask.data(), d_mask.get(), n, cudaMemcpyDeviceToHost),
              "cambi_cuda_preprocess_mask: readback");
  return out;
}

}  // namespace vqx
