#pragma once
// One 8x8 block of libvmaf's `psnr_hvs` (feature/third_party/xiph/psnr_hvs.c, Xiph's PSNR-HVS-M
// from Daala): block statistics in f32, Daala's integer 8x8 DCT, the contrast-masking threshold
// and the 64 f32 terms that the plane sum adds. One source for the CPU path and its CUDA twin
// (core/host_device.h): every operation and its order are upstream's, so both give the same bits.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "core/host_device.h"

namespace vqx::psnr_hvs {

inline constexpr int kBlock = 8;
// Blocks start every 7 samples (neighbours share a row or column), while 7 samples remain after
// the start: upstream's `for (y = 0; y < h - 7; y += 7)`.
inline constexpr int kStep = 7;

// The CSF weights of a plane and the masking weights derived from them, row-major [i][j].
struct BlockWeights {
  float csf[64];
  float mask[64];
};

// Daala's integer DCT runs in 32-bit ints (Int = int32_t); the tests also run it in 64 bits to
// show that no intermediate overflows for samples of up to 12 bits.

// Daala's OD_DCT_RSHIFT(a, 1): halves, rounding towards zero.
template <typename Int>
VQX_HOST_DEVICE inline Int half_toward_zero(Int a) {
  return (a + Int(a < 0)) >> 1;
}

// One lifting step: (v * multiplier + 2^(shift-1)) >> shift.
template <typename Int>
VQX_HOST_DEVICE inline Int lift(Int v, Int multiplier, int shift) {
  return (v * multiplier + (Int(1) << (shift - 1))) >> shift;
}

// Daala's 8-point lifting DCT-II (od_bin_fdct8): in[k * stride] -> out[0..7].
template <typename Int>
VQX_HOST_DEVICE inline void fdct8(Int out[8], const Int* in, int stride) {
  Int t0 = in[0 * stride], t4 = in[1 * stride], t2 = in[2 * stride], t6 = in[3 * stride];
  Int t7 = in[4 * stride], t3 = in[5 * stride], t5 = in[6 * stride], t1 = in[7 * stride];
  // Butterflies.
  t1 = t0 - t1;
  const Int t1h = half_toward_zero(t1);
  t0 -= t1h;
  t4 += t5;
  const Int t4h = half_toward_zero(t4);
  t5 -= t4h;
  t3 = t2 - t3;
  t2 -= half_toward_zero(t3);
  t6 += t7;
  const Int t6h = half_toward_zero(t6);
  t7 = t6h - t7;
  // Embedded 4-point DCT-II, with its 2-point DCT-II and 2-point DST-IV.
  t0 += t6h;
  t6 = t0 - t6;
  t2 = t4h - t2;
  t4 = t2 - t4;
  t0 -= lift<Int>(t4, 13573, 15);
  t4 += lift<Int>(t0, 11585, 14);
  t0 -= lift<Int>(t4, 13573, 15);
  t6 -= lift<Int>(t2, 21895, 15);
  t2 += lift<Int>(t6, 15137, 14);
  t6 -= lift<Int>(t2, 21895, 15);
  // Embedded 4-point DST-IV.
  t3 += lift<Int>(t5, 19195, 15);
  t5 += lift<Int>(t3, 11585, 14);
  t3 -= lift<Int>(t5, 7489, 13);
  t7 = half_toward_zero(t5) - t7;
  t5 -= t7;
  t3 = t1h - t3;
  t1 -= t3;
  t7 += lift<Int>(t1, 3227, 15);
  t1 -= lift<Int>(t7, 6393, 15);
  t7 += lift<Int>(t1, 3227, 15);
  t5 += lift<Int>(t3, 2485, 13);
  t3 -= lift<Int>(t5, 18205, 15);
  t5 += lift<Int>(t3, 2485, 13);
  out[0] = t0;
  out[1] = t1;
  out[2] = t2;
  out[3] = t3;
  out[4] = t4;
  out[5] = t5;
  out[6] = t6;
  out[7] = t7;
}

// 2-D DCT in place: columns of the block become rows of a temporary, whose columns become the
// rows of the result (od_bin_fdct8x8).
template <typename Int>
VQX_HOST_DEVICE inline void fdct8x8(Int block[64]) {
  Int columns[64];
  for (int i = 0; i < 8; ++i) fdct8(columns + 8 * i, block + i, 8);
  for (int i = 0; i < 8; ++i) fdct8(block + 8 * i, columns + i, 8);
}

// (sum of the four 4x4 quadrant variances) / (block variance) when the block variance is
// positive, else the block variance itself (upstream leaves it in place), all in f32.
VQX_HOST_DEVICE inline float variance_ratio(const int32_t v[64]) {
  float mean = 0;
  float quadrant_mean[4] = {0, 0, 0, 0};
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      const int q = ((i & 12) >> 2) + ((j & 12) >> 1);
      mean += v[i * 8 + j];
      quadrant_mean[q] += v[i * 8 + j];
    }
  mean /= 64.f;
  for (int q = 0; q < 4; ++q) quadrant_mean[q] /= 16.f;
  float variance = 0;
  float quadrant_variance[4] = {0, 0, 0, 0};
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      const int q = ((i & 12) >> 2) + ((j & 12) >> 1);
      variance += (v[i * 8 + j] - mean) * (v[i * 8 + j] - mean);
      quadrant_variance[q] += (v[i * 8 + j] - quadrant_mean[q]) * (v[i * 8 + j] - quadrant_mean[q]);
    }
  // Unbiased estimates: f32 factors 64/63 and 16/15, rounded as upstream's 1 / 63.f * 64.
  constexpr float kBlockUnbias = 1 / 63.f * 64;
  constexpr float kQuadrantUnbias = 1 / 15.f * 16;
  variance *= kBlockUnbias;
  for (int q = 0; q < 4; ++q) quadrant_variance[q] *= kQuadrantUnbias;
  if (variance > 0)
    variance = (quadrant_variance[0] + quadrant_variance[1] + quadrant_variance[2] +
                quadrant_variance[3]) /
               variance;
  return variance;
}

// The masking threshold sqrt(ratio * sum over AC of c^2 * mask) / 32: f32 sum and product, f64
// root and division.
VQX_HOST_DEVICE inline float masking(const int32_t dct[64], float ratio, const BlockWeights& w) {
  float energy = 0;
  for (int i = 0; i < 8; ++i)
    for (int j = (i == 0); j < 8; ++j)
      energy += dct[i * 8 + j] * dct[i * 8 + j] * w.mask[i * 8 + j];
  return float(sqrt(double(energy * ratio)) / 32.f);
}

// The 64 terms (err * csf)^2 of the block whose top-left sample is ref[0] / dis[0], where err is
// |DCT difference| minus the masking threshold (clamped at 0) for AC and the plain |difference|
// for DC. Rows are `stride` samples apart.
template <typename Sample>
VQX_HOST_DEVICE inline void block_terms(const Sample* ref, const Sample* dis, size_t stride,
                                        const BlockWeights& w, float terms[64]) {
  int32_t s[64], d[64];
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      s[i * 8 + j] = ref[i * stride + j];
      d[i * 8 + j] = dis[i * stride + j];
    }
  const float s_ratio = variance_ratio(s);
  const float d_ratio = variance_ratio(d);
  fdct8x8(s);
  fdct8x8(d);
  float threshold = masking(s, s_ratio, w);
  const float d_threshold = masking(d, d_ratio, w);
  if (d_threshold > threshold) threshold = d_threshold;
  for (int k = 0; k < 64; ++k) {
    float err = float(abs(s[k] - d[k]));
    if (k != 0) err = err < threshold / w.mask[k] ? 0 : err - threshold / w.mask[k];
    terms[k] = (err * w.csf[k]) * (err * w.csf[k]);
  }
}

// A plane's score from the f32 running sum of its terms: divided by the number of terms (an int,
// as upstream counts them), then by (2^bit_depth - 1)^2, in f32.
VQX_HOST_DEVICE inline float finish_plane_sum(float sum, uint64_t blocks, unsigned bit_depth) {
  const int count = int(blocks * 64);
  sum /= count;
  const int32_t sample_max = (1 << bit_depth) - 1;
  sum /= sample_max * sample_max;
  return sum;
}

}  // namespace vqx::psnr_hvs
