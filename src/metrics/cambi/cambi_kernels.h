#pragma once
// The inner loops of the CAMBI c-values (shared/spec/cambi.md 6.3) as a dispatch table
// (core/cpu_features.h): scans along rows of counted levels, the linear updates of the sliding
// histograms and the per-pixel c-value of a run of equal levels. Every level computes the same
// integers and floats as the plain twin, bit for bit (cambi_kernels_test). The pooling's first
// pass (spec 6.4) is here too.
#include <cstddef>
#include <cstdint>

#include "core/cpu_features.h"

namespace vqx::cambi {

// One contrast taking part at a level: the histogram rows of the levels d + 1 above and below it
// (the all-zero row where that level is outside the band) and the contrast's weight.
struct ContrastRows {
  const uint16_t* up;
  const uint16_t* down;
  int weight;
};

struct CambiKernels {
  // First column in [c, end) where a and b differ, or end.
  int (*first_difference)(const uint16_t* a, const uint16_t* b, int c, int end);
  // First column in [c, end) where a and b agree, or end.
  int (*first_agreement)(const uint16_t* a, const uint16_t* b, int c, int end);
  // First column in (c, end) whose value differs from row[c], or end (needs c < end).
  int (*run_end)(const uint16_t* row, int c, int end);
  // hist[j] += base + slope * j modulo 2^16 for j in [lo, hi): a rising, flat or falling part of
  // a run's trapezoid. Counts are exact integers, so the wrap of a partial sum cannot matter.
  void (*add_linear)(uint16_t* hist, int lo, int hi, int base, int slope);
  // out[j] = max over the `count` contrasts of f32(weight * p0 * pm) * lut[p0 + pm], 0 if none,
  // with p0 = p0s[j] and pm = max(up[j], down[j]), for j in [a, b) (spec 6.3 step 3).
  void (*evaluate_run)(const uint16_t* p0s, const ContrastRows* rows, int count,
                       const float* lut, int a, int b, float* out);
  // The number of non-zero values among n c-values and their exact sum in units of 2^-24; false
  // when some value is not a non-negative multiple of 2^-24 below 2^14 (then the counts are
  // meaningless).
  bool (*count_and_sum)(const float* values, size_t n, size_t* nonzero, uint64_t* sum);
};

// The plain twin, then the entries of every level `cpu` has.
CambiKernels make_cambi_kernels(const CpuFeatures& cpu);
// This host's table, built once.
const CambiKernels& cambi_kernels();

// The levels make_cambi_kernels combines, each in its own translation unit: the plain twin
// (cambi_kernels.cpp), then the AVX2 entries (cambi_kernels_avx2.cpp) and the AVX-512 ones
// (cambi_kernels_avx512.cpp), each overriding those before.
CambiKernels plain_cambi_kernels();
void install_avx2_kernels(CambiKernels& kernels);
void install_avx512_kernels(CambiKernels& kernels);

}  // namespace vqx::cambi
