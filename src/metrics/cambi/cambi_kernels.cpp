// The plain twins of the CAMBI c-value kernels (cambi_kernels.h), one element at a time, and the
// table builder: these entries first, then each level's overrides.
#include "metrics/cambi/cambi_kernels.h"
#include "metrics/cambi/cambi_stages.h"

#include <algorithm>
#include <bit>

namespace vqx::cambi {
namespace plain {

int first_difference(const uint16_t* a, const uint16_t* b, int c, int end) {
  while (c < end && a[c] == b[c]) ++c;
  return c;
}

int first_agreement(const uint16_t* a, const uint16_t* b, int c, int end) {
  while (c < end && a[c] != b[c]) ++c;
  return c;
}

int run_end(const uint16_t* row, int c, int end) {
  const uint16_t v = row[c];
  while (++c < end && row[c] == v) {
  }
  return c;
}

void add_linear(uint16_t* hist, int lo, int hi, int base, int slope) {
  for (int j = lo; j < hi; ++j) hist[j] = uint16_t(hist[j] + base + slope * j);
}

void evaluate_run(const uint16_t* p0s, const ContrastRows* rows, int count, const float* lut,
                  int a, int b, float* out) {
  for (int j = a; j < b; ++j) {
    const int p0 = p0s[j];
    float c = 0.0f;
    for (int r = 0; r < count; ++r) {
      const int pm = std::max(rows[r].up[j], rows[r].down[j]);
      c = std::max(c, float(rows[r].weight * p0 * pm) * lut[p0 + pm]);
    }
    out[j] = c;
  }
}

bool count_and_sum(const float* values, size_t n, size_t* nonzero, uint64_t* sum) {
  size_t count = 0;
  uint64_t total = 0;
  bool representable = true;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t bits = std::bit_cast<uint32_t>(values[i]);
    if (bits == 0) continue;
    const uint32_t e = bits >> 23;  // biased exponent; the sign bit would make it >= 256
    representable &= e >= 126 && e <= 140;
    ++count;
    total += uint64_t((bits & 0x7FFFFFu) | 0x800000u) << ((e - 126) & 15);
  }
  *nonzero = count;
  *sum = total;
  return representable;
}

void counted_levels(const uint16_t* image, const uint8_t* mask, size_t n, int base, int band,
                    uint16_t* levels) {
  for (size_t i = 0; i < n; ++i) {
    const unsigned l = unsigned(image[i]) - unsigned(base);  // wraps for code < base
    levels[i] = (mask[i] && l < unsigned(band)) ? uint16_t(l) : kNotCounted;
  }
}

void mode3(const uint16_t* a, const uint16_t* b, const uint16_t* c, size_t n, uint16_t* out) {
  for (size_t i = 0; i < n; ++i) {
    const uint16_t lo = std::min(a[i], std::min(b[i], c[i]));
    const uint16_t r = (b[i] == c[i]) ? b[i] : lo;
    out[i] = (a[i] == b[i] || a[i] == c[i]) ? a[i] : r;
  }
}

void flat_row(const uint16_t* row, const uint16_t* below, size_t n, uint8_t* flat) {
  for (size_t i = 0; i < n; ++i)
    flat[i] = uint8_t((row[i] == row[i + 1]) & (row[i] == below[i]));
}

void flat_count_row(const uint8_t* sums, size_t n, int threshold, uint8_t* mask) {
  for (size_t i = 0; i < n; ++i) {
    int count = 0;
    for (int t = 0; t < 7; ++t) count += sums[i + size_t(t)];
    mask[i] = uint8_t(count > threshold);
  }
}

}  // namespace plain

CambiKernels plain_cambi_kernels() {
  using namespace plain;
  return {first_difference, first_agreement, run_end,        add_linear, evaluate_run,
          count_and_sum,    counted_levels,  mode3,          flat_row,   flat_count_row};
}

CambiKernels make_cambi_kernels(const CpuFeatures& cpu) {
  CambiKernels k = plain_cambi_kernels();
  if (cpu.avx2) install_avx2_kernels(k);
  if (cpu.avx512) install_avx512_kernels(k);
  return k;
}

const CambiKernels& cambi_kernels() {
  static const CambiKernels kernels = make_cambi_kernels(host_cpu_features());
  return kernels;
}

}  // namespace vqx::cambi
