#pragma once
// Constants and index rules every ADM row kernel shares (shared/spec/vmaf.md 3.3-3.9). The
// kernel translation units include this before any target pragma, so these stay baseline code.
#include <cmath>
#include <cstdint>

namespace vqx::integer_adm {

// Daubechies-2 analysis filters, integer (3.3).
inline constexpr int32_t kLo[4] = {15826, 27411, 7345, -4240};
inline constexpr int32_t kHi[4] = {-4240, -7345, 27411, -15826};

// 3.3 index rule: whole-sample reflection at the start, half-sample reflection at the end.
inline uint32_t dwt_index(int64_t k, uint32_t n) {
  if (k < 0) return uint32_t(-k);
  if (k >= int64_t(n)) return uint32_t(2 * int64_t(n) - 1 - k);
  return uint32_t(k);
}

// Pads `row` (n values at [1, n+1)) for the 3.3 index rule: positions -1, n and n+1.
template <typename T>
inline void dwt_pad(T* row, uint32_t n) {
  row[0] = row[1 + 1];          // -1 -> 1
  row[n + 1] = row[1 + n - 1];  // n -> n-1
  row[n + 2] = row[1 + n - 2];  // n+1 -> n-2
}

// ceil(log2(v)) in f64 as upstream.
inline int ceil_log2(double v) { return int(std::ceil(std::log2(v))); }

// C1 = RN32(cos(pi/180)^2) from f64 (f32 bits 0x3f7fec0a), the 1-degree angle test of 3.5.
inline const double kCos1Sq = double(float(std::cos(M_PI / 180.0) * std::cos(M_PI / 180.0)));

// The constants of one band's masked sum in 3.8 (masked_sum_row). Scale 0: t from the int32
// product x * fixed (Q21 / Q23 weights, wrapping), thresholds << 10 (h, v) or << 12 (d), squares
// >> 29 or >> 30. Scales 1-3: t = (x * fixed + 2^27) >> 28 in int64 (Q32 weights), thresholds
// as they are, squares >> 30. Every term adds (xs * t + zround) >> z.
struct MaskedSum {
  bool scale0 = true;
  uint32_t fixed = 0;
  unsigned thr_shift = 0;
  unsigned square_shift = 30;
  int z = 1;
  int64_t zround = 1;
};

inline MaskedSum masked_sum_params(int scale, int band, uint32_t fixed, int z, int64_t zround) {
  const bool d = band == 2;  // kD
  if (scale == 0) return {true, fixed, d ? 12u : 10u, d ? 30u : 29u, z, zround};
  return {false, fixed, 0u, 30u, z, zround};
}

}  // namespace vqx::integer_adm
