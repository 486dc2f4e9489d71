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

  // The per-pixel image stages' row loops:
  // levels[i] = image[i] - base for a masked-in code in [base, base + band), else kNotCounted.
  void (*counted_levels)(const uint16_t* image, const uint8_t* mask, size_t n, int base, int band,
                         uint16_t* levels);
  // out[i] = the majority of a[i], b[i], c[i], the smallest when all differ (spec 6.2).
  void (*mode3)(const uint16_t* a, const uint16_t* b, const uint16_t* c, size_t n, uint16_t* out);
  // flat[i] = 1 when row[i] == row[i + 1] and row[i] == below[i], else 0 (spec 5).
  void (*flat_row)(const uint16_t* row, const uint16_t* below, size_t n, uint8_t* flat);
  // mask[i] = 1 when sums[i] + ... + sums[i + 6] > threshold, else 0: the 7x7 flat count of the
  // spatial mask from its column sums (each at most 7), padded with three zeros on each side.
  void (*flat_count_row)(const uint8_t* sums, size_t n, int threshold, uint8_t* mask);
};

// The plain twin's entries, which the vector levels also call for their tails.
namespace plain {
int first_difference(const uint16_t* a, const uint16_t* b, int c, int end);
int first_agreement(const uint16_t* a, const uint16_t* b, int c, int end);
int run_end(const uint16_t* row, int c, int end);
void add_linear(uint16_t* hist, int lo, int hi, int base, int slope);
void evaluate_run(const uint16_t* p0s, const ContrastRows* rows, int count, const float* lut, int a, int b,
                  float* out);
bool count_and_sum(const float* values, size_t n, size_t* nonzero, uint64_t* sum);
void counted_levels(const uint16_t* image, const uint8_t* mask, size_t n, int base, int band, uint16_t* levels);
void mode3(const uint16_t* a, const uint16_t* b, const uint16_t* c, size_t n, uint16_t* out);
void flat_row(const uint16_t* row, const uint16_t* below, size_t n, uint8_t* flat);
void flat_count_row(const uint8_t* sums, size_t n, int threshold, uint8_t* mask);
}  // namespace plain

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
