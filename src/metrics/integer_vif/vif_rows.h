#pragma once
// What the plain and the vector VIF row kernels share (shared/spec/vmaf.md 2.4, 2.5 step 3): the
// noise variance, the Q11 log2 through the table of 2.4, and the "log" branch of one pixel. Both
// kernel translation units include this before any target pragma, so these stay baseline code.
#include <cstdint>

#include "metrics/integer_vif/vif_math.h"

namespace vqx::integer_vif {

inline constexpr int32_t kNoiseVariance = 131072;  // 2.0 in units of (8-bit sample)^2 = 65536

// lg32 / lg64 of 2.4 for x >= 2^15: x >> e keeps the top 16 bits, a table index in [32768, 65535].
inline int32_t lg32(const uint16_t* table, uint32_t x) {
  const int e = 16 - __builtin_clz(x);
  return int32_t(table[x >> e]) + 2048 * e;
}
inline int32_t lg64(const uint16_t* table, uint64_t x) {
  const int e = 48 - __builtin_clzll(x);
  return int32_t(table[x >> e]) + 2048 * e;
}

// 2.5 step 3 for one pixel with sigma1 >= NS: the f64 steps in the spec's order.
inline void log_pixel(const uint16_t* table, int32_t sigma1, int32_t sigma2, int32_t sigma12,
                      double gain_limit, int64_t& num_log, int64_t& den_log) {
  const double eps = 65536 * 1.0e-10;
  den_log += lg32(table, uint32_t(kNoiseVariance + sigma1)) - 2048 * 17;
  if (sigma12 > 0 && sigma2 > 0) {
    double g = double(sigma12) / (double(sigma1) + eps);
    int32_t sv = int32_t(double(sigma2) - g * double(sigma12));
    sv = sv > 0 ? sv : 0;
    g = g < gain_limit ? g : gain_limit;
    const uint32_t n1 = uint32_t(sv + kNoiseVariance);
    const int64_t n2 = int64_t((g * g) * double(sigma1)) + n1;
    num_log += lg64(table, uint64_t(n2)) - lg64(table, n1);
  }
}

// Vertical rounding of 2.5 (table): shift and constant for the means (sv, cv) and for the second
// moments (sq, cq) at `scale`.
struct VerticalRounding {
  unsigned sv = 16, sq = 16;
  uint32_t cv = 32768;
  uint64_t cq = 32768;
};
inline VerticalRounding vertical_rounding(int scale, unsigned bpc) {
  VerticalRounding r;
  if (scale == 0) {
    r.sv = bpc, r.cv = uint32_t{1} << (bpc - 1);
    r.sq = bpc == 8 ? 0 : 2 * (bpc - 8);
    r.cq = bpc == 8 ? 0 : uint64_t{1} << (r.sq - 1);
  }
  return r;
}

}  // namespace vqx::integer_vif
