// cambi on CUDA: the c-values of all five scales (shared/spec/cambi.md 6.3) in one stage of
// shared-memory window histograms, tile by tile.
//
// One warp owns a tile of 32 columns x `rows` rows of one scale. Lane j keeps the (2 pad + 1)^2
// window histogram of its column j in shared memory and slides it down the tile (the column-owned
// sliding histogram of spec 10.3, in shared memory instead of global):
//   - only the levels some pixel of the tile needs (its own level and level +-(d + 1) for its
//     active contrasts d) have a cell: a per-tile bitmap over the band, popcount-indexed, so a
//     tile needs kCompactCells cells per lane instead of `band` and many warps fit an SM. A
//     classification kernel lists the tiles that need more; the dense kernel (a cell per band
//     level, one warp per block) does those on a second stream beside the compact kernel, which
//     skips them. A tile without a counted pixel writes zeros at once.
//   - the leaving and entering rows' segments [c0 - pad, c0 + 31 + pad] are read by the whole
//     warp (coalesced, a row step ahead); run starts and ends come from ballots, each position's
//     run end is published in shared memory, and each lane walks only the runs inside its own
//     window (plus the run covering its column from the left), adding the overlap to its cell.
// Counts are integers and every update lands exactly once, so each cell holds the true window
// count when it is read, whatever the order: the same counts as the CPU's sliding histogram, and
// the c-value formula below is the CPU's float for float.
#include <algorithm>

#include "engine/cuda/cuda_check.h"
#include "metrics/cambi/cuda/device_stages.h"

namespace vqx::cambi_cuda {
namespace {

constexpr int kTileW = 32;
constexpr int kTileWarps = 4;                 // warps (tiles) per block of the compact kernel
constexpr int kCompactCells = 64;             // cells per lane in the compact kernel (4 KB a warp)
constexpr int kBandWords = (1056 + 31) / 32;  // band <= 1023 + 32 + 1 levels (spec 3 step 11)

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
    if (rr >= 0 && rr < h && p < segw && col >= 0 && col < w)
      raw[q] = __ldg(level + size_t(rr) * w + col);
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
// selected positions (sel: 3 warp-uniform words). Each run start (and end) is published once per
// position in `seg` (cell | end << 16); lane j then walks only the runs inside its own window
// [j, j + 2 pad] (plus the run that covers j from the left). A row of short runs (texture, noise)
// costs each lane the runs of its window, not every run of the segment.
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
    const bool s_prev = p > 0 && (lane > 0 ? ((sel[q] >> (lane - 1)) & 1u)
                                           : ((sel[q - 1 >= 0 ? q - 1 : 0] >> 31) & 1u));
    const bool b = !s || !s_prev || cell[q] != prev;
    bound[q] = __ballot_sync(0xffffffffu, b);
    start[q] = __ballot_sync(0xffffffffu, s && cell[q] >= 0 && b);
  }
  __syncwarp();  // the previous row's readers are done with seg
#pragma unroll
  for (int q = 0; q < 3; ++q) {
    const int p = q * 32 + lane;
    if (p < segw)
      seg[p] = (uint32_t(cell[q]) & 0xFFFFu) | (uint32_t(next_bit_after(bound, p, segw)) << 16);
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
                                              const uint32_t* bm, const uint16_t* pre,
                                              uint32_t* seg) {
  // Rows [r0, r1) of tile column tx (the whole tile, or a piece of it in the dense kernel).
  const int w = sc.w, h = sc.h, pad = args.pad, band = args.band;
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
    wmask[q] =
        lo > hi ? 0u
                : ((hi - lo == 31) ? 0xFFFFFFFFu : (((1u << (hi - lo + 1)) - 1u) << (lo - q * 32)));
  }
  auto apply = [&](const int c[3], const uint32_t sl[3], int sign) {
    apply_lane(c, sl, segw, lane, 2 * pad, wmask, seg, hist, sign);
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
        uint32_t diffs = __ldg(args.contrasts + l);
        const int p0 = hist[cell_of<kDense>(l, bm, pre) * kTileW + lane];
        while (diffs) {
          const int d = __ffs(int(diffs)) - 1;
          diffs &= diffs - 1;
          const int up = int(l) + d + 1 < band
                             ? int(hist[cell_of<kDense>(l + d + 1, bm, pre) * kTileW + lane])
                             : 0;
          const int down = int(l) - d - 1 >= 0
                               ? int(hist[cell_of<kDense>(l - d - 1, bm, pre) * kTileW + lane])
                               : 0;
          const int pm = up > down ? up : down;
          const float val =
              __fmul_rn(__int2float_rn(args.weights[d] * p0 * pm), __ldg(args.recip + p0 + pm));
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
__device__ __forceinline__ int tile_levels(const TileArgs& args, const TileScale& sc, int tx,
                                           int ty, int lane, uint32_t* bm, uint16_t* pre) {
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
      uint32_t diffs = __ldg(args.contrasts + l);
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

// Lists the tiles needing more than kCompactCells cells before any c-value kernel runs, so that
// the dense kernel can run beside the compact one.
__global__ void __launch_bounds__(kTileW* kTileWarps) tile_classify_kernel(TileArgs args) {
  __shared__ uint32_t bm_all[kTileWarps][kBandWords];
  __shared__ uint16_t pre_all[kTileWarps][kBandWords];
  const int warp = int(threadIdx.x) >> 5, lane = int(threadIdx.x) & 31;
  const int t = int(blockIdx.x) * kTileWarps + warp;
  if (t >= args.tiles) return;  // whole warp
  const int s = scale_of_tile(args, t);
  const TileScale& sc = args.scale[s];
  const int local = t - sc.tile_begin, tx = local % sc.tiles_x, ty = local / sc.tiles_x;
  const int total = tile_levels(args, sc, tx, ty, lane, bm_all[warp], pre_all[warp]);
  if (total > kCompactCells && lane == 0)
    args.dense_list[atomicAdd(args.dense_count, 1u)] = uint32_t(t);
}

// Compact kernel: kTileWarps tiles per block, kCompactCells cells per lane.
__global__ void __launch_bounds__(kTileW* kTileWarps) c_values_compact_kernel(TileArgs args) {
  __shared__ uint16_t hist_all[kTileWarps][kCompactCells * kTileW];
  __shared__ uint32_t bm_all[kTileWarps][kBandWords];
  __shared__ uint16_t pre_all[kTileWarps][kBandWords];
  __shared__ uint32_t seg_all[kTileWarps][96];
  const int warp = int(threadIdx.x) >> 5, lane = int(threadIdx.x) & 31;
  const int idx = int(blockIdx.x) * kTileWarps + warp;
  if (idx >= args.tiles) return;  // whole warp
  // Reverse order: the small scales' tiles (few, and the slowest per tile: the same window covers
  // more detail) start first instead of forming the tail.
  const int t = args.tiles - 1 - idx;
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
  if (total > kCompactCells) return;  // listed: the dense kernel does this tile
  for (int q = lane; q < kCompactCells * kTileW / 2; q += 32)
    reinterpret_cast<uint32_t*>(hist)[q] = 0;
  __syncwarp();
  tile_c_values<false>(args, sc, tx, r0, r1, lane, hist, bm, pre, seg_all[warp]);
}

// Dense kernel: the listed tiles, one warp per block, a cell per band level (dynamic shared
// memory, band * 64 bytes). A grid that fits the device at once walks the list (it is usually
// short or empty); each tile as args.dense_pieces row pieces, each building its own first window
// (shorter chains where the dense tiles would otherwise form the stage's tail).
__global__ void __launch_bounds__(kTileW) c_values_dense_kernel(TileArgs args) {
  extern __shared__ uint32_t dense_smem[];
  __shared__ uint32_t seg[96];
  const unsigned count = __ldcg(args.dense_count);
  const int lane = int(threadIdx.x);
  const unsigned split = unsigned(max(1, args.dense_pieces));
  for (unsigned item = blockIdx.x; item < count * split; item += gridDim.x) {
    const int t = int(__ldcg(args.dense_list + item / split));
    const int s = scale_of_tile(args, t);
    const TileScale& sc = args.scale[s];
    const int local = t - sc.tile_begin, tx = local % sc.tiles_x, ty = local / sc.tiles_x;
    // Piece item % split of the tile's rows.
    const int piece = (sc.rows + int(split) - 1) / int(split);
    const int r0 = ty * sc.rows + int(item % split) * piece;
    const int r1 = min(min(sc.h, ty * sc.rows + sc.rows), r0 + piece);
    if (r0 >= r1) continue;  // whole block
    __syncwarp();
    for (int q = lane; q < args.band * kTileW / 2; q += 32) dense_smem[q] = 0;
    __syncwarp();
    tile_c_values<true>(args, sc, tx, r0, r1, lane, reinterpret_cast<uint16_t*>(dense_smem),
                        nullptr, nullptr, seg);
  }
}

size_t dense_smem_bytes(int band) { return size_t(band) * kTileW * 2; }

void launch_dense(const TileArgs& args, unsigned grid, cudaStream_t stream) {
  c_values_dense_kernel<<<std::min(unsigned(args.tiles), grid), kTileW, dense_smem_bytes(args.band),
                          stream>>>(args);
  cuda::check_launch("cambi: c_values_dense_kernel");
}

}  // namespace

void plan_tiles(TileArgs& args, unsigned rows) {
  rows = std::max(1u, rows);
  int tiles = 0;
  for (int s = 0; s < args.scales; ++s) {
    TileScale& sc = args.scale[s];
    sc.rows = int(rows);
    sc.tiles_x = (sc.w + kTileW - 1) / kTileW;
    sc.tile_begin = tiles;
    tiles += sc.tiles_x * ((sc.h + int(rows) - 1) / int(rows));
  }
  args.tiles = tiles;
}

void set_tile_tables(TileArgs& args, unsigned window, const cambi::LevelParams& params,
                     const float* recip, const uint32_t* contrasts, uint32_t* tile_list,
                     int dense_pieces) {
  args.pad = int(window >> 1);
  args.band = params.band;
  args.recip = recip;
  args.contrasts = contrasts;
  for (int d = 0; d < cambi::kMaxNumDiffs; ++d) args.weights[d] = params.diff_weights[size_t(d)];
  args.dense_count = tile_list;
  args.dense_list = tile_list + 1;
  args.dense_pieces = dense_pieces;
}

unsigned prepare_dense_kernel(int band, const cuda::DeviceContext& device) {
  cuda::allow_dynamic_smem(c_values_dense_kernel, dense_smem_bytes(band),
                           "cambi: dense c-value kernel shared memory");
  int per_sm = 0;
  cuda::check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, c_values_dense_kernel, kTileW,
                                                            dense_smem_bytes(band)),
              "cambi: dense c-value kernel occupancy");
  return unsigned(std::max(1, per_sm) * std::max(1, device.properties().multiProcessorCount));
}

void enqueue_c_values(const TileArgs& args, const DenseSide& side, cudaStream_t stream) {
  const unsigned blocks = unsigned(args.tiles + kTileWarps - 1) / kTileWarps;
  cuda::check(cudaMemsetAsync(args.dense_count, 0, sizeof(unsigned), stream),
              "cambi: clear tile list");
  tile_classify_kernel<<<blocks, kTileW * kTileWarps, 0, stream>>>(args);
  cuda::check_launch("cambi: tile_classify_kernel");
  cuda::check(cudaEventRecord(side.fork, stream), "cambi: fork");
  cuda::check(cudaStreamWaitEvent(side.stream, side.fork, 0), "cambi: fork wait");
  // The compact kernel first: at 4K the many dense tiles (3 blocks per SM) would otherwise crowd
  // the compact warps out.
  c_values_compact_kernel<<<blocks, kTileW * kTileWarps, 0, stream>>>(args);
  cuda::check_launch("cambi: c_values_compact_kernel");
  launch_dense(args, side.grid, side.stream);
  cuda::check(cudaEventRecord(side.join, side.stream), "cambi: join");
  cuda::check(cudaStreamWaitEvent(stream, side.join, 0), "cambi: join wait");
}

void enqueue_dense_c_values(const TileArgs& args, unsigned grid, cudaStream_t stream) {
  launch_dense(args, grid, stream);
}

}  // namespace vqx::cambi_cuda
