#pragma once
// The integer steps of libswscale's two passes (FFmpeg 5.1 swscale.c hScale*_c, output.c
// yuv2plane*_c) for planar YUV of one depth in and out, with SWS_ACCURATE_RND | SWS_BITEXACT.
// Shared by the plain model and the CUDA kernels, so both round as libswscale does.
//
// The horizontal pass sums input * weight (14 fractional bits) into an intermediate of 15 bits
// (depths up to 14) or 19 bits (16-bit); the vertical pass sums intermediates * weights (12 bits),
// adds half an output step and shifts. Depth-8 output is not dithered: libswscale dithers only
// inputs deeper than 8 bits, and only where it writes 8-bit samples.
#include <cstdint>

#if defined(__CUDACC__)
#define VQX_SCALE_FN __host__ __device__ __forceinline__
#else
#define VQX_SCALE_FN inline
#endif

namespace vqx::scale {

// The intermediate of depth-16 pictures holds 19 bits; shallower ones fit 15 bits (int16_t).
constexpr bool wide_intermediate(unsigned depth) { return depth > 14; }

// The horizontal sum (of at most 170 taps: it fits 32 bits) to the intermediate.
VQX_SCALE_FN int32_t finish_horizontal(int32_t sum, unsigned depth) {
  if (depth > 14) {
    int32_t v = sum >> 11;
    return v < (1 << 19) - 1 ? v : (1 << 19) - 1;
  }
  int32_t v = sum >> (depth == 8 ? 7 : depth - 1);
  return v < (1 << 15) - 1 ? v : (1 << 15) - 1;
}

VQX_SCALE_FN int32_t clip_bits(int32_t v, unsigned bits) {
  const int32_t top = (1 << bits) - 1;
  return v < 0 ? 0 : v > top ? top : v;
}

// An output sample from a one-tap vertical filter (libswscale ignores that tap's weight).
VQX_SCALE_FN uint32_t vertical_single(int32_t intermediate, unsigned depth) {
  if (depth == 8) return uint32_t(clip_bits((intermediate + 64) >> 7, 8));
  if (depth > 14) return uint32_t(clip_bits((intermediate + 4) >> 3, 16));
  const unsigned shift = 15 - depth;
  return uint32_t(clip_bits((intermediate + (1 << (shift - 1))) >> shift, depth));
}

// The rounding offset the vertical sum starts from. Depth 16 starts 2^30 lower and wraps modulo
// 2^32, as libswscale does to keep filters with negative lobes inside 32 bits.
VQX_SCALE_FN uint32_t vertical_start(unsigned depth) {
  if (depth == 8) return 64u << 12;
  if (depth > 14) return (1u << 14) - 0x40000000u;
  return 1u << (26 - depth);
}

// An output sample from a vertical sum that started at vertical_start() and added each
// intermediate * weight modulo 2^32.
VQX_SCALE_FN uint32_t vertical_finish(uint32_t sum, unsigned depth) {
  const int32_t v = int32_t(sum);
  if (depth == 8) return uint32_t(clip_bits(v >> 19, 8));
  if (depth > 14) {
    int32_t s = v >> 15;
    s = s < -32768 ? -32768 : s > 32767 ? 32767 : s;
    return uint32_t(s + 0x8000);
  }
  return uint32_t(clip_bits(v >> (27 - depth), depth));
}

}  // namespace vqx::scale

#undef VQX_SCALE_FN
