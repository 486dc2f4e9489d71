#pragma once
// The window kernel's tile (windows.cu): its shared-memory layout and the loaders that fill its
// input region from two planes. Included by windows.cu only.
//
// The loaders give a warp whole rows (no divisions) and issue a batch of loads before the first
// store, so several are in flight. Each returns whether a loaded sample has its sign bit set (the
// sign-free paths need every sample of the tile to have it clear).
#include <cstddef>
#include <cstdint>

#include "metrics/ssim_core/cuda/ssim_device.cuh"

namespace vqx::ssim::cuda {
namespace {

// A tile is kTileW x kTileH map pixels; its input is (kTileW + 10) x (kTileH + 10) samples of each
// plane, its horizontal pass kTileW x (kTileH + 10) values of each of the five quantities.
constexpr int kTileW = 32, kTileH = 64, kThreads = 256;
constexpr int kInW = kTileW + kWindowMargin, kInH = kTileH + kWindowMargin;
// Row strides of the input and pass regions. The horizontal runs (h_task) have a warp's lanes on
// neighbouring rows: they read the input rows as 16-byte vectors, and a stride of 4 x odd floats
// puts the 8 lanes of each quarter-warp on different bank groups; they write the pass rows as
// 8-byte pairs, and a stride of 2 x odd floats does the same for each half-warp.
// Everything else walks along rows (lanes on neighbouring columns), conflict-free at any stride.
constexpr int kInStride = kInW + 2, kPassW = kTileW + 2;
static_assert(kPassW % 4 == 2, "8-byte pass rows, conflict-free by half-warp");
static_assert(kInStride % 4 == 0 && (kInStride / 4) % 2 == 1,
              "16-byte input rows, conflict-free by quarter-warp");
constexpr int kQuantities = 5;  // mu_r, mu_d, r*r, d*d, r*d
constexpr size_t kInputFloats = 2 * size_t(kInH) * kInStride;
constexpr size_t kWindowSmem = (kInputFloats + size_t(kQuantities) * kInH * kPassW) * sizeof(float);
static_assert(kInputFloats * sizeof(float) % 16 == 0,
              "the pass region must stay aligned for doubles");
static_assert(3 * (kWindowSmem + 1024) <= 228 * 1024,
              "three blocks per SM (1 KB reserved per block on sm_90)");
static_assert(size_t(kQuantities) * kInH * kPassW * sizeof(float) >=
                  sizeof(DoubleDouble) * kSumQuantities * kThreads,
              "the block tree reuses the horizontal-pass region");

// Rows 0..in_rows-1 (from plane row y0) of a tile of two planes of any sample type: a warp per
// row, lanes over the columns, four rows' loads of each plane in flight per thread.
template <typename T>
__device__ __forceinline__ unsigned load_window_rows(const void* ref_data, const void* dis_data,
                                                     size_t width, int x0, int y0, int in_rows,
                                                     int in_cols, float inverse_r, float inverse_d,
                                                     float (*in)[kInH][kInStride]) {
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

// Tiles of 8-bit planes by 32-bit words (load_window_words). load_window_rows spends about 15
// instructions per sample (a byte load per sample, its bounds test and branch, the sign test);
// here a full-width tile (in_cols == kInW) of planes whose rows start on 4-byte boundaries
// (words_aligned: width % 4 == 0 and 4-byte aligned base pointers) is read as 11 words per row, a
// row's words on neighbouring lanes, a batch of words of both planes issued before the first
// store, without per-sample tests. The words of a row end inside the plane's row: x0 + kInW <=
// width with x0 and width multiples of 4, so the last word's two extra bytes (columns 42 and 43,
// not stored) lie inside the row. Each sample is converted as to_sample converts it (the same
// f32). Unsigned samples times a positive power of two are never negative, so there is no sign
// test.
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
__device__ __forceinline__ void walk_tile_words(const void* ref_data, const void* dis_data,
                                                size_t width, int x0, int y0, int n, Put put) {
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
__device__ __forceinline__ void load_window_words(const void* ref_data, const void* dis_data,
                                                  size_t width, int x0, int y0, int n,
                                                  float inverse_r, float inverse_d,
                                                  float (*in)[kInH][kInStride]) {
  auto samples = [](uint32_t v, float inverse) {
    return make_float4(to_sample(uint8_t(v), inverse), to_sample(uint8_t(v >> 8), inverse),
                       to_sample(uint8_t(v >> 16), inverse), to_sample(uint8_t(v >> 24), inverse));
  };
  // One 16-byte store per word and plane; the last word's two bytes past the tile
  // land in the row's padding columns 42 and 43, which nothing reads.
  walk_tile_words<uint32_t, 4>(
      ref_data, dis_data, width, x0, y0, n, [&](int r, int w, uint32_t a, uint32_t b) {
        *reinterpret_cast<float4*>(&in[0][r][4 * w]) = samples(a, inverse_r);
        *reinterpret_cast<float4*>(&in[1][r][4 * w]) = samples(b, inverse_d);
      });
}

// Input rows 0..n-1 (from plane row y0) of a full-width tile of two f32 planes (the pyramid's
// levels), by 16-byte vectors: 11 per row, one of each plane in flight per thread
// (two made the window kernels spill), the same f32 samples as load_window_rows<float>, no
// per-sample bounds test. The last vector's two extra samples (columns 42, 43) lie inside the
// plane's row (x0 and width multiples of 4, x0 + 42 <= width) and land in the row's padding.
// Returns whether a sample has its sign bit set.
__device__ __forceinline__ unsigned load_window_vectors(const void* ref_data, const void* dis_data,
                                                        size_t width, int x0, int y0, int n,
                                                        float (*in)[kInH][kInStride]) {
  unsigned bits = 0;
  walk_tile_words<float4, 1>(ref_data, dis_data, width, x0, y0, n,
                             [&](int r, int w, float4 a, float4 b) {
                               *reinterpret_cast<float4*>(&in[0][r][4 * w]) = a;
                               *reinterpret_cast<float4*>(&in[1][r][4 * w]) = b;
                               // Columns 42 and 43 are not the tile's: only the first two samples
                               // of the last vector count.
                               bits |= __float_as_uint(a.x) | __float_as_uint(a.y) |
                                       __float_as_uint(b.x) | __float_as_uint(b.y);
                               if (w != kWordsPerRow - 1)
                                 bits |= __float_as_uint(a.z) | __float_as_uint(a.w) |
                                         __float_as_uint(b.z) | __float_as_uint(b.w);
                             });
  return bits >> 31;
}

// Whether load_window_vectors may read a tile of these f32 planes (rows on 16-byte boundaries).
__device__ __forceinline__ bool vectors_aligned(const void* ref_data, const void* dis_data,
                                                size_t width) {
  return width % 4 == 0 &&
         ((reinterpret_cast<uintptr_t>(ref_data) | reinterpret_cast<uintptr_t>(dis_data)) & 15) ==
             0;
}

// Whether load_window_words may read a tile of these planes (rows on 4-byte boundaries).
__device__ __forceinline__ bool words_aligned(const void* ref_data, const void* dis_data,
                                              size_t width) {
  return width % 4 == 0 && (reinterpret_cast<uintptr_t>(ref_data) & 3) == 0 &&
         (reinterpret_cast<uintptr_t>(dis_data) & 3) == 0;
}

// Input rows r0..in_rows-1 of a tile by the fastest loader the planes allow; whether one has its
// sign bit set.
__device__ __forceinline__ unsigned load_tile_rows(const DevicePlane& ref, const DevicePlane& dis,
                                                   float (*in)[kInH][kInStride], int x0, int y0,
                                                   int r0, int in_rows, int in_cols) {
  const Size size = ref.size;
  const float inverse_r = inverse_divisor(ref.bit_depth),
              inverse_d = inverse_divisor(dis.bit_depth);
  // in rows from r0: the same [2][kInH][kInStride] layout shifted by r0 rows.
  auto at = reinterpret_cast<float(*)[kInH][kInStride]>(&in[0][r0][0]);
  const int y = y0 + r0, n = in_rows - r0;
  if (ref.type == dis.type) {
    const size_t width = size_t(size.width);
    if (ref.type == SampleType::kU8 && in_cols == kInW &&
        words_aligned(ref.data, dis.data, width)) {
      load_window_words(ref.data, dis.data, width, x0, y, n, inverse_r, inverse_d, at);
      return 0;  // unsigned samples: never negative
    }
    if (ref.type == SampleType::kU8)
      return load_window_rows<uint8_t>(ref.data, dis.data, width, x0, y, n, in_cols, inverse_r,
                                       inverse_d, at);
    if (ref.type == SampleType::kU16)
      return load_window_rows<uint16_t>(ref.data, dis.data, width, x0, y, n, in_cols, inverse_r,
                                        inverse_d, at);
    if (in_cols == kInW && vectors_aligned(ref.data, dis.data, width))
      return load_window_vectors(ref.data, dis.data, width, x0, y, n, at);
    return load_window_rows<float>(ref.data, dis.data, width, x0, y, n, in_cols, inverse_r,
                                   inverse_d, at);
  }
  unsigned negative = 0;
  for (int i = int(threadIdx.x); i < n * in_cols; i += kThreads) {
    const int r = i / in_cols, c = i % in_cols;
    const size_t index = size_t(y + r) * size_t(size.width) + size_t(x0 + c);
    const float rv = load_sample(ref, index, inverse_r), dv = load_sample(dis, index, inverse_d);
    at[0][r][c] = rv;
    at[1][r][c] = dv;
    negative |= (__float_as_uint(rv) | __float_as_uint(dv)) >> 31;
  }
  return negative;
}

}  // namespace
}  // namespace vqx::ssim::cuda
