// cambi on CUDA: per scale the decimation fused into the 3x3 mode filter, which also writes the
// level map the c-values count (shared/spec/cambi.md 6 step 1, 6.2, 6.3). Integer throughout.
#include "engine/cuda/cuda_check.h"
#include "metrics/cambi/cuda/device_stages.h"

namespace vqx::cambi_cuda {
namespace {

// Majority of three, the smallest when all differ (spec 6.2).
__device__ __forceinline__ uint16_t mode3(uint16_t a, uint16_t b, uint16_t c) {
  if (a == b || a == c) return a;
  if (b == c) return b;
  return min(a, min(b, c));
}

__global__ void mode_kernel(const uint16_t* prev, unsigned prev_w, unsigned step,
                            const uint8_t* mask, unsigned mask_w, unsigned shift, unsigned w,
                            unsigned h, int base, int band, uint16_t* out, uint16_t* level) {
  const unsigned c = blockIdx.x * blockDim.x + threadIdx.x,
                 r = blockIdx.y * blockDim.y + threadIdx.y;
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

}  // namespace

void enqueue_mode_filter(const ModeFilterScale& s, int base, int band, uint16_t* image,
                         uint16_t* level, cudaStream_t stream) {
  const dim3 block(32, 8);
  mode_kernel<<<grid2d(s.w, s.h, block), block, 0, stream>>>(
      s.prev, s.prev_w, s.step, s.mask, s.mask_w, s.shift, s.w, s.h, base, band, image, level);
  cuda::check_launch("cambi: mode_kernel");
}

}  // namespace vqx::cambi_cuda
