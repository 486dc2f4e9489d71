// The fast path of the correctly rounded f64 division, shared by the CUDA twins that divide in
// f64 per pixel (SSIMULACRA2's terms, float_ms_ssim's l/c terms).
#pragma once

#include <cstdint>

namespace vqx::cuda {

// The sequence __ddiv_rn compiles to on sm_90 when it takes its fast path: the reciprocal seed
// (MUFU.RCP64H of b's high word, low word 1), two Newton steps, the quotient and one residual
// correction, each a single DFMA/DMUL. Written out so that several pixels' divisions can be
// interleaved (__ddiv_rn guards its fast path with a branch to its slow path, which keeps each
// division apart). `fast` is false where this sequence is not known to be the exact quotient
// (either operand or the quotient zero, denormal, near the ends of the exponent range, infinite
// or NaN): a subset of where __ddiv_rn itself leaves its fast path, and the caller then takes
// __ddiv_rn. Both metrics' device tests compare the bits with __ddiv_rn on random and special
// operands (FastDivisionMatchesDdivRn).
__device__ __forceinline__ double div_rn_fast(double a, double b, bool& fast) {
  double r;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(b));
  double y = __hiloint2double(__double2hiint(r), 1);
  double e = __fma_rn(-b, y, 1.0);
  e = __fma_rn(e, e, e);
  y = __fma_rn(y, e, y);
  e = __fma_rn(-b, y, 1.0);
  y = __fma_rn(y, e, y);
  const double q0 = __dmul_rn(a, y);
  const double res = __fma_rn(-b, q0, a);
  const double q = __fma_rn(y, res, q0);
  const uint32_t ah = uint32_t(__double2hiint(a)) & 0x7fffffffu;
  const uint32_t bh = uint32_t(__double2hiint(b)) & 0x7fffffffu;
  const uint32_t qh = uint32_t(__double2hiint(q)) & 0x7fffffffu;
  // Exponent fields: a >= 2^-967 (the library's own test: its high word as a float >= 2^-120),
  // b and q at least 2^-1000, all three below 2^900 (unsigned range tests).
  fast = ah - 0x03800000u < 0x78300000u - 0x03800000u &&
         bh - 0x01700000u < 0x78300000u - 0x01700000u &&
         qh - 0x01700000u < 0x78300000u - 0x01700000u;
  return q;
}

}  // namespace vqx::cuda
