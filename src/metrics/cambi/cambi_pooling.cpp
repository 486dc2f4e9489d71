// CAMBI top-K spatial pooling (shared/spec/cambi.md 6.4).
//
// Upstream selects the k largest c-values with a Hoare quick-select and sums them in f64 in the
// order the selection leaves them. Every non-zero c-value is >= 0.5 and < 2^14, so it is an
// integer multiple of 2^-24; while the top-K sum is below 2^29 every partial f64 sum is exact, and
// the result is the exact sum whatever the order. top_k_mean therefore finds the exact sum with
// a two-level radix count (no reordering, two linear passes; one pass when at most K values are
// non-zero, as is usual), and replays the literal
// quick-select only when that sum reaches 2^29, where upstream's order can round differently.
#include <algorithm>
#include <bit>
#include <cmath>
#include <utility>
#include <vector>

#include "metrics/cambi/cambi_kernels.h"
#include "metrics/cambi/cambi_stages.h"

namespace vqx::cambi {
namespace {

// v * 2^24 as an integer, for the non-negative f32 bit pattern of a c-value; false when v is not
// a multiple of 2^-24 below 2^14 (impossible for c-values, spec 6.4; then the caller falls back).
inline bool units_of(uint32_t bits, uint64_t& units) {
  if (bits == 0) {
    units = 0;
    return true;
  }
  const uint32_t e = bits >> 23;  // biased exponent; the sign bit would make it >= 256
  if (e < 126 || e > 140) return false;
  units = uint64_t((bits & 0x7FFFFFu) | 0x800000u) << (e - 126);
  return true;
}

}  // namespace

size_t top_k_count(double ratio, size_t n) {
  int k = int(ratio * double(int(n)));  // f64 product truncated toward zero (spec 6.4 step 1)
  return size_t(std::clamp(k, 1, int(n)));
}

double top_k_mean_quickselect(std::span<float> a, size_t k_count) {
  const ptrdiff_t n = ptrdiff_t(a.size()), k = ptrdiff_t(k_count);
  if (n != k) {
    ptrdiff_t lo = 0, hi = n - 1;
    while (lo < hi) {
      const float pivot = a[size_t(k)];
      ptrdiff_t i = lo, j = hi;
      do {
        while (a[size_t(i)] > pivot) ++i;
        while (a[size_t(j)] < pivot) --j;
        if (i <= j) {
          std::swap(a[size_t(i)], a[size_t(j)]);
          ++i;
          --j;
        }
      } while (i <= j);
      if (j < k) lo = i;
      if (k < i) hi = j;
    }
  }
  double sum = 0.0;
  for (ptrdiff_t t = 0; t < k; ++t) sum = sum + double(a[size_t(t)]);
  return sum / double(k);
}

namespace {

// Sum of the values in f64 with four interleaved accumulators: only a bound (relative error
// below n * 2^-53 <= 2^-27 for the sizes CAMBI sees), used to skip the exact count when the
// top-K sum is certainly above 2^29 and the quick-select must run anyway.
double approximate_total(std::span<const float> values) {
  double acc[4] = {0, 0, 0, 0};
  size_t i = 0;
  for (; i + 4 <= values.size(); i += 4)
    for (int l = 0; l < 4; ++l) acc[l] += double(values[i + size_t(l)]);
  for (; i < values.size(); ++i) acc[0] += double(values[i]);
  return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

}  // namespace

double top_k_mean(std::span<float> values, size_t k, const ValueSums* sums) {
  // c-values are mostly zero: when at most k are not, the top K are all of them plus zeros, whose
  // sum is the sum of everything. Below 2^29 (2^53 units) that is upstream's sum exactly; above,
  // upstream's order matters: replay it.
  {
    ValueSums all;
    if (sums) {
      all = *sums;
    } else {
      size_t nonzero = 0;
      all.representable =
          cambi_kernels().count_and_sum(values.data(), values.size(), &nonzero, &all.units);
      all.nonzero = nonzero;
    }
    if (all.representable && all.nonzero <= k) {
      if (all.units >= (uint64_t{1} << 53)) return top_k_mean_quickselect(values, k);
      return std::ldexp(double(all.units), -24) / double(k);
    }
  }
  // The top-K mean is at least the mean of all values: when even that puts the top-K sum above
  // 2^29 (with a margin far above the bound's error), upstream's order matters; replay it.
  const double limit = std::ldexp(1.0, 29);
  const double total = approximate_total(values);
  if (total / double(values.size()) * double(k) >= limit * (1.0 + std::ldexp(1.0, -20)))
    return top_k_mean_quickselect(values, k);
  // Pass 1: counts of the upper 16 bits (non-negative floats order like their bit patterns).
  thread_local std::vector<uint32_t> upper, lower;  // reused: fresh pages cost more than a fill
  upper.assign(65536, 0);
  for (float v : values) ++upper[std::bit_cast<uint32_t>(v) >> 16];
  size_t above = 0;
  uint32_t bin = 65535;
  for (;; --bin) {
    if (above + upper[bin] >= k || bin == 0) break;
    above += upper[bin];
  }
  // Pass 2: exact sum of everything in higher bins, counts of the lower 16 bits inside the bin.
  lower.assign(65536, 0);
  uint64_t sum = 0;
  bool exact = true;
  for (float v : values) {
    const uint32_t bits = std::bit_cast<uint32_t>(v);
    const uint32_t u = bits >> 16;
    if (u > bin) {
      uint64_t units = 0;
      exact &= units_of(bits, units);
      sum += units;
    } else if (u == bin) {
      ++lower[bits & 0xFFFFu];
    }
  }
  size_t need = k - above;
  for (uint32_t lo = 65536; need > 0 && lo-- > 0;) {
    const size_t take = std::min<size_t>(lower[lo], need);
    if (take == 0) continue;
    uint64_t units = 0;
    exact &= units_of((bin << 16) | lo, units);
    sum += uint64_t(take) * units;
    need -= take;
  }
  // Below 2^29 (2^53 units) upstream's sequential f64 sum is exactly this sum.
  if (!exact || sum >= (uint64_t{1} << 53)) return top_k_mean_quickselect(values, k);
  return std::ldexp(double(sum), -24) / double(k);
}

}  // namespace vqx::cambi
