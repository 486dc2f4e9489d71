// SSIMULACRA2 on the device, session 15: the XYB planes in a blocked, transposed layout, so that
// the horizontal pass reads them as the vertical pass reads its planes.
//
// Why: the horizontal recurrence walks each row in order, so its parallelism is one thread per
// (row, plane) and a warp holds 32 rows. With row-major XYB planes a warp's samples of one step
// lie in 32 different rows, so every kernel before this one moved them through shared-memory
// tiles (block barriers, load-to-use waits: ~240 SM cycles per step at 4K against a ~12-cycle
// chain). Here a plane is stored as 32 x 32 blocks of 4 KB, each block column-major: element
// (x, y) at block (x / 32, y / 32), offset (x % 32) * 32 + y % 32 in it. The 32 rows' samples of
// one column are one aligned 128-byte line, and a warp's loads of a whole chunk are constant
// offsets from one or two block addresses (no address arithmetic per load). Only the stores go
// through shared memory, in a warp-private tile (no block barrier).
//
// Included by ssimulacra2_cuda.cu inside its anonymous namespace, after the helpers it uses
// (FastSource, xyb_pixel_fast, Recurrence, BlurCoef, chroma_index, linear_pixel).
// Every arithmetic operation and its order are those of xyb_down_fast_kernel and of the other
// horizontal kernels; only where values are loaded from and stored to differs.

// Geometry of a blocked plane of a w x h picture: rows_t = h rounded up to 32, cols_t = w rounded
// up to 32 plus 32 (the walk's loads of in[t + 4] run up to 4 columns past the last chunk). Every
// column from w on and every row from h on holds zeros (the recurrence's padding); the XYB kernel
// writes them every frame.
struct TransposedGeometry {
  uint32_t rows_t = 0, cols_t = 0;
  size_t plane = 0;  // floats per plane
};

inline TransposedGeometry transposed_geometry(uint32_t w, uint32_t h) {
  TransposedGeometry g;
  g.rows_t = (h + 31) / 32 * 32;
  g.cols_t = (w + 31) / 32 * 32 + 32;
  g.plane = size_t(g.rows_t) * g.cols_t;
  return g;
}

// Index of element (x, y) in a blocked plane with rows_t rows (host and device).
__host__ __device__ __forceinline__ uint32_t blocked_index(uint32_t x, uint32_t y, uint32_t rows_t) {
  return ((x >> 5) * (rows_t >> 5) + (y >> 5)) * 1024u + (x & 31u) * 32u + (y & 31u);
}

constexpr int kTBlock = 16;  // 2x2 blocks per block side: a block covers 32 x 32 pixels

// xyb_down_fast_kernel with the XYB planes stored transposed (the same 2x2 block body,
// xyb_block_fast). A block of 16 x 16 threads covers
// a 32 x 32 pixel tile (thread = one 2x2 block, as before); the grid covers the padded plane
// (cols_t x rows_t), and threads outside the picture store zeros, so the padding is rewritten
// every frame (the chain and sequential schedules share one set of planes between scales of
// different sizes). The XYB values go to a shared tile, then each warp stores whole 32-row
// columns (128 bytes). The downsample into the next level keeps the row-major layout.
// xyb_block_fast's stores into the block's shared tile [plane][x][y] (+0 outside the picture).
struct TileXybOut {
  static constexpr bool kZeroOutside = true;  // the tile holds +0 outside the picture
  float (&tile)[6][2 * kTBlock][2 * kTBlock + 1];
  int tx, ty;
  __device__ __forceinline__ void pixel(int image, int dx, int dy, const float3& p) {
    tile[3 * image][2 * tx + dx][2 * ty + dy] = p.x;
    tile[3 * image + 1][2 * tx + dx][2 * ty + dy] = p.y;
    tile[3 * image + 2][2 * tx + dx][2 * ty + dy] = p.z;
  }
  __device__ __forceinline__ void row(int, const uint32_t (&)[2], const bool (&)[2],
                                      const float3 (&)[2]) {}
};

template <Source kSource, bool kDebug = false>
__global__ void __launch_bounds__(kTBlock * kTBlock)
xyb_down_t_kernel(FrameSource fs, const float* __restrict__ linear, uint32_t w, uint32_t h,
                  float cbrt_bias, float* __restrict__ xyb_t, uint32_t rows_t, size_t plane_t,
                  float* __restrict__ down, bool write_down, float* __restrict__ debug_linear,
                  uint32_t by0 = 0) {
  // by0: the first block row of this launch (a strip of rows; 0 = the whole plane).
  __shared__ float tile[6][2 * kTBlock][2 * kTBlock + 1];  // [plane][x][y]
  const uint32_t ow = (w + 1) / 2, oh = (h + 1) / 2;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const uint32_t ox = blockIdx.x * kTBlock + tx;
  const uint32_t by = by0 + blockIdx.y;  // block row
  const uint32_t oy = by * kTBlock + ty;
  if (ox >= ow || oy >= oh) {  // the whole 2x2 block lies outside the picture: padding
#pragma unroll
    for (int p = 0; p < 6; ++p)
#pragma unroll
      for (int d = 0; d < 4; ++d) tile[p][2 * tx + (d & 1)][2 * ty + (d >> 1)] = 0.0f;
  } else {
    TileXybOut out{tile, tx, ty};
    xyb_block_fast<kSource, true, kDebug>(fs, linear, w, h, ox, oy, cbrt_bias, down, write_down,
                                          debug_linear, out);
  }
  __syncthreads();
  // The block's 32 x 32 tile is one block of each plane (4 KB, contiguous): 6 planes x 32
  // columns, one 32-row column (128 bytes) per warp store.
  const int warp = (ty * kTBlock + tx) / 32, lane = (ty * kTBlock + tx) % 32;
  const size_t block0 = (size_t(blockIdx.x) * (rows_t >> 5) + by) * 1024;
  constexpr int kWarps = kTBlock * kTBlock / 32;
#pragma unroll 4
  for (int e = warp; e < 6 * 2 * kTBlock; e += kWarps) {
    const int p = e / (2 * kTBlock), xl = e % (2 * kTBlock);
    xyb_t[size_t(p) * plane_t + block0 + size_t(xl) * 32 + lane] = tile[p][xl][lane];
  }
}

// The horizontal pass on the blocked XYB planes. One warp per (32 rows, channel, plane): lane =
// row y0 + lane. The line to blur is section 5's (img1, img2, img1^2, img2^2, img1 * img2),
// formed as p * q by one code path for every plane (one code path: five specialised ones
// thrash the instruction cache, "no instruction" stalls): q is a block of ones for mu1 and
// mu2 (p * 1 = p exactly), p itself for the squares, img2 for s12. The walk is section 6.2's:
// step t = -4 ... w - 1 with in[t + 4] and in[t - 6] (zero outside the row) and
// Recurrence::step, as in every other horizontal kernel. Steps run in chunks of 32 (t = 32 j ...
// 32 j + 31, in[t + 4] = columns 32 j + 4 ... 32 j + 35: block j's columns 4..31 and block
// j + 1's 0..3); the samples of chunk j + 1 are loaded while chunk j is walked; in[t - 6] is the
// current chunk's sample i - 10 or the previous chunk's i + 22. Outputs go to a warp-private
// shared tile [step][row] and, after the chunk, out as 32 rows of 32 columns (float4 stores when
// `vec`: the width a multiple of 4 and the planes 16-byte aligned).
constexpr int kTChunk = 32;

__global__ void __launch_bounds__(kLines)
blur_rows_t_kernel(const float* __restrict__ xyb_t, const float* __restrict__ ones, uint32_t w,
                   uint32_t h, uint32_t rows_t, size_t plane_t, BlurCoef coef,
                   float* __restrict__ hblur, float* __restrict__ debug_products, bool vec,
                   uint32_t row0 = 0, uint32_t row_count = UINT32_MAX, uint32_t ring_rows = 0) {
  // Row range (the strip schedule): rows [row0, row0 + row_count), row0 a multiple of 32; output
  // row y goes to row y % ring_rows of planes ring_rows rows high (0: whole planes).
  __shared__ float tile[kTChunk][kLines + 1];
  const int c = int(blockIdx.x) / kBlurPlanes, kind = int(blockIdx.x) % kBlurPlanes;
  const uint32_t y0 = row0 + blockIdx.y * kLines;
  if (ring_rows == 0) ring_rows = h;
  const uint32_t row_end = row_count > h - row0 ? h : row0 + row_count;
  const int lane = threadIdx.x;
  const uint32_t y = y0 + lane;
  const size_t n = size_t(w) * h;
  const float* a_t = xyb_t + size_t(c) * plane_t;
  const float* b_t = xyb_t + size_t(3 + c) * plane_t;
  float* out = hblur + size_t(c * kBlurPlanes + kind) * (size_t(w) * ring_rows);
  // debug products: per channel p11, p22, p12 (planes 2, 3, 4)
  float* products =
      debug_products && kind >= 2 ? debug_products + size_t(3 * c + (kind - 2)) * n : nullptr;
  // Block (x / 32, y0 / 32) of a plane: base + (x / 32) * step; lane's row inside it.
  const size_t step = size_t(rows_t >> 5) * 1024;
  const float* p_base = (kind == 1 || kind == 3 ? b_t : a_t) + size_t(y0 >> 5) * 1024 + lane;
  const float* q_base = (kind == 4 ? b_t + size_t(y0 >> 5) * 1024 + lane
                         : kind >= 2 ? p_base
                                     : ones + lane);
  const size_t q_step = kind >= 2 ? step : 0;
  Recurrence rec;
  // Steps t = -4 ... -1: in[t + 4] = columns 0 ... 3 (block 0), in[t - 6] = padding (+0).
  float tail[10];  // in[t - 6] of the first 10 steps of the next chunk
#pragma unroll
  for (int i = 0; i < 6; ++i) tail[i] = 0.0f;
  const bool row_in = y < row_end;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float v = fmul(__ldg(p_base + i * 32), __ldg(q_base + i * 32));
    rec.step(coef, fadd(0.0f, v));
    tail[6 + i] = v;
    if (products && row_in && uint32_t(i) < w) products[size_t(y) * w + uint32_t(i)] = v;
  }
  // Chunk j's samples: block j columns 4..31 (i < 28), block j + 1 columns 0..3.
  float np[kTChunk], nq[kTChunk];
  auto fetch = [&](uint32_t j) {
    const float* p0 = p_base + j * step;
    const float* q0 = q_base + j * q_step;
#pragma unroll
    for (int i = 0; i < kTChunk; ++i) {
      const int off = i < 28 ? (4 + i) * 32 : (i - 28) * 32;
      np[i] = __ldg((i < 28 ? p0 : p0 + step) + off);
      nq[i] = __ldg((i < 28 ? q0 : q0 + q_step) + off);
    }
  };
  const uint32_t chunks = (w + kTChunk - 1) / kTChunk;
  const uint32_t rows = row_end - y0 < uint32_t(kLines) ? row_end - y0 : uint32_t(kLines);
  // Output row y0 + r lives at ring row (ring0 + r) mod ring_rows: rows up to the wrap, then from 0.
  const uint32_t ring0 = y0 % ring_rows;
  const uint32_t before_wrap = ring_rows - ring0;
  fetch(0);
  for (uint32_t j = 0; j < chunks; ++j) {
    float cur[kTChunk];
#pragma unroll
    for (int i = 0; i < kTChunk; ++i) cur[i] = fmul(np[i], nq[i]);
    if (products && row_in) {  // debug: the products of this chunk's columns
#pragma unroll
      for (int i = 0; i < kTChunk; ++i) {
        const uint32_t x = j * kTChunk + 4 + uint32_t(i);
        if (x < w) products[size_t(y) * w + x] = cur[i];
      }
    }
    if (j + 1 < chunks) fetch(j + 1);
#pragma unroll
    for (int i = 0; i < kTChunk; ++i) {
      const float a = i < 10 ? tail[i] : cur[i - 10];
      tile[i][lane] = rec.step(coef, fadd(a, cur[i]));
    }
#pragma unroll
    for (int i = 0; i < 10; ++i) tail[i] = cur[kTChunk - 10 + i];
    __syncwarp();
    const uint32_t x0 = j * kTChunk;
    if (vec) {  // lane = (row group, quad): rows rg, rg + 4, ...; columns x0 + 4 q ... + 3
      const int q = lane & 7, rg = lane >> 3;
      const uint32_t x = x0 + 4 * uint32_t(q);
      if (x < w) {
#pragma unroll
        for (int k = 0; k < 8; ++k) {
          const uint32_t r = uint32_t(rg + 4 * k);
          const uint32_t rr = r < before_wrap ? ring0 + r : r - before_wrap;
          if (r < rows)
            *reinterpret_cast<float4*>(out + size_t(rr) * w + x) =
                make_float4(tile[4 * q][r], tile[4 * q + 1][r], tile[4 * q + 2][r], tile[4 * q + 3][r]);
        }
      }
    } else {  // lane = column
      const uint32_t x = x0 + uint32_t(lane);
      if (x < w) {
#pragma unroll 8
        for (uint32_t r = 0; r < rows; ++r) {
          const uint32_t rr = r < before_wrap ? ring0 + r : r - before_wrap;
          out[size_t(rr) * w + x] = tile[lane][r];
        }
      }
    }
    __syncwarp();
  }
}

