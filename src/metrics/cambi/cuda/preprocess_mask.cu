// cambi on CUDA: the input check, the 10-bit conversion, the anti-dither and the spatial mask
// (shared/spec/cambi.md 4, 5), one kernel for the last three. Integer throughout, so the image
// and the mask are the CPU stages' bit for bit.
#include <algorithm>

#include "engine/cuda/cuda_check.h"
#include "metrics/cambi/cuda/device_stages.h"

namespace vqx::cambi_cuda {
namespace {

__device__ __forceinline__ uint32_t to_10bit(uint32_t v, int bpc) {  // spec 4.2, as the CPU
  if (bpc <= 8) return v << (10 - bpc);
  if (bpc == 9) return v << 1;
  if (bpc == 10) return v;
  return (v + (1u << (bpc - 11))) >> (bpc - 10);
}

template <typename Sample>
__global__ void validate_kernel(const Sample* luma, u64 count, unsigned limit, unsigned* status,
                                unsigned bit) {
  bool bad = false;
  const u64 stride = u64(gridDim.x) * blockDim.x;
  for (u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
    bad |= unsigned(luma[i]) > limit;
  if (__any_sync(0xffffffffu, bad) && (threadIdx.x & 31) == 0) atomicOr(status, bit);
}

constexpr int kMaskTw = 32, kMaskTh = 8;
// The halo an output tile needs: rows r0-3..r0+th+3, columns c0-3..c0+tw+3.
constexpr int kMaskIR = kMaskTh + 7, kMaskIC = kMaskTw + 7;

// The mask of one 32 x 8 tile from its image halo in shared memory (filled by the caller; the
// first barrier here waits for it): z flags (0 outside the image, spec 5), sums of 7 rows then 7
// columns, threshold.
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

// One pixel of the 10-bit image: the input sample through the index tables (spec 4.2), averaged
// with its right and lower neighbours by the out-of-place 2x2 anti-dither (4.3) when it is on.
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
    if (right && down)
      v = (v + at(r, c + 1) + at(r + 1, c) + at(r + 1, c + 1)) >> 2;
    else if (down)
      v = (v + at(r + 1, c)) >> 1;
    else if (right)
      v = (v + at(r, c + 1)) >> 1;
  }
  return uint16_t(v);
}

// A 32 x 8 output tile converts its 15 x 39 halo from the input into shared memory, writes its
// own pixels out as the 10-bit image and forms the mask from the halo.
template <typename Sample>
__global__ void __launch_bounds__(kMaskTw* kMaskTh)
    premask_kernel(const Sample* luma, unsigned in_w, int bpc, const uint32_t* rows,
                   const uint32_t* cols, int w, int h, bool dither, int mask_index, uint16_t* pre,
                   uint8_t* mask) {
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

template <typename Sample>
void launch_validate(const LumaPlane& luma, unsigned* status, unsigned bit, cudaStream_t stream) {
  const u64 count = u64(luma.width) * luma.height;
  const unsigned blocks = unsigned(std::min<u64>(1024, (count + 255) / 256));
  validate_kernel<Sample><<<blocks, 256, 0, stream>>>(static_cast<const Sample*>(luma.samples),
                                                      count, (1u << luma.bpc) - 1, status, bit);
  cuda::check_launch("cambi: validate_kernel");
}

template <typename Sample>
void launch_premask(const LumaPlane& luma, const uint32_t* rows, const uint32_t* cols, unsigned w,
                    unsigned h, bool dither, int mask_index, uint16_t* image, uint8_t* mask,
                    cudaStream_t stream) {
  const dim3 block(kMaskTw, kMaskTh);
  premask_kernel<Sample><<<grid2d(w, h, block), block, 0, stream>>>(
      static_cast<const Sample*>(luma.samples), luma.width, luma.bpc, rows, cols, int(w), int(h),
      dither, mask_index, image, mask);
  cuda::check_launch("cambi: premask_kernel");
}

}  // namespace

void enqueue_validate(const LumaPlane& luma, unsigned* status, unsigned status_bit,
                      cudaStream_t stream) {
  if (luma.bpc == 8 || luma.bpc == 16) return;
  if (luma.bpc > 8)
    launch_validate<uint16_t>(luma, status, status_bit, stream);
  else
    launch_validate<uint8_t>(luma, status, status_bit, stream);
}

void enqueue_preprocess_mask(const LumaPlane& luma, const uint32_t* rows, const uint32_t* cols,
                             unsigned w, unsigned h, bool dither, int mask_index, uint16_t* image,
                             uint8_t* mask, cudaStream_t stream) {
  if (luma.bpc > 8)
    launch_premask<uint16_t>(luma, rows, cols, w, h, dither, mask_index, image, mask, stream);
  else
    launch_premask<uint8_t>(luma, rows, cols, w, h, dither, mask_index, image, mask, stream);
}

}  // namespace vqx::cambi_cuda
