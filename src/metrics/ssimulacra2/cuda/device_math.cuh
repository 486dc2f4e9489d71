#pragma once
// Device helpers shared by the SSIMULACRA 2 kernels: the CPU's single rounded operations, the
// three-pole recurrence of section 6.2 and the double-double additions of the sums' tree (15.2).
//
// Bit-identity: every f32/f64 operation of the kernels is the single rounded operation of the CPU
// code (ssimulacra2_core.{h,cpp}, ssimulacra2_blur.cpp; spec section 11), written with explicit
// _rn intrinsics, and the build adds --fmad=false. Division and square root are IEEE. The tables
// (EOTF LUT, blur coefficients, YUV matrix, cube root of the bias) come from the CPU code.
#include "metrics/ssimulacra2/cuda/device_stages.h"

namespace vqx::ssimulacra2::cuda {

__device__ __forceinline__ float fmul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ float fadd(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ float fsub(float a, float b) { return __fsub_rn(a, b); }

// Section 6.1's coefficients as a kernel argument.
struct BlurCoef {
  float n2[3], d1[3];
};
inline BlurCoef blur_coef() {
  const BlurCoefficients& c = blur_coefficients();
  return BlurCoef{{c.n2[0], c.n2[1], c.n2[2]}, {c.d1[0], c.d1[1], c.d1[2]}};
}

// Section 6.2: one step of the three-pole recurrence; returns (o1 + o3) + o5.
struct Recurrence {
  float prev1[3] = {0.0f, 0.0f, 0.0f}, prev2[3] = {0.0f, 0.0f, 0.0f};
  __device__ __forceinline__ float step(const BlurCoef& c, float sum) {
    float o[3];
#pragma unroll
    for (int k = 0; k < 3; ++k) {
      o[k] = fsub(fsub(fmul(c.n2[k], sum), fmul(c.d1[k], prev1[k])), prev2[k]);
      prev2[k] = prev1[k];
      prev1[k] = o[k];
    }
    return fadd(fadd(o[0], o[1]), o[2]);
  }
};

// Knuth's TwoSum: s + err == a + b exactly.
__device__ __forceinline__ void two_sum(double a, double b, double& s, double& err) {
  s = __dadd_rn(a, b);
  const double bb = __dsub_rn(s, a);
  err = __dadd_rn(__dsub_rn(a, __dsub_rn(s, bb)), __dsub_rn(b, bb));
}

__device__ __forceinline__ Dd dd_normalise(double s, double e) {
  const double hi = __dadd_rn(s, e);
  return Dd{hi, __dsub_rn(e, __dsub_rn(hi, s))};
}

__device__ __forceinline__ Dd dd_add(Dd x, double v) {
  double s, e;
  two_sum(x.hi, v, s, e);
  return dd_normalise(s, __dadd_rn(e, x.lo));
}

__device__ __forceinline__ Dd dd_add(Dd x, Dd y) {
  double s, e;
  two_sum(x.hi, y.hi, s, e);
  return dd_normalise(s, __dadd_rn(e, __dadd_rn(x.lo, y.lo)));
}

}  // namespace vqx::ssimulacra2::cuda
