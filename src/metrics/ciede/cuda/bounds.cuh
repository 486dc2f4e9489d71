#pragma once
// Enclosures of what the CPU computes, for the ciede twin (docs/ciede.md, "CUDA twin").
//
// The CPU's per-pixel values come from glibc's libm, which is not correctly rounded, and CUDA's
// device functions round differently, so the device cannot reproduce a libm result bit for bit.
// It can bound it: both libraries are within a few ulp of the exact value (glibc documents at
// most 1 ulp for pow, exp, sin, cos and atan2; CUDA's programming guide at most 2), so glibc's
// result lies within kLibmRelative * |v| of the device's result v, with a wide margin (16 ulp).
// From a libm call on, the device carries an interval [lo, hi] through the CPU's f64 arithmetic
// with outward rounding (round-down for lo, round-up for hi), so the CPU's own value, whatever
// glibc returned, stays inside. Where the CPU rounds to f32 or branches, the device takes the one
// outcome the whole interval agrees on, or reports the pixel as undecided; the host then computes
// that pixel with glibc itself.
#include <cstdint>

namespace vqx::ciede::cuda {

constexpr double kLibmRelative = 0x1p-48;
constexpr double kLibmAbsolute = 0x1p-1000;  // covers results so small that ulps are absolute

struct Bound {
  double lo, hi;
};

__device__ inline Bound exact(double v) { return {v, v}; }

// A libm result v of the device, widened to hold glibc's result for the same argument. Zero is
// exact in both libraries here: atan2(+-0, x) and sin(+-0) are exact special cases.
__device__ inline Bound libm_result(double v) {
  if (v == 0.0) return {v, v};
  const double r = __dadd_ru(__dmul_ru(fabs(v), kLibmRelative), kLibmAbsolute);
  return {__dadd_rd(v, -r), __dadd_ru(v, r)};
}

__device__ inline Bound add(Bound a, Bound b) {
  return {__dadd_rd(a.lo, b.lo), __dadd_ru(a.hi, b.hi)};
}
__device__ inline Bound sub(Bound a, Bound b) {
  return {__dadd_rd(a.lo, -b.hi), __dadd_ru(a.hi, -b.lo)};
}
// a times an exact constant c.
__device__ inline Bound scale(Bound a, double c) {
  if (c >= 0) return {__dmul_rd(a.lo, c), __dmul_ru(a.hi, c)};
  return {__dmul_rd(a.hi, c), __dmul_ru(a.lo, c)};
}
// Both operands non-negative.
__device__ inline Bound mul_nonnegative(Bound a, Bound b) {
  return {__dmul_rd(a.lo, b.lo), __dmul_ru(a.hi, b.hi)};
}
// a >= 0, b > 0.
__device__ inline Bound div_nonnegative(Bound a, Bound b) {
  return {__ddiv_rd(a.lo, b.hi), __ddiv_ru(a.hi, b.lo)};
}
__device__ inline Bound sqrt_of(Bound a) {
  return {__dsqrt_rd(a.lo > 0 ? a.lo : 0.0), __dsqrt_ru(a.hi)};
}

// float(v) for every v in b, if they agree (round to nearest is monotonic, so the ends decide).
__device__ inline bool to_float(Bound b, float& out) {
  const float lo = __double2float_rn(b.lo), hi = __double2float_rn(b.hi);
  out = lo;
  return __float_as_uint(lo) == __float_as_uint(hi);
}

// The outcome of `value > threshold` for every value in b: 1 true, 0 false, -1 undecided.
__device__ inline int greater(Bound b, double threshold) {
  if (b.lo > threshold) return 1;
  if (!(b.hi > threshold)) return 0;
  return -1;
}

}  // namespace vqx::ciede::cuda
