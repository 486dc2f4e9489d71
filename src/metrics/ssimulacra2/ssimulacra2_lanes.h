#pragma once
// Eight-lane f32 / u32 vectors (GCC vector extensions) for the fast kernels. Every operator acts
// element-wise with the IEEE semantics of the scalar operator, so a lane computes exactly what the
// plain scalar code computes; SSE2 builds lower each operator to two 4-wide instructions.
#include <cstdint>
#include <cstring>

// The 32-byte types only cross functions internal to the kernels; their ABI does not matter.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace vqx::ssimulacra2::lanes {

using F32x8 = float __attribute__((vector_size(32)));
using U32x8 = uint32_t __attribute__((vector_size(32)));
using I32x8 = int32_t __attribute__((vector_size(32)));
inline constexpr uint32_t kLanes = 8;

inline F32x8 splat(float v) { return F32x8{v, v, v, v, v, v, v, v}; }
inline F32x8 load(const float* p) {
  F32x8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store(float* p, F32x8 v) { std::memcpy(p, &v, sizeof v); }
// Lane-wise a > 0 ? a : 0 (comparisons yield all-ones masks).
inline F32x8 select(I32x8 mask, F32x8 a, F32x8 b) {
  return reinterpret_cast<F32x8>((reinterpret_cast<I32x8>(a) & mask) |
                                 (reinterpret_cast<I32x8>(b) & ~mask));
}

}  // namespace vqx::ssimulacra2::lanes
