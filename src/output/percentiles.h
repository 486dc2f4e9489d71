#pragma once
// Percentile pooling (--percentiles): numpy's default definition (method "linear", Hyndman and
// Fan's type 7). For n sorted values x[0..n-1] and a percentile p in [0, 100]:
//   h = (n - 1) * (p / 100),  i = floor(h),  g = h - i
//   value = x[i] + (x[i+1] - x[i]) * g        when g < 0.5
//           x[i+1] - (x[i+1] - x[i]) * (1 - g) when g >= 0.5 (numpy's _lerp, exact at g = 1)
// so p0 is the minimum, p100 the maximum and p50 the median (the mean of the middle pair for
// even n).
#include <string>
#include <vector>

namespace vqx {

// The set used when --percentiles is given without values.
inline const std::vector<double> kDefaultPercentiles = {1, 5, 50, 95, 99};

// Parses "1,5,50,95" (numbers in [0, 100], comma-separated, any order, no repeats; kept in the
// order given). Throws UsageError.
std::vector<double> parse_percentiles(const std::string& text);

// The pooled_metrics key of a percentile: "p5", "p50", "p99.9" (shortest %g form).
std::string percentile_key(double p);

// The percentile p of `sorted` (ascending, non-empty), as defined above.
double percentile_of_sorted(const std::vector<double>& sorted, double p);

// Each percentile of `values` (any order, non-empty), in the order of `percentiles`. NaN when a
// value is NaN, as numpy.percentile.
std::vector<double> percentiles_of(std::vector<double> values, const std::vector<double>& percentiles);

}  // namespace vqx
