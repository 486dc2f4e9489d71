#pragma once
// The row kernel of integer motion (shared/spec/vmaf.md 4.2) as a dispatch table
// (core/cpu_features.h). Every level computes the same integers as the plain twin, bit for bit
// (integer_motion_kernels_test).
#include <cstdint>

#include "core/cpu_features.h"

namespace vqx::integer_motion {

// Sum over rows [row_begin, row_end) of the per-row uint32 totals of 4.2 for the luma planes
// `prev` (frame n-1, or n-2 with the five-frame window) and `cur`, w x h, depth `bpc`. Exact
// uint64, so bands can be summed in any order.
template <typename Sample>
using MotionSadRows = uint64_t(const Sample* prev, const Sample* cur, uint32_t w, uint32_t h,
                               unsigned bpc, uint32_t row_begin, uint32_t row_end);

struct MotionKernels {
  MotionSadRows<uint8_t>* sad_rows_8 = nullptr;
  MotionSadRows<uint16_t>* sad_rows_16 = nullptr;

  template <typename Sample>
  MotionSadRows<Sample>* sad_rows() const {
    if constexpr (sizeof(Sample) == 1) return sad_rows_8;
    else return sad_rows_16;
  }
};

// The plain twin, then the entries of every level `cpu` has.
MotionKernels make_motion_kernels(const CpuFeatures& cpu);
// This host's table, built once.
const MotionKernels& motion_kernels();

// The levels make_motion_kernels combines, each in its own translation unit: the plain twin
// (motion_kernels.cpp), then the AVX2 entries (motion_kernels_avx2.cpp) and the AVX-512 ones
// (motion_kernels_avx512.cpp), each overriding those before.
MotionKernels plain_motion_kernels();
void install_avx2_kernels(MotionKernels& kernels);
void install_avx512_kernels(MotionKernels& kernels);

}  // namespace vqx::integer_motion
