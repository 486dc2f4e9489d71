// The window stage (spec 4.1-4.3): windows, statistics, per-pixel terms and per-tile partial sums
// of up to kMaxJobs scales in one launch of window_strip_kernel.
//
// A tile is 32 x 64 map pixels (window_tiles.cuh). A block walks a vertical strip of tiles of one
// scale, top to bottom, and does for each tile: the input tile's load (window_tiles.cuh), the
// horizontal and vertical passes by runs of 16 (window_passes.cuh), the statistics and terms in a
// column-wise loop with per-thread sums and the warp tree (window_terms.cuh); one partial per
// tile, at the tile's index, so the partials do not depend on the strip length.
//
// What a strip saves: the horizontal pass of a tile covers its 74 input rows, the last 10 of which
// are the first 10 of the tile below. The vertical pass writes rows 0..63 only (run_v) and the
// tree's scratch (strip_tree) lies in rows 0..63 of pass[0] and pass[1], so after a sign-free tile
// its pass rows 64..73 still hold exact horizontal sums of input rows 64..73: the next tile copies
// them (and the 10 input rows, for the signed path and the sign test) to rows 0..9, loads only its
// 64 new input rows and runs the horizontal pass over rows 10..73 (13.5 % less work). A horizontal
// sum is a function of its input row alone, whatever the widening that formed it, so the copied
// rows equal the ones the tile would compute. The sign test of a tile covers the copied input rows
// as well; a tile with a sample whose sign bit is set takes the signed path
// (window_signed_tile.cuh, full recomputation; its tree overwrites the pass rows, so the tile after
// it loads all of its rows). Strips cost parallelism (half the blocks), so they pay only where a
// launch has enough tiles to fill the GPU with frames in flight: strips of 2 in launches of at
// least 1000 tiles (4K's scale-0 bands and scales 1-4), a tile per block below (every 1080p
// launch).
#include <algorithm>

#include "engine/cuda/cuda_check.h"
#include "metrics/ssim_core/cuda/ssim_cuda_testing.h"
#include "metrics/ssim_core/cuda/ssim_device.cuh"
#include "metrics/ssim_core/cuda/window_passes.cuh"
#include "metrics/ssim_core/cuda/window_signed_tile.cuh"
#include "metrics/ssim_core/cuda/window_terms.cuh"
#include "metrics/ssim_core/cuda/window_tiles.cuh"

namespace vqx::ssim::cuda {
namespace {

static_assert(kTileH == kWindowTileRows,
              "float_ms_ssim_cuda.cpp cuts scale 0 into bands of whole tile rows");

// A scale's work as the kernel reads it: the job and its test taps (ssim_cuda_testing.h).
struct WindowJob {
  DevicePlane ref, dis;
  WindowTaps taps;
  bool cs_only;
};

struct JobTable {
  WindowJob job[kMaxJobs];
  PartialSum* partials[kMaxJobs];
  int tiles_x[kMaxJobs];
  int block_begin[kMaxJobs + 1];
  int count;
};

struct StripTable {
  JobTable jobs;
  int strip;  // tiles per strip (>= 1)
};

__global__ void __launch_bounds__(kThreads, 3)
    window_strip_kernel(const __grid_constant__ StripTable st) {
  extern __shared__ __align__(16) float smem[];
  float(*in)[kInH][kInStride] = reinterpret_cast<float(*)[kInH][kInStride]>(smem);  // [ref, dis]
  float(*pass)[kInH][kPassW] = reinterpret_cast<float(*)[kInH][kPassW]>(smem + kInputFloats);
  const JobTable& t = st.jobs;
  int j = 0;
  while (j + 1 < t.count && int(blockIdx.x) >= t.block_begin[j + 1]) ++j;
  const WindowJob& job = t.job[j];
  const int b = int(blockIdx.x) - t.block_begin[j];
  const Size map = {job.ref.size.width - kWindowMargin,
                    job.ref.size.height - kWindowMargin};  // map_size
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
    negative |= load_tile_rows(job.ref, job.dis, in, x0, y0, r0, in_rows, in_cols);
    const bool any_negative = __syncthreads_or(int(negative)) != 0;
    if (any_negative) {  // the signed path; its tree overwrites the pass rows
      signed_tile(in, pass, smem, job.taps, partials, tile, map, x0, y0, cols, rows, in_rows);
      __syncthreads();  // partials read from the tree before the next tile's loads and copies
      have_prev = false;
      continue;
    }
    strip_h(in, pass, r0, in_rows);
    __syncthreads();
    run_v(pass);
    if (job.cs_only && !job.taps.mu_r)
      strip_terms<true>(pass, job.taps, partials, tile, map, x0, y0, cols, rows);
    else
      strip_terms(pass, job.taps, partials, tile, map, x0, y0, cols, rows);
    have_prev = rows == kTileH;
  }
}

constexpr int kStripTiles = 2, kStripMinTiles = 1000;

int tiles_x(Size plane) { return (map_size(plane).width + kTileW - 1) / kTileW; }
int tiles_y(Size plane) { return (map_size(plane).height + kTileH - 1) / kTileH; }

// One launch for `count` scales, a block per strip of `tiles_per_block` tiles; taps may be null.
void launch_windows(const ScaleJob* jobs, const WindowTaps* taps, int count,
                    PartialSum* const* partials, int tiles_per_block, cudaStream_t stream) {
  JobTable t{};
  t.count = count;
  int blocks = 0;
  for (int j = 0; j < count; ++j) {
    t.job[j] = {jobs[j].ref, jobs[j].dis, taps ? taps[j] : WindowTaps{}, jobs[j].cs_only};
    t.partials[j] = partials[j];
    t.tiles_x[j] = tiles_x(jobs[j].ref.size);
    t.block_begin[j] = blocks;
    blocks += tiles_x(jobs[j].ref.size) *
              ((tiles_y(jobs[j].ref.size) + tiles_per_block - 1) / tiles_per_block);
  }
  t.block_begin[count] = blocks;
  window_strip_kernel<<<unsigned(blocks), kThreads, kWindowSmem, stream>>>(
      StripTable{t, tiles_per_block});
  vqx::cuda::check_launch("ssim: window_strip_kernel");
}

}  // namespace

void prepare_device() {
  vqx::cuda::check(
      cudaFuncSetAttribute(reinterpret_cast<const void*>(window_strip_kernel),
                           cudaFuncAttributeMaxDynamicSharedMemorySize, int(kWindowSmem)),
      "ssim: window kernel shared memory");
}

size_t partial_count(Size plane) { return size_t(tiles_x(plane)) * size_t(tiles_y(plane)); }

int product_tiles_per_block(size_t tiles) {
  return tiles >= size_t(kStripMinTiles) ? kStripTiles : 1;
}

void enqueue_windows_for_test(const ScaleJob* jobs, const WindowTaps* taps, int count,
                              PartialSum* const* partials, int tiles_per_block,
                              cudaStream_t stream) {
  launch_windows(jobs, taps, count, partials, tiles_per_block, stream);
}

void enqueue_windows(const ScaleJob* jobs, int count, PartialSum* const* partials,
                     cudaStream_t stream) {
  size_t tiles = 0;
  for (int j = 0; j < count; ++j) tiles += partial_count(jobs[j].ref.size);
  launch_windows(jobs, nullptr, count, partials, product_tiles_per_block(tiles), stream);
}

}  // namespace vqx::ssim::cuda
