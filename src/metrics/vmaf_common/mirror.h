#pragma once
// The border rule of integer VIF and motion (shared/spec/vmaf.md 2.3): reflection about the edge
// sample, which is not repeated (..., 2, 1, 0, 1, 2, ...). Valid for an axis longer than the
// filter radius (2.9).
#include <cstdint>

namespace vqx::vmaf_common {

// Index k of an axis of length n, reflected into [0, n).
inline uint32_t mirror(int64_t k, uint32_t n) {
  if (k < 0) return uint32_t(-k);
  if (k >= int64_t(n)) return uint32_t(2 * (int64_t(n) - 1) - k);
  return uint32_t(k);
}

// Pads a row buffer holding `w` values at [r, r + w) with r reflected values on each side.
template <typename T>
inline void mirror_pad(T* row, uint32_t w, int r) {
  for (int k = 1; k <= r; ++k) {
    row[r - k] = row[r + k];
    row[r + w - 1 + k] = row[r + w - 1 - k];
  }
}

}  // namespace vqx::vmaf_common
