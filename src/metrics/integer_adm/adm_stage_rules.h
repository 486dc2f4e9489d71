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

}  // namespace vqx::integer_adm
