// Stage 2 of SSIMULACRA 2 on the device: the horizontal pass of the 15 blurs of a scale (3
// channels x mu1, mu2, s11, s22, s12; sections 5 and 6.2), the products formed on the fly, on the
// blocked XYB planes (device_stages.h).
#include <cstdint>

#include "engine/cuda/cuda_check.h"
#include "metrics/ssimulacra2/cuda/device_math.cuh"

namespace vqx::ssimulacra2::cuda {
namespace {

using vqx::cuda::check;
using vqx::cuda::check_launch;

struct OnesBlock {
  float value[1024];
};
constexpr OnesBlock ones() {
  OnesBlock b{};
  for (float& v : b.value) v = 1.0f;
  return b;
}
__device__ const OnesBlock g_ones = ones();

// One warp per (32 rows, channel, plane): lane = row y0 + lane, a block per warp (no block
// barrier). The line to blur is section 5's (img1, img2, img1^2, img2^2, img1 * img2), formed as
// p * q by one code path for every plane (five specialised ones thrash the instruction cache, "no
// instruction" stalls): q is a block of ones for mu1 and mu2 (p * 1 = p exactly), p itself for
// the squares, img2 for s12. The walk is section 6.2's: step t = -4 ... w - 1 with in[t + 4] and
// in[t - 6] (zero outside the row) and Recurrence::step. Steps run in chunks of 32 (t = 32 j ...
// 32 j + 31, in[t + 4] = columns 32 j + 4 ... 32 j + 35: block j's columns 4..31 and block j + 1's
// 0..3); the samples of chunk j + 1 are loaded while chunk j is walked; in[t - 6] is the current
// chunk's sample i - 10 or the previous chunk's i + 22. Outputs go to a warp-private shared tile
// [step][row] and, after the chunk, out as 32 rows of 32 columns (float4 stores when `vec`).
constexpr int kTChunk = 32;

__global__ void __launch_bounds__(kLines)
    blur_rows_kernel(const float* __restrict__ xyb_t, const float* __restrict__ ones, uint32_t w,
                     uint32_t h, uint32_t rows_t, size_t plane_t, BlurCoef coef,
                     float* __restrict__ hblur, float* __restrict__ products_dump, bool vec) {
  __shared__ float tile[kTChunk][kLines + 1];
  const int c = int(blockIdx.x) / kBlurPlanes, kind = int(blockIdx.x) % kBlurPlanes;
  const uint32_t y0 = blockIdx.y * kLines;
  const int lane = threadIdx.x;
  const uint32_t y = y0 + lane;
  const size_t n = size_t(w) * h;
  const float* a_t = xyb_t + size_t(c) * plane_t;
  const float* b_t = xyb_t + size_t(3 + c) * plane_t;
  float* out = hblur + size_t(c * kBlurPlanes + kind) * n;
  // The products dump: per channel p11, p22, p12 (planes 2, 3, 4).
  float* products =
      products_dump && kind >= 2 ? products_dump + size_t(3 * c + (kind - 2)) * n : nullptr;
  // Block (x / 32, y0 / 32) of a plane: base + (x / 32) * step; lane's row inside it.
  const size_t step = size_t(rows_t >> 5) * 1024;
  const float* p_base = (kind == 1 || kind == 3 ? b_t : a_t) + size_t(y0 >> 5) * 1024 + lane;
  const float* q_base = (kind == 4   ? b_t + size_t(y0 >> 5) * 1024 + lane
                         : kind >= 2 ? p_base
                                     : ones + lane);
  const size_t q_step = kind >= 2 ? step : 0;
  Recurrence rec;
  // Steps t = -4 ... -1: in[t + 4] = columns 0 ... 3 (block 0), in[t - 6] = padding (+0).
  float tail[10];  // in[t - 6] of the first 10 steps of the next chunk
#pragma unroll
  for (int i = 0; i < 6; ++i) tail[i] = 0.0f;
  const bool row_in = y < h;
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
  const uint32_t rows = h - y0 < uint32_t(kLines) ? h - y0 : uint32_t(kLines);
  fetch(0);
  for (uint32_t j = 0; j < chunks; ++j) {
    float cur[kTChunk];
#pragma unroll
    for (int i = 0; i < kTChunk; ++i) cur[i] = fmul(np[i], nq[i]);
    if (products && row_in) {  // the products of this chunk's columns
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
          if (r < rows)
            *reinterpret_cast<float4*>(out + size_t(y0 + r) * w + x) = make_float4(
                tile[4 * q][r], tile[4 * q + 1][r], tile[4 * q + 2][r], tile[4 * q + 3][r]);
        }
      }
    } else {  // lane = column
      const uint32_t x = x0 + uint32_t(lane);
      if (x < w) {
#pragma unroll 8
        for (uint32_t r = 0; r < rows; ++r) out[size_t(y0 + r) * w + x] = tile[lane][r];
      }
    }
    __syncwarp();
  }
}

}  // namespace

const float* ones_block() {
  void* address = nullptr;
  check(cudaGetSymbolAddress(&address, g_ones), "ssimulacra2: ones");
  return static_cast<const float*>(address);
}

void launch_blur_rows(const RowsLaunch& l, cudaStream_t stream) {
  const dim3 grid(3 * kBlurPlanes, (l.height + kLines - 1) / kLines);
  blur_rows_kernel<<<grid, kLines, 0, stream>>>(l.xyb, l.ones, l.width, l.height, l.plane.rows_t,
                                                l.plane.floats, blur_coef(), l.hblur,
                                                l.products_dump, l.vec);
  check_launch("ssimulacra2: blur_rows_kernel");
}

}  // namespace vqx::ssimulacra2::cuda
