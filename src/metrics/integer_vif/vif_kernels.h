#pragma once
// The row kernels of integer VIF (shared/spec/vmaf.md 2.5, 2.7) as a dispatch table
// (core/cpu_features.h). Each entry works on tight row-major planes over a band of output rows,
// so bands can be computed in parallel and summed in any order (the sums are exact integers):
//   statistic_rows   2.5 steps 1-3 at one scale -> the integer accumulators
//   downsample_rows  2.7: scale s -> scale s+1 (Q8 samples)
// Every level computes the same integers as the plain twins, bit for bit
// (integer_vif_kernels_test).
#include <cstdint>

#include "core/cpu_features.h"
#include "metrics/integer_vif/vif_math.h"

namespace vqx::integer_vif {

// The entries for one sample type. At scale 0 the samples are the raw luma of depth `bpc`
// (uint8_t for 8-bit, uint16_t above); at scales >= 1 they are the uint16_t Q8 samples of
// downsample_rows (`bpc` is then unused by statistic_rows).
template <typename Sample>
struct VifSampleKernels {
  // Scale `scale` statistic over output rows [row_begin, row_end) of a w x h image pair;
  // `gain_limit` is vif_enhn_gain_limit.
  VifAccumulators (*statistic_rows)(const Sample* ref, const Sample* dis, uint32_t w, uint32_t h,
                                    int scale, unsigned bpc, double gain_limit,
                                    uint32_t row_begin, uint32_t row_end) = nullptr;
  // Filters scale `from_scale` (w x h) with the next scale's filter and writes output rows
  // [row_begin, row_end) of the floor(w/2) x floor(h/2) result to `out` (tight rows).
  void (*downsample_rows)(const Sample* in, uint32_t w, uint32_t h, int from_scale, unsigned bpc,
                          uint16_t* out, uint32_t row_begin, uint32_t row_end) = nullptr;
};

struct VifKernels {
  VifSampleKernels<uint8_t> u8;
  VifSampleKernels<uint16_t> u16;

  template <typename Sample>
  const VifSampleKernels<Sample>& of() const {
    if constexpr (sizeof(Sample) == 1) return u8;
    else return u16;
  }
};

// The plain twins, then the entries of every level `cpu` has.
VifKernels make_vif_kernels(const CpuFeatures& cpu);
// This host's table, built once.
const VifKernels& vif_kernels();

// The levels make_vif_kernels combines, each in its own translation unit: the plain twins
// (vif_kernels.cpp), then the AVX2 entries (vif_kernels_avx2.cpp), the AVX-512 ones
// (vif_kernels_avx512.cpp) and the AVX-512 VNNI ones (vif_kernels_avx512_vnni.cpp), each
// overriding those before.
VifKernels plain_vif_kernels();
void install_avx2_kernels(VifKernels& kernels);
void install_avx512_kernels(VifKernels& kernels);
void install_avx512_vnni_kernels(VifKernels& kernels);

}  // namespace vqx::integer_vif
