#pragma once
// The inner loops of the CAMBI c-values (shared/spec/cambi.md 6.3) as a dispatch table
// (core/cpu_features.h): the row updates of the sliding histograms and the c-values of a row.
// Every level computes the same
// integers and floats as the plain twin, bit for bit (cambi_kernels_test). The pooling's first
// pass (spec 6.4) is here too.
#include <cstddef>
#include <cstdint>

#include "core/cpu_features.h"

namespace vqx::cambi {

struct ValueSums;  // cambi_stages.h

// The sliding histogram of a strip of columns [x0, x1) (cambi_c_values.cpp): the count of level l
// in the window centred on column j is cells[l * stride + j - x0]. Rows are padded to a multiple
// of 32 counts from a 64-byte aligned start, so that updates move whole aligned vectors; the
// padding past x1 - x0 is scratch that updates may change and nothing reads. Row `band` stays
// zero: the count of any level outside the band.
struct StripHistogram {
  uint16_t* cells;
  int stride, band;
  int x0, x1, pad;
};

// The per-level data of the c-value (spec 6.3 step 3): bit d of contrasts[l] is set when contrast
// d takes part at level l; weights are its diff_weights and lut the reciprocal table.
struct LevelTable {
  const uint32_t* contrasts;
  const int* weights;
  const float* lut;
};

struct CambiKernels {
  // For every column c of [s0, s1) where out[c] != in[c]: the count of level out[c] goes down by
  // one and that of in[c] up by one at every column of [c - pad, c + pad] inside [x0, x1), modulo
  // 2^16 (counts are exact integers, so a wrapped partial sum cannot matter); kNotCounted is
  // neither removed nor added. The window moving down one row, or with a row of kNotCounted on
  // one side, a row entering or leaving it.
  void (*replace_row)(const StripHistogram& hist, const uint16_t* out, const uint16_t* in, int s0,
                      int s1);
  // out[j] for j in [x0, x1) (full image rows): 0 where levels[j] is kNotCounted, else the max
  // over the contrasts d of levels[j] of f32(weight * p0 * pm) * lut[p0 + pm], 0 if none, with p0
  // the count of the pixel's level l and pm the larger count of l + d + 1 and l - d - 1 (0 for
  // levels outside the band) at column j (spec 6.3 step 3). Adds the values to `sums`.
  void (*evaluate_row)(const StripHistogram& hist, const uint16_t* levels, const LevelTable& table,
                       float* out, ValueSums* sums);
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
void replace_row(const StripHistogram& hist, const uint16_t* out, const uint16_t* in, int s0,
                 int s1);
void evaluate_row(const StripHistogram& hist, const uint16_t* levels, const LevelTable& table,
                  float* out, ValueSums* sums);
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
