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
constexpr int kCols = 32;                 // columns per tile
constexpr int kPitch = kCols + 1;         // a padded slice row: column reads across lanes hit
                                          // 32 distinct banks
constexpr int kSlot = kRows * kPitch;     // floats of one 32 x 32 tile
constexpr int kSlots = 3;                 // per warp: img1 tile, img2 tile, staged outputs
constexpr int kMaxWarps = 16;
constexpr size_t kWarpSmem = sizeof(float) * kSlots * kSlot;  // 12672 bytes
constexpr int kPlanes = 5;

struct Coef {
  float n2[3], d1[3];
};

__device__ __forceinline__ float fmul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ float fadd(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ float fsub(float a, float b) { return __fsub_rn(a, b); }

// One warp: rows y0 .. y0 + nrows - 1 (nrows <= 32) of one plane. kKind 0: the image itself
// (mu1 / mu2, from img1), 1: its square (s11 / s22, from img1), 2: img1 * img2 (s12).
// out: the plane's ring base (ring_rows x w). products (kKind 2 only, debug): the channel's
// p11, p22, p12 planes (w x h each).
template <int kKind, bool kVec>
__device__ __forceinline__ void warp_rows(const float* __restrict__ img1,
                                          const float* __restrict__ img2, uint32_t w,
                                          uint32_t y0, uint32_t nrows, const Coef& coef,
                                          float* __restrict__ out, uint32_t ring_rows,
                                          float* slice, int lane, float* __restrict__ products,
                                          uint32_t n) {
  constexpr bool kTwo = kKind == 2;
  constexpr int kWidth = kVec ? 4 : 1;           // floats per load / store
  constexpr int kPerRow = kCols / kWidth;        // load units per tile row
  constexpr int kRowStep = 32 / kPerRow;         // rows between a lane's units
  constexpr int kUnits = kRows / kRowStep;       // units per lane per tile (8 or 32)
  float* in1 = slice;
  float* in2 = slice + kSlot;
  float* stage = slice + 2 * kSlot;
  const int ur = lane / kPerRow;                 // the lane's first unit: row ur, column uj
  const int uj = (lane % kPerRow) * kWidth;
  // Output row offsets within the ring plane (image row y -> ring row y % ring_rows), formed
  // once; rows outside the warp's range never store.
  // (The scalar path, for widths not a multiple of 4, forms them at each store instead: 32 more
  // registers would spill.)
  auto out_row = [&](int m) {
    const uint32_t r = uint32_t(ur + m * kRowStep);
    return r < nrows ? ((y0 + r) % ring_rows) * w : UINT32_MAX;
  };
  uint32_t orow[kVec ? kUnits : 1];
#pragma unroll
  for (int m = 0; m < (kVec ? kUnits : 1); ++m) orow[m] = out_row(m);
  float nx1[kUnits][kWidth], nx2[kTwo ? kUnits : 1][kWidth];
  auto fetch = [&](uint32_t x0) {
    const uint32_t x = x0 + uint32_t(uj);
#pragma unroll
    for (int m = 0; m < kUnits; ++m) {
      const uint32_t r = uint32_t(ur + m * kRowStep);
      // kVec: w % 4 == 0 and x % 4 == 0, so x < w means the whole quad is inside the row.
      const bool inside = r < nrows && x < w;
      const uint32_t i = inside ? (y0 + r) * w + x : 0;
      if constexpr (kVec) {
        const float4 a = inside ? __ldg(reinterpret_cast<const float4*>(img1 + i))
                                : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        nx1[m][0] = a.x, nx1[m][1] = a.y, nx1[m][2] = a.z, nx1[m][3] = a.w;
        if constexpr (kTwo) {
          const float4 b = inside ? __ldg(reinterpret_cast<const float4*>(img2 + i))
                                  : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
          nx2[m][0] = b.x, nx2[m][1] = b.y, nx2[m][2] = b.z, nx2[m][3] = b.w;
        }
      } else {
        nx1[m][0] = inside ? __ldg(img1 + i) : 0.0f;
        if constexpr (kTwo) nx2[m][0] = inside ? __ldg(img2 + i) : 0.0f;
      }
    }
  };
  float carry[10];  // the products of columns 22..31 of the previous tile: in[t - 6] of steps 0..9
#pragma unroll
  for (int i = 0; i < 10; ++i) carry[i] = 0.0f;
  float p1[3] = {0.0f, 0.0f, 0.0f}, p2[3] = {0.0f, 0.0f, 0.0f};  // prev1, prev2 per pole
  const float* my1 = in1 + lane * kPitch;
  const float* my2 = in2 + lane * kPitch;
  float* st = stage + lane * kPitch;
  const uint32_t tiles = (w + 4 + kCols - 1) / kCols;
  fetch(0);
  for (uint32_t tile = 0; tile < tiles; ++tile) {
    const uint32_t x0 = tile * kCols;
    // The prefetched tile into the slice (the previous walk's reads are done).
    __syncwarp();
#pragma unroll
    for (int m = 0; m < kUnits; ++m) {
      const int o = (ur + m * kRowStep) * kPitch + uj;
#pragma unroll
      for (int q = 0; q < kWidth; ++q) {
        in1[o + q] = nx1[m][q];
        if constexpr (kTwo) in2[o + q] = nx2[m][q];
      }
      if constexpr (kTwo) {
        if (products) {
          const uint32_t r = uint32_t(ur + m * kRowStep);
#pragma unroll
          for (int q = 0; q < kWidth; ++q) {
            const uint32_t x = x0 + uint32_t(uj + q);
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
    // Steps t = x0 - 4 + j: in[t + 4] is column j of this tile, in[t - 6] column j - 10 (or
    // j + 22 of the previous tile, carried).
    float v[kCols];
#pragma unroll
    for (int j = 0; j < kCols; ++j) {
      const float x = my1[j];
      if constexpr (kKind == 0) v[j] = x;
      else if constexpr (kKind == 1) v[j] = fmul(x, x);
      else v[j] = fmul(x, my2[j]);
      const float sum = fadd(j >= 10 ? v[j - 10] : carry[j], v[j]);
      float o[3];
#pragma unroll
      for (int k = 0; k < 3; ++k) {
        o[k] = fsub(fsub(fmul(coef.n2[k], sum), fmul(coef.d1[k], p1[k])), p2[k]);
        p2[k] = p1[k];
        p1[k] = o[k];
      }
      st[j] = fadd(fadd(o[0], o[1]), o[2]);
    }
#pragma unroll
    for (int i = 0; i < 10; ++i) carry[i] = v[22 + i];
    __syncwarp();
    // Outputs t = x0 - 4 + column, coalesced by row (kVec: t % 4 == 0 and w % 4 == 0, so a quad
    // is wholly inside [0, w) or wholly outside).
    const long t = long(x0) - 4 + uj;
    if (t >= 0 && t < long(w)) {
#pragma unroll
      for (int m = 0; m < kUnits; ++m) {
        const uint32_t row = kVec ? orow[m] : out_row(m);
        if (row != UINT32_MAX) {
          const float* s = stage + (ur + m * kRowStep) * kPitch + uj;
          float* dst = out + row + uint32_t(t);
          if constexpr (kVec)
            *reinterpret_cast<float4*>(dst) = make_float4(s[0], s[1], s[2], s[3]);
          else
            *dst = s[0];
        }
      }
    }
  }
}

// Warp u of the grid: row group g = u / 15 (rows row0 + 32 g ..), channel c = (u / 5) % 3,
// plane p = u % 5 (mu1, mu2, s11, s22, s12: the plane order of the horizontal-blur planes).
template <bool kVec>
__global__ void __launch_bounds__(32 * kMaxWarps)
blur_rows_warp_kernel(const float* __restrict__ xyb, uint32_t w, uint32_t h, Coef coef,
                      float* __restrict__ hblur, float* __restrict__ debug_products,
                      uint32_t row0, uint32_t rows, uint32_t ring_rows) {
  extern __shared__ float smem[];
  const int lane = int(threadIdx.x) & 31, warp = int(threadIdx.x) >> 5;
  const uint32_t unit = blockIdx.x * (blockDim.x >> 5) + uint32_t(warp);
  const uint32_t groups = (rows + kRows - 1) / kRows;
  if (unit >= groups * 3 * kPlanes) return;  // the whole warp: no barrier follows
  const int p = int(unit % kPlanes), c = int((unit / kPlanes) % 3);
  const uint32_t g = unit / (3 * kPlanes);
  const uint32_t y0 = row0 + g * kRows;
  const uint32_t end = row0 + rows;
  const uint32_t nrows = end - y0 < uint32_t(kRows) ? end - y0 : uint32_t(kRows);
  const uint32_t n = w * h;  // the planes hold fewer than 2^32 samples (Pipeline::init checks)
  const float* img1 = xyb + size_t(c) * n;
  const float* img2 = xyb + size_t(3 + c) * n;
  float* out = hblur + size_t(c * kPlanes + p) * ring_rows * w;
  float* slice = smem + warp * kSlots * kSlot;
  float* products = debug_products ? debug_products + size_t(3 * c) * n : nullptr;
  switch (p) {  // warp-uniform
    case 0: warp_rows<0, kVec>(img1, img1, w, y0, nrows, coef, out, ring_rows, slice, lane, nullptr, n); break;
    case 1: warp_rows<0, kVec>(img2, img2, w, y0, nrows, coef, out, ring_rows, slice, lane, nullptr, n); break;
    case 2: warp_rows<1, kVec>(img1, img1, w, y0, nrows, coef, out, ring_rows, slice, lane, nullptr, n); break;
    case 3: warp_rows<1, kVec>(img2, img2, w, y0, nrows, coef, out, ring_rows, slice, lane, nullptr, n); break;
    default: warp_rows<2, kVec>(img1, img2, w, y0, nrows, coef, out, ring_rows, slice, lane, products, n); break;
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
    const int bytes = int(kWarpSmem * kMaxWarps);
    check(cudaFuncSetAttribute(blur_rows_warp_kernel<true>,
                               cudaFuncAttributeMaxDynamicSharedMemorySize, bytes),
          "ssimulacra2: warp row kernel shared memory");
    check(cudaFuncSetAttribute(blur_rows_warp_kernel<false>,
                               cudaFuncAttributeMaxDynamicSharedMemorySize, bytes),
          "ssimulacra2: warp row kernel shared memory");
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
                           CUstream_st* stream) {
  set_smem_once();
  if (warps <= 0) warps = blur_rows_warp_auto_warps(rows);
  if (warps > kMaxWarps) warps = kMaxWarps;
  const Coef coef{{n2[0], n2[1], n2[2]}, {d1[0], d1[1], d1[2]}};
  const uint32_t units = (rows + kRows - 1) / kRows * 3 * kPlanes;
  const uint32_t blocks = (units + uint32_t(warps) - 1) / uint32_t(warps);
  if (blocks == 0) return;
  const size_t smem = kWarpSmem * size_t(warps);
  if (vec)
    blur_rows_warp_kernel<true><<<blocks, 32 * warps, smem, stream>>>(
        xyb, w, h, coef, hblur, debug_products, row0, rows, ring_rows);
  else
    blur_rows_warp_kernel<false><<<blocks, 32 * warps, smem, stream>>>(
        xyb, w, h, coef, hblur, debug_products, row0, rows, ring_rows);
  check_launch("ssimulacra2: blur_rows_warp_kernel");
}

std::vector<float> debug_blur_rows_warp(const std::vector<float>& xyb, uint32_t w, uint32_t h,
                                        uint32_t row0, uint32_t rows, uint32_t ring_rows,
                                        int warps, bool vec) {
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
                        vec, nullptr);
  check(cudaDeviceSynchronize(), "debug hblur: run");
  std::vector<float> out(ring);
  check(cudaMemcpy(out.data(), d_out, sizeof(float) * ring, cudaMemcpyDeviceToHost),
        "debug hblur: read");
  check(cudaFree(d_xyb), "debug hblur: free");
  check(cudaFree(d_out), "debug hblur: free");
  return out;
}

}  // namespace vqx::ssimulacra2::cuda
