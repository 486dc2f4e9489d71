// The warp-autonomous horizontal pass of ssimulacra2 (shared/spec/ssimulacra2.md 6.2, 15.1;
// VQX_SS2_HBLUR=warp / warpN). Session 14.
//
// Why: the block-wide pole kernels (blur_rows_poles2 and its variants in ssimulacra2_cuda.cu)
// spend a third of their issue slots waiting at two block barriers per 32-column tile, and their
// 15-warp blocks do not divide over 132 SMs (0.77 waves at 4K). Here every warp is independent:
// warp = 32 rows (lane = row) of ONE plane of one channel (mu1, mu2, s11, s22 or s12), walking
// the plane's three poles interleaved in each thread (ILP 3). The warp loads its own 32 x 32
// input tiles coalesced (float4 where the width allows) into its private slice of shared memory,
// with the next tile prefetched into registers, stages its outputs in the slice and stores them
// coalesced; the only synchronisation is __syncwarp. Blocks are groups of independent warps,
// sized so that the warps fill at most one block per SM.
//
// Bits: each line's operations are the spec's, in its order, exactly as the other row kernels:
// the product of a sample (section 5) is one fmul formed when the sample is read (x, x * x or
// x1 * x2) and reused 10 steps later as in[t - 6] (the same value the other kernels recompute),
// sum = in[t - 6] + in[t + 4], per pole o = ((n2 * sum) - (d1 * prev1)) - prev2 (k = 1, 3, 5),
// out = (o1 + o3) + o5; zero padding outside [0, w) (the product of two zeros is +0, the CPU's
// padding). Steps past the end of the row in the last tile run on zeros and are not stored.
#include "metrics/ssimulacra2/cuda/ssimulacra2_hblur.h"

#include <cuda_runtime.h>

#include <mutex>

#include "engine/cuda/cuda_check.h"
#include "metrics/ssimulacra2/ssimulacra2_core.h"

namespace vqx::ssimulacra2::cuda {
namespace {

using vqx::cuda::check;
using vqx::cuda::check_launch;

constexpr int kRows = 32;                 // rows per warp, one per lane
constexpr int kGroup = 10;                // steps per loop iteration: in[t - 6] is the sample
                                          // read kGroup steps before in[t + 4]
constexpr int kCols = 4 * kGroup;         // columns per tile (4 iterations; 10 float4 per row)
constexpr int kPitch = kCols + 1;         // a padded slice row (41: odd, so a column read across
                                          // the lanes hits 32 distinct banks)
constexpr int kSlot = kRows * kPitch;     // floats of one 32 x 40 tile
constexpr int kSlots = 3;                 // per warp: img1 tile, img2 (or 1.0f) tile, outputs
constexpr int kMaxWarps = 12;
constexpr size_t kWarpSmem = sizeof(float) * kSlots * kSlot;  // 15744 bytes
constexpr int kPlanes = 5;

struct Coef {
  float n2[3], d1[3];
};

__device__ __forceinline__ float fmul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ float fadd(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ float fsub(float a, float b) { return __fsub_rn(a, b); }

// One warp: rows y0 .. y0 + nrows - 1 (nrows <= 32) of one plane. kKind 0: the image itself
// (mu1 / mu2, from img1), 1: its square (s11 / s22, from img1), 2: img1 * img2 (s12); kKind 3
// (kUniform kernels): every plane by one code path, v = x * y with y = img2 (s12), y = x (squares)
// or y = 1.0f (mu: x * 1 is x, the same bits), so that all warps of the SM share one copy of the
// walk in the instruction cache. out: the plane's ring base (ring_rows x w). products (debug,
// the s12 warp only): the channel's p11, p22, p12 planes (w x h each).
template <int kKind, bool kVec>
__device__ __forceinline__ void warp_rows(const float* __restrict__ img1,
                                          const float* __restrict__ img2, int plane, uint32_t w,
                                          uint32_t y0, uint32_t nrows, const Coef& coef,
                                          float* __restrict__ out, uint32_t ring_rows,
                                          float* slice, int lane, float* __restrict__ products,
                                          uint32_t n) {
  // Which tiles this warp loads: the second image for s12 only.
  const bool two = kKind == 2 || (kKind == 3 && plane == 4);
  constexpr int kWidth = kVec ? 4 : 1;           // floats per load / store
  constexpr int kPerRow = kCols / kWidth;        // load units per tile row (10 or 40)
  constexpr int kUnits = kRows * kPerRow / 32;   // units per lane per tile (10 or 40)
  float* in1 = slice;
  float* in2 = slice + kSlot;
  float* stage = slice + 2 * kSlot;
  // Unit m of the lane (a float4 of one row, or one float). float4 path: units 0..7 are 4 rows x
  // quads 0..7 (128 contiguous bytes per row), units 8 and 9 are 16 rows x quads 8..9 (rows 8a +
  // 0..3, then 8a + 4..7): every warp-wide access of the transposes then hits 32 distinct banks
  // (row pitch 41 = 9 mod 32: the 4 rows of units 0..7 fall in the 4 residue classes mod 4, and
  // rows r % 8 < 4 times quads 8, 9 cover all 32 banks), where the plain row-major order had 2-way
  // conflicts. Scalar path: unit e = lane + 32 m is row e / 40, column e % 40.
  auto unit_row = [&](int m) {
    if constexpr (kVec) {
      if (m < 8) return 4 * m + (lane >> 3);
      const int idx = lane >> 1;
      return 8 * (idx >> 2) + 4 * (m - 8) + (idx & 3);
    } else {
      return (lane + 32 * m) / kPerRow;
    }
  };
  auto unit_col = [&](int m) {
    if constexpr (kVec) return 4 * (m < 8 ? (lane & 7) : 8 + (lane & 1));
    else return (lane + 32 * m) % kPerRow;
  };
  static_assert(!kVec || kUnits == 10);
  // Output row offsets within the ring plane (image row y -> ring row y % ring_rows), formed
  // once (float4 path) or at each store (scalar path: 40 more registers would spill).
  auto out_row = [&](int m) {
    const uint32_t r = uint32_t(unit_row(m));
    return r < nrows ? ((y0 + r) % ring_rows) * w : UINT32_MAX;
  };
  uint32_t orow[kVec ? kUnits : 1];
#pragma unroll
  for (int m = 0; m < (kVec ? kUnits : 1); ++m) orow[m] = out_row(m);
  float nx1[kUnits][kWidth], nx2[kKind == 0 || kKind == 1 ? 1 : kUnits][kWidth];
  auto fetch = [&](uint32_t x0) {
#pragma unroll
    for (int m = 0; m < kUnits; ++m) {
      const uint32_t r = uint32_t(unit_row(m)), x = x0 + uint32_t(unit_col(m));
      // kVec: w % 4 == 0 and x % 4 == 0, so x < w means the whole quad is inside the row.
      const bool inside = r < nrows && x < w;
      const uint32_t i = inside ? (y0 + r) * w + x : 0;
      if constexpr (kVec) {
        const float4 a = inside ? __ldg(reinterpret_cast<const float4*>(img1 + i))
                                : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        nx1[m][0] = a.x, nx1[m][1] = a.y, nx1[m][2] = a.z, nx1[m][3] = a.w;
        if constexpr (kKind >= 2) {
          const float4 b = inside && two ? __ldg(reinterpret_cast<const float4*>(img2 + i))
                                         : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
          nx2[m][0] = b.x, nx2[m][1] = b.y, nx2[m][2] = b.z, nx2[m][3] = b.w;
        }
      } else {
        nx1[m][0] = inside ? __ldg(img1 + i) : 0.0f;
        if constexpr (kKind >= 2) nx2[m][0] = inside && two ? __ldg(img2 + i) : 0.0f;
      }
    }
  };
  // kUniform: the y operand of each plane (the mu planes' tile of 1.0f is written once).
  const float* ysrc = in1;
  if constexpr (kKind == 3) {
    if (plane < 2) {
      for (int i = lane; i < kSlot; i += 32) in2[i] = 1.0f;
      ysrc = in2;
    } else if (plane == 4) {
      ysrc = in2;
    }
  } else if constexpr (kKind == 2) {
    ysrc = in2;
  }
  float carry[kGroup];  // the products of the previous kGroup steps: in[t - 6] of the next ones
#pragma unroll
  for (int i = 0; i < kGroup; ++i) carry[i] = 0.0f;
  float p1[3] = {0.0f, 0.0f, 0.0f}, p2[3] = {0.0f, 0.0f, 0.0f};  // prev1, prev2 per pole
  const float* my1 = in1 + lane * kPitch;
  const float* my2 = ysrc + lane * kPitch;
  float* st = stage + lane * kPitch;
  const uint32_t tiles = (w + 4 + kCols - 1) / kCols;
  fetch(0);
  for (uint32_t tile = 0; tile < tiles; ++tile) {
    const uint32_t x0 = tile * kCols;
    // The prefetched tile into the slice (the previous walk's reads are done).
    __syncwarp();
#pragma unroll
    for (int m = 0; m < kUnits; ++m) {
      const int o = unit_row(m) * kPitch + unit_col(m);
#pragma unroll
      for (int q = 0; q < kWidth; ++q) {
        in1[o + q] = nx1[m][q];
        if constexpr (kKind >= 2) {
          if (two) in2[o + q] = nx2[m][q];
        }
      }
      if constexpr (kKind >= 2) {
        if (products && plane == 4) {
          const uint32_t r = uint32_t(unit_row(m));
#pragma unroll
          for (int q = 0; q < kWidth; ++q) {
            const uint32_t x = x0 + uint32_t(unit_col(m) + q);
            if (r < nrows && x < w) {
              float* p = products + (y0 + r) * w + x;
              p[0] = fmul(nx1[m][q], nx1[m][q]);
              p[n] = fmul(nx2[m][q], nx2[m][q]);
              p[2 * size_t(n)] = fmul(nx1[m][q], nx2[m][q]);
            }
          }
        }
      }
    }
    __syncwarp();
    if (tile + 1 < tiles) fetch(x0 + kCols);
    // Steps t = x0 - 4 + j, j = 10 g + k: in[t + 4] is column j of this tile, in[t - 6] the
    // sample of step j - 10, carried in registers (across tiles too: 40 = 4 x 10).
#pragma unroll 1
    for (int g = 0; g < kCols; g += kGroup) {
      // The group's samples first (they do not depend on the recurrence): the shared-memory
      // latency is paid once per group instead of stalling every step.
      float xs[kGroup], ys[kKind >= 2 ? kGroup : 1];
#pragma unroll
      for (int k = 0; k < kGroup; ++k) {
        xs[k] = my1[g + k];
        if constexpr (kKind >= 2) ys[k] = my2[g + k];
      }
#pragma unroll
      for (int k = 0; k < kGroup; ++k) {
        const float x = xs[k];
        float v;
        if constexpr (kKind == 0) v = x;
        else if constexpr (kKind == 1) v = fmul(x, x);
        else v = fmul(x, ys[k]);
        const float sum = fadd(carry[k], v);
        carry[k] = v;
        float o[3];
#pragma unroll
        for (int p = 0; p < 3; ++p) {
          o[p] = fsub(fsub(fmul(coef.n2[p], sum), fmul(coef.d1[p], p1[p])), p2[p]);
          p2[p] = p1[p];
          p1[p] = o[p];
        }
        st[g + k] = fadd(fadd(o[0], o[1]), o[2]);
      }
    }
    __syncwarp();
    // Outputs t = x0 - 4 + column, coalesced by row (kVec: t % 4 == 0 and w % 4 == 0, so a quad
    // is wholly inside [0, w) or wholly outside). kBatch units at a time: their values are read
    // into registers of their own first, then stored; one at a time, nvcc reused a store's
    // registers for the next unit, which then waited for the store to read them (round 3: the
    // kernel's largest stall). Stores are 16-byte __stcg (nvcc split a plain float4 assignment of
    // four shared-memory loads into four 4-byte stores, round 2).
    constexpr int kBatch = kVec ? 5 : 8;
    static_assert(kUnits % kBatch == 0);
#pragma unroll
    for (int m0 = 0; m0 < kUnits; m0 += kBatch) {
      float val[kBatch][kWidth];
#pragma unroll
      for (int i = 0; i < kBatch; ++i) {
        const float* s = stage + unit_row(m0 + i) * kPitch + unit_col(m0 + i);
#pragma unroll
        for (int q = 0; q < kWidth; ++q) val[i][q] = s[q];
      }
#pragma unroll
      for (int i = 0; i < kBatch; ++i) {
        const int m = m0 + i;
        const long t = long(x0) - 4 + unit_col(m);
        const uint32_t row = kVec ? orow[m] : out_row(m);
        if (row != UINT32_MAX && t >= 0 && t < long(w)) {
          float* dst = out + row + uint32_t(t);
          if constexpr (kVec)
            __stcg(reinterpret_cast<float4*>(dst), make_float4(val[i][0], val[i][1], val[i][2], val[i][3]));
          else
            *dst = val[i][0];
        }
      }
    }
  }
}

// Warp u of the grid. kUniform (one code path): plane p = u % 5, channel c = (u / 5) % 3, row
// group g = u / 15 (rows row0 + 32 g ..): the planes of a row group side by side, so the warps of
// a block mix the cheaper (mu) and dearer (s12) planes and reuse each other's tiles in L1. Per-plane
// code: plane-major instead, p = u / (groups * 3), c = (u / groups) % 3, g = u % groups, so that an
// SM keeps mostly one plane kind's code in its instruction cache. Plane order mu1, mu2, s11, s22,
// s12 (that of the horizontal-blur planes).
template <bool kVec, bool kUniform>
__global__ void __launch_bounds__(32 * kMaxWarps)
blur_rows_warp_kernel(const float* __restrict__ xyb, uint32_t w, uint32_t h, Coef coef,
                      float* __restrict__ hblur, float* __restrict__ debug_products,
                      uint32_t row0, uint32_t rows, uint32_t ring_rows) {
  extern __shared__ float smem[];
  const int lane = int(threadIdx.x) & 31, warp = int(threadIdx.x) >> 5;
  const uint32_t unit = blockIdx.x * (blockDim.x >> 5) + uint32_t(warp);
  const uint32_t groups = (rows + kRows - 1) / kRows;
  if (unit >= groups * 3 * kPlanes) return;  // the whole warp: no barrier follows
  const int p = kUniform ? int(unit % kPlanes) : int(unit / (groups * 3));
  const int c = kUniform ? int((unit / kPlanes) % 3) : int((unit / groups) % 3);
  const uint32_t g = kUniform ? unit / (3 * kPlanes) : unit % groups;
  const uint32_t y0 = row0 + g * kRows;
  const uint32_t end = row0 + rows;
  const uint32_t nrows = end - y0 < uint32_t(kRows) ? end - y0 : uint32_t(kRows);
  const uint32_t n = w * h;  // the planes hold fewer than 2^32 samples (Pipeline::init checks)
  const float* img1 = xyb + size_t(c) * n;
  const float* img2 = xyb + size_t(3 + c) * n;
  float* out = hblur + size_t(c * kPlanes + p) * ring_rows * w;
  float* slice = smem + warp * kSlots * kSlot;
  float* products = debug_products ? debug_products + size_t(3 * c) * n : nullptr;
  const float* src = p == 1 || p == 3 ? img2 : img1;
  if constexpr (kUniform) {
    warp_rows<3, kVec>(src, img2, p, w, y0, nrows, coef, out, ring_rows, slice, lane, products, n);
  } else {
    switch (p) {  // warp-uniform
      case 0:
      case 1: warp_rows<0, kVec>(src, src, p, w, y0, nrows, coef, out, ring_rows, slice, lane, nullptr, n); break;
      case 2:
      case 3: warp_rows<1, kVec>(src, src, p, w, y0, nrows, coef, out, ring_rows, slice, lane, nullptr, n); break;
      default: warp_rows<2, kVec>(img1, img2, p, w, y0, nrows, coef, out, ring_rows, slice, lane, products, n); break;
    }
  }
}

// ---- v5 (VQX_SS2_HBLUR=warpa, session 14 round 5): the same warps, tiles fetched by cp.async --
// The register-prefetch kernels above hold the next tile in 40-80 registers through the walk; at
// the 168-register cap ptxas then reuses a 16-byte store's source registers for the next unit,
// and the warp waits for the store to read them (round 4: 2.9 of 6.4 cycles per instruction on
// the long scoreboard). Here the next tile is copied global -> shared by cp.async (16 bytes per
// copy, no registers), into the other of two tile slots; rows are padded to 44 floats so that the
// copies and the walk's reads of its own row, 4 columns at a time (LDS.128), hit 32 distinct
// banks per quarter-warp; the walk stages its outputs 4 at a time (STS.128). One code path for all
// planes (as warpu), float4 widths only (others take warpu). Each line's operations and order are
// those of warp_rows.
constexpr int kAPitch = 44;
constexpr int kASlot = kRows * kAPitch;         // floats of one 32 x 40 tile (rows padded to 44)
constexpr int kASlots = 5;                      // x tiles [2], y tiles [2], staged outputs
constexpr int kAMaxWarps = 8;
constexpr size_t kAWarpSmem = sizeof(float) * kASlots * kASlot;  // 28160 bytes

__device__ __forceinline__ void cp_async16(float* dst, const float* src, bool valid) {
  const uint32_t d = uint32_t(__cvta_generic_to_shared(dst));
  const int bytes = valid ? 16 : 0;  // 0: the 16 bytes are zero-filled, nothing is read
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d), "l"(src), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(kPending) : "memory");
}

__global__ void __launch_bounds__(32 * kAMaxWarps)
blur_rows_async_kernel(const float* __restrict__ xyb, uint32_t w, uint32_t h, Coef coef,
                       float* __restrict__ hblur, float* __restrict__ debug_products,
                       uint32_t row0, uint32_t rows, uint32_t ring_rows) {
  extern __shared__ float4 smem4[];
  float* smem = reinterpret_cast<float*>(smem4);
  const int lane = int(threadIdx.x) & 31, warp = int(threadIdx.x) >> 5;
  const uint32_t unit = blockIdx.x * (blockDim.x >> 5) + uint32_t(warp);
  const uint32_t groups = (rows + kRows - 1) / kRows;
  if (unit >= groups * 3 * kPlanes) return;  // the whole warp: no barrier follows
  const int p = int(unit % kPlanes), c = int((unit / kPlanes) % 3);
  const uint32_t y0 = row0 + (unit / (3 * kPlanes)) * kRows;
  const uint32_t end = row0 + rows;
  const uint32_t nrows = end - y0 < uint32_t(kRows) ? end - y0 : uint32_t(kRows);
  const uint32_t n = w * h;
  const float* img1 = xyb + size_t(c) * n;
  const float* img2 = xyb + size_t(3 + c) * n;
  const float* src1 = p == 1 || p == 3 ? img2 : img1;  // x: the plane's image
  const bool two = p == 4;                              // y: img2 (s12), x (squares), 1.0f (mu)
  float* out = hblur + size_t(c * kPlanes + p) * ring_rows * w;
  float* xs = smem + warp * kASlots * kASlot;  // [2][32][44]
  float* ys = xs + 2 * kASlot;                 // [2][32][44]
  float* stage = xs + 4 * kASlot;              // [32][44]
  float* products = debug_products && two ? debug_products + size_t(3 * c) * n : nullptr;
  // Unit m of the lane (float4 of a tile row): units 0..7 = 4 rows x quads 0..7, units 8, 9 =
  // 16 rows x quads 8, 9 (as warp_rows).
  auto unit_row = [&](int m) {
    if (m < 8) return 4 * m + (lane >> 3);
    const int idx = lane >> 1;
    return 8 * (idx >> 2) + 4 * (m - 8) + (idx & 3);
  };
  auto unit_col = [&](int m) { return 4 * (m < 8 ? (lane & 7) : 8 + (lane & 1)); };
  uint32_t orow[10];
#pragma unroll
  for (int m = 0; m < 10; ++m) {
    const uint32_t r = uint32_t(unit_row(m));
    orow[m] = r < nrows ? ((y0 + r) % ring_rows) * w : UINT32_MAX;
  }
  auto issue = [&](uint32_t x0, int slot) {
#pragma unroll
    for (int m = 0; m < 10; ++m) {
      const uint32_t r = uint32_t(unit_row(m)), x = x0 + uint32_t(unit_col(m));
      const bool inside = r < nrows && x < w;  // w % 4 == 0: a quad is wholly in or out
      const uint32_t i = inside ? (y0 + r) * w + x : 0;
      const int o = slot * kASlot + int(r) * kAPitch + unit_col(m);
      cp_async16(xs + o, src1 + i, inside);
      if (two) cp_async16(ys + o, img2 + i, inside);
    }
    cp_async_commit();
  };
  if (p < 2)  // mu: y is a tile of 1.0f in both slots (x * 1 is x, the same bits)
    for (int i = lane; i < 2 * kASlot; i += 32) ys[i] = 1.0f;
  const bool y_is_x = p == 2 || p == 3;
  float carry[kGroup];
#pragma unroll
  for (int i = 0; i < kGroup; ++i) carry[i] = 0.0f;
  float p1[3] = {0.0f, 0.0f, 0.0f}, p2[3] = {0.0f, 0.0f, 0.0f};
  const uint32_t tiles = (w + 4 + kCols - 1) / kCols;
  issue(0, 0);
  for (uint32_t tile = 0; tile < tiles; ++tile) {
    const uint32_t x0 = tile * kCols;
    const int cur = int(tile & 1);
    if (tile + 1 < tiles) {
      issue(x0 + kCols, cur ^ 1);  // that slot was last read by the walk before the last sync
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    __syncwarp();
    const float* xrow = xs + cur * kASlot + lane * kAPitch;
    const float* yrow = (y_is_x ? xs : ys) + cur * kASlot + lane * kAPitch;
    if (products) {  // debug: the channel's products of this tile (s12 warps only)
      for (int e = lane; e < kRows * kCols; e += 32) {
        const int r = e / kCols, j = e % kCols;
        const uint32_t x = x0 + uint32_t(j);
        if (uint32_t(r) < nrows && x < w) {
          const float a = xs[cur * kASlot + r * kAPitch + j], b = ys[cur * kASlot + r * kAPitch + j];
          float* q = products + (y0 + uint32_t(r)) * w + x;
          q[0] = fmul(a, a);
          q[n] = fmul(b, b);
          q[2 * size_t(n)] = fmul(a, b);
        }
      }
    }
    // Steps t = x0 - 4 + j, 20 per iteration: in[t + 4] is column j, in[t - 6] the product of
    // step j - 10 (carried across iterations and tiles).
#pragma unroll 1
    for (int g = 0; g < kCols; g += 2 * kGroup) {
      float4 xq[5], yq[5];
#pragma unroll
      for (int k = 0; k < 5; ++k) {
        xq[k] = *reinterpret_cast<const float4*>(xrow + g + 4 * k);
        yq[k] = *reinterpret_cast<const float4*>(yrow + g + 4 * k);
      }
      float v[2 * kGroup], o4[4];
#pragma unroll
      for (int j = 0; j < 2 * kGroup; ++j) {
        const float4 xv = xq[j / 4], yv = yq[j / 4];
        const float x = (j & 3) == 0 ? xv.x : (j & 3) == 1 ? xv.y : (j & 3) == 2 ? xv.z : xv.w;
        const float y = (j & 3) == 0 ? yv.x : (j & 3) == 1 ? yv.y : (j & 3) == 2 ? yv.z : yv.w;
        v[j] = fmul(x, y);
        const float sum = fadd(j >= kGroup ? v[j - kGroup] : carry[j], v[j]);
        float o[3];
#pragma unroll
        for (int q = 0; q < 3; ++q) {
          o[q] = fsub(fsub(fmul(coef.n2[q], sum), fmul(coef.d1[q], p1[q])), p2[q]);
          p2[q] = p1[q];
          p1[q] = o[q];
        }
        o4[j & 3] = fadd(fadd(o[0], o[1]), o[2]);
        if ((j & 3) == 3)
          *reinterpret_cast<float4*>(stage + lane * kAPitch + g + j - 3) =
              make_float4(o4[0], o4[1], o4[2], o4[3]);
      }
#pragma unroll
      for (int i = 0; i < kGroup; ++i) carry[i] = v[kGroup + i];
    }
    __syncwarp();
    // Outputs t = x0 - 4 + column: all ten quads read first, then stored (16 bytes each).
    float4 val[10];
#pragma unroll
    for (int m = 0; m < 10; ++m)
      val[m] = *reinterpret_cast<const float4*>(stage + unit_row(m) * kAPitch + unit_col(m));
#pragma unroll
    for (int m = 0; m < 10; ++m) {
      const long t = long(x0) - 4 + unit_col(m);
      if (orow[m] != UINT32_MAX && t >= 0 && t < long(w))
        __stcg(reinterpret_cast<float4*>(out + orow[m] + uint32_t(t)), val[m]);
    }
  }
}

int sm_count() {
  static int count = [] {
    int device = 0, v = 0;
    check(cudaGetDevice(&device), "ssimulacra2: device");
    check(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, device), "ssimulacra2: SMs");
    return v > 0 ? v : 1;
  }();
  return count;
}

void set_smem_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    const size_t bytes = kWarpSmem * kMaxWarps;
    const char* what = "ssimulacra2: warp row kernel shared memory";
    vqx::cuda::allow_dynamic_smem(blur_rows_warp_kernel<true, false>, bytes, what);
    vqx::cuda::allow_dynamic_smem(blur_rows_warp_kernel<false, false>, bytes, what);
    vqx::cuda::allow_dynamic_smem(blur_rows_warp_kernel<true, true>, bytes, what);
    vqx::cuda::allow_dynamic_smem(blur_rows_warp_kernel<false, true>, bytes, what);
    vqx::cuda::allow_dynamic_smem(blur_rows_async_kernel, kAWarpSmem * kAMaxWarps, what);
  });
}

}  // namespace

void prepare_blur_rows_warp() {
  set_smem_once();
  (void)sm_count();
}

int blur_rows_warp_auto_warps(uint32_t rows) {
  const uint32_t units = (rows + kRows - 1) / kRows * 3 * kPlanes;
  const uint32_t sms = uint32_t(sm_count());
  const uint32_t warps = (units + sms - 1) / sms;
  return int(warps < 1 ? 1 : warps > uint32_t(kMaxWarps) ? uint32_t(kMaxWarps) : warps);
}

void launch_blur_rows_warp(const float* xyb, uint32_t w, uint32_t h, const float n2[3],
                           const float d1[3], float* hblur, float* debug_products, uint32_t row0,
                           uint32_t rows, uint32_t ring_rows, int warps, bool vec,
                           CUstream_st* stream, bool uniform, bool async) {
  set_smem_once();
  if (warps <= 0) warps = blur_rows_warp_auto_warps(rows);
  const Coef coef{{n2[0], n2[1], n2[2]}, {d1[0], d1[1], d1[2]}};
  const uint32_t units = (rows + kRows - 1) / kRows * 3 * kPlanes;
  if (async && vec) {  // v5: cp.async tiles (float4 widths; 16-byte aligned planes)
    if (warps > kAMaxWarps) warps = kAMaxWarps;
    const uint32_t ablocks = (units + uint32_t(warps) - 1) / uint32_t(warps);
    if (ablocks == 0) return;
    blur_rows_async_kernel<<<ablocks, 32 * warps, kAWarpSmem * size_t(warps), stream>>>(
        xyb, w, h, coef, hblur, debug_products, row0, rows, ring_rows);
    check_launch("ssimulacra2: blur_rows_async_kernel");
    return;
  }
  if (async) uniform = true;  // other widths: warpu
  if (warps > kMaxWarps) warps = kMaxWarps;
  const uint32_t blocks = (units + uint32_t(warps) - 1) / uint32_t(warps);
  if (blocks == 0) return;
  const size_t smem = kWarpSmem * size_t(warps);
  auto kernel = vec ? (uniform ? blur_rows_warp_kernel<true, true> : blur_rows_warp_kernel<true, false>)
                    : (uniform ? blur_rows_warp_kernel<false, true> : blur_rows_warp_kernel<false, false>);
  kernel<<<blocks, 32 * warps, smem, stream>>>(xyb, w, h, coef, hblur, debug_products, row0, rows,
                                               ring_rows);
  check_launch("ssimulacra2: blur_rows_warp_kernel");
}

std::vector<float> debug_blur_rows_warp(const std::vector<float>& xyb, uint32_t w, uint32_t h,
                                        uint32_t row0, uint32_t rows, uint32_t ring_rows,
                                        int warps, bool vec, bool uniform, bool async) {
  const size_t n = size_t(w) * h, ring = size_t(15) * ring_rows * w;
  float *d_xyb = nullptr, *d_out = nullptr;
  check(cudaMalloc(&d_xyb, sizeof(float) * 6 * n), "debug hblur: alloc");
  check(cudaMalloc(&d_out, sizeof(float) * ring), "debug hblur: alloc");
  check(cudaMemcpy(d_xyb, xyb.data(), sizeof(float) * 6 * n, cudaMemcpyHostToDevice),
        "debug hblur: upload");
  check(cudaMemset(d_out, 0xff, sizeof(float) * ring), "debug hblur: clear");
  check(cudaDeviceSynchronize(), "debug hblur: upload");
  const BlurCoefficients& bc = blur_coefficients();
  launch_blur_rows_warp(d_xyb, w, h, bc.n2, bc.d1, d_out, nullptr, row0, rows, ring_rows, warps,
                        vec, nullptr, uniform, async);
  check(cudaDeviceSynchronize(), "debug hblur: run");
  std::vector<float> out(ring);
  check(cudaMemcpy(out.data(), d_out, sizeof(float) * ring, cudaMemcpyDeviceToHost),
        "debug hblur: read");
  check(cudaFree(d_xyb), "debug hblur: free");
  check(cudaFree(d_out), "debug hblur: free");
  return out;
}

}  // namespace vqx::ssimulacra2::cuda
