// The plain twins of the CAMBI c-value kernels (cambi_kernels.h), one element at a time, and the
// table builder: these entries first, then each level's overrides.
#include "metrics/cambi/cambi_kernels.h"
#include "metrics/cambi/cambi_stages.h"

#include <algorithm>
#include <bit>

namespace vqx::cambi {
namespace plain {

namespace {

// The count of level l at column j of [x0, x1): += sign * |[a, b] n [j - pad, j + pad]|, the
// columns of the pixels a..b that j's window holds.
void add_run(const StripHistogram& h, uint16_t l, int a, int b, int sign) {
  uint16_t* row = h.cells + size_t(l) * size_t(h.stride) - h.x0;
  const int lo = std::max(a - h.pad, h.x0), hi = std::min(b + h.pad, h.x1 - 1);
  for (int j = lo; j <= hi; ++j)
    row[j] = uint16_t(row[j] + sign * (std::min(b, j + h.pad) - std::max(a, j - h.pad) + 1));
}

// add_run for every maximal run of equal counted levels among the columns where row != other.
void changed_runs(const StripHistogram& h, const uint16_t* row, const uint16_t* other, int s0,
                  int s1, int sign) {
  for (int c = s0; c < s1;) {
    if (row[c] == other[c] || row[c] == kNotCounted) {
      ++c;
      continue;
    }
    int e = c + 1;
    while (e < s1 && row[e] == row[c] && row[e] != other[e]) ++e;
    add_run(h, row[c], c, e - 1, sign);
    c = e;
  }
}

}  // namespace

void replace_row(const StripHistogram& hist, const uint16_t* out, const uint16_t* in, int s0,
                 int s1) {
  changed_runs(hist, out, in, s0, s1, -1);
  changed_runs(hist, in, out, s0, s1, +1);
}

void evaluate_row(const StripHistogram& hist, const uint16_t* levels, const LevelTable& table,
                  float* out, ValueSums* sums) {
  auto count = [&](int l, int j) {
    return l >= 0 && l < hist.band
               ? int(hist.cells[size_t(l) * size_t(hist.stride) + size_t(j - hist.x0)])
               : 0;
  };
  for (int j = hist.x0; j < hist.x1; ++j) {
    const int l = levels[j];
    float c = 0.0f;
    if (l != kNotCounted) {
      const int p0 = count(l, j);
      for (uint32_t diffs = table.contrasts[l]; diffs; diffs &= diffs - 1) {
        const int d = std::countr_zero(diffs);
        const int pm = std::max(count(l + d + 1, j), count(l - d - 1, j));
        c = std::max(c, float(table.weights[d] * p0 * pm) * table.lut[p0 + pm]);
      }
    }
    out[j] = c;
    sums->add(c);
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
  return {replace_row, evaluate_row, count_and_sum, counted_levels,
          mode3,       flat_row,     flat_count_row};
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
