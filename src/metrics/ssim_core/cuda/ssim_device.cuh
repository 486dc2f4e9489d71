#pragma once
// Device helpers shared by the SSIM stage kernels (decimation, windows, sums; float_ssim's box
// decimation). Contract: shared/spec/ms_ssim.md section 10, shared/spec/README.md.
//
// Every per-pixel value is computed with the CPU's operations in the CPU's order: f32 products
// rounded to f32, widened exactly, added to an f64 accumulator tap by tap (spec 3.3, 4.1);
// explicit __*_rn intrinsics so that nothing can be contracted (the build also has
// --fmad=false). Only the per-scale sums differ from the CPU's sequential ones: a fixed tree of
// double-double sums (tile -> block tree -> one tree per scale and quantity), whose shape depends
// only on the plane size. No floating-point atomics.
//
// Why two widenings. Each tap adds f64(p) for an f32 product p. The f32->f64 conversion
// instruction runs at a quarter of the f64 add rate on sm_90 and would bound every kernel here.
// widen_scaled() builds p * 2^-896 from p's bits with integer operations instead (exact for every
// finite f32, subnormals and signed zeros included). An accumulator fed only scaled terms holds
// exactly 2^-896 times the CPU's accumulator after every add: all terms and partial sums are
// multiples of 2^-149 (2^-1045 scaled), so a partial sum is either >= 2^-126 (scaled: a normal
// f64, where rounding commutes with the power-of-two scale) or an exact multiple of 2^-149 below
// 2^-126 (exact in both). Multiplying by 2^896 at the end restores the CPU's f64 sum exactly.
// Some products use the conversion instruction and others the integer path, so that both pipes
// work at once. An accumulator may take both kinds: a term of the other kind enters by one DFMA
// with 2^-896 or 2^896, whose product is exact, so it rounds exactly as the plain add would.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "metrics/ssim_core/cuda/ssim_cuda.h"

namespace vqx::ssim::cuda {
namespace {

constexpr double kScaleUp = 0x1p896;

// Both the window and the sweep decimation kernels run 256 threads.
constexpr int kWarps = 8;

__device__ __forceinline__ double widen(float p) { return double(p); }  // exact

// p * 2^-896, exactly, for any finite p: the f32 sign, exponent and fraction fields moved to the
// f64 positions without rebiasing (the missing bias 1023 - 127 = 896 is the scale).
__device__ __forceinline__ double widen_scaled(float p) {
  const unsigned u = __float_as_uint(p);
  const int hi = (int(u) >> 3) & int(0x8fffffffu);  // sign stays at bit 31; bits 30..28 cleared
  return __hiloint2double(hi, int(u << 29));
}

// The same for p with its sign bit clear (+0 and positive values): one operation less.
__device__ __forceinline__ double widen_scaled_nonneg(float p) {
  const unsigned u = __float_as_uint(p);
  return __hiloint2double(int(u >> 3), int(u << 29));
}

__device__ __forceinline__ float unscale_to_f32(double scaled_sum) {
  return __double2float_rn(__dmul_rn(scaled_sum, kScaleUp));
}

// Widening modes of an accumulator: kCvt = the conversion instruction (unscaled); the others scale
// by 2^-896 (file comment): kShift only for terms with the sign bit clear, kSigned for any finite
// term.
enum WidenMode : int { kCvt = 0, kShift = 1, kSigned = 2 };

template <int M>
__device__ __forceinline__ double widen_as(float p) {
  if constexpr (M == kCvt)
    return widen(p);
  else if constexpr (M == kShift)
    return widen_scaled_nonneg(p);
  else
    return widen_scaled(p);
}

template <int M>
__device__ __forceinline__ float finish_as(double acc) {
  if constexpr (M == kCvt)
    return __double2float_rn(acc);
  else
    return unscale_to_f32(acc);
}

// Half-sample symmetric extension, single reflection (spec 3.3), as ssim::reflect.
__device__ __forceinline__ int reflect_index(int i, int n) {
  return i < 0 ? -1 - i : (i >= n ? 2 * n - 1 - i : i);
}

// 1 / 2^(bpc - 8): multiplying by it equals convert_luma's division by 2^(bpc - 8) (both exact).
__device__ __forceinline__ float inverse_divisor(uint32_t bit_depth) {
  return __int_as_float((127 - int(bit_depth - 8)) << 23);
}

// Sample i of a plane as f32 on the 8-bit scale (spec section 1).
__device__ __forceinline__ float load_sample(const DevicePlane& p, size_t i, float inverse) {
  switch (p.type) {
    case SampleType::kU8:
      return __fmul_rn(__uint2float_rn(static_cast<const uint8_t*>(p.data)[i]), inverse);
    case SampleType::kU16:
      return __fmul_rn(__uint2float_rn(static_cast<const uint16_t*>(p.data)[i]), inverse);
    default:
      return static_cast<const float*>(p.data)[i];
  }
}

// A loaded sample of type T as load_sample converts it (f32 planes as they are).
template <typename T>
__device__ __forceinline__ float to_sample(T v, float inverse) {
  if constexpr (std::is_floating_point_v<T>)
    return v;
  else
    return __fmul_rn(__uint2float_rn(v), inverse);
}

// ---- The decimation table's signs
// ---------------------------------------------------------------- Sign-free samples (raw luma,
// most decimated tiles): the sign of a product a * g is the sign of g, fixed per tap, and a * g =
// -(a * |g|) exactly (f32 rounding is symmetric), so the kernels form a * |g| (sign bit clear: the
// cheap widening) and subtract it where g < 0. -0 products: the CPU adds -0, the device subtracts
// +0; both leave the (never -0) accumulator unchanged.
__host__ __device__ constexpr bool lpf_negative(int i) {
  return i == 1 || i == 2 || i == 6 || i == 7;
}
// Whether kLpf[v][u] is negative.
__host__ __device__ constexpr bool lpf_entry_negative(int v, int u) {
  return lpf_negative(v) != lpf_negative(u);
}

constexpr bool lpf_sign_pattern_holds() {
  for (int v = 0; v < kLpfTaps; ++v)
    for (int u = 0; u < kLpfTaps; ++u)
      if ((kLpf[v][u] < 0.0f) != lpf_entry_negative(v, u) || kLpf[v][u] == 0.0f) return false;
  return true;
}
static_assert(lpf_sign_pattern_holds(),
              "kLpf's sign pattern is the one the sign-free paths assume");

// ---- Double-double sums
// --------------------------------------------------------------------------

struct DoubleDouble {
  double hi, lo;
};

__device__ __forceinline__ DoubleDouble dd_sum(DoubleDouble a, DoubleDouble b) {
  const double s = __dadd_rn(a.hi, b.hi);
  const double bp = __dsub_rn(s, a.hi);
  double e = __dadd_rn(__dsub_rn(a.hi, __dsub_rn(s, bp)), __dsub_rn(b.hi, bp));
  e = __dadd_rn(e, __dadd_rn(a.lo, b.lo));
  const double hi = __dadd_rn(s, e);
  return {hi, __dsub_rn(e, __dsub_rn(hi, s))};
}

}  // namespace
}  // namespace vqx::ssim::cuda
