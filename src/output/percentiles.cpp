#include "output/percentiles.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/error.h"

namespace vqx {

std::vector<double> parse_percentiles(const std::string& text) {
  std::vector<double> out;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = std::min(text.find(',', begin), text.size());
    const std::string item = text.substr(begin, end - begin);
    char* stop = nullptr;
    const double p = item.empty() ? NAN : std::strtod(item.c_str(), &stop);
    if (item.empty() || *stop != '\0' || !(p >= 0 && p <= 100))
      throw UsageError(fmt::format("--percentiles {}: '{}' is not a number from 0 to 100", text, item));
    if (std::find(out.begin(), out.end(), p) != out.end())
      throw UsageError(fmt::format("--percentiles {}: {} is given twice", text, item));
    out.push_back(p);
    begin = end + 1;
  }
  return out;
}

std::string percentile_key(double p) { return fmt::format("p{:g}", p); }

double percentile_of_sorted(const std::vector<double>& sorted, double p) {
  const size_t n = sorted.size();
  const double h = double(n - 1) * (p / 100.0);
  const size_t i = std::min(size_t(std::floor(h)), n - 1);
  const size_t next = std::min(i + 1, n - 1);
  const double g = h - double(i);
  const double a = sorted[i], b = sorted[next];
  const double diff = b - a;
  return g >= 0.5 ? b - diff * (1.0 - g) : a + diff * g;
}

std::vector<double> percentiles_of(std::vector<double> values, const std::vector<double>& percentiles) {
  if (std::any_of(values.begin(), values.end(), [](double v) { return std::isnan(v); }))
    return std::vector<double>(percentiles.size(), NAN);
  std::sort(values.begin(), values.end());
  std::vector<double> out;
  for (double p : percentiles) out.push_back(percentile_of_sorted(values, p));
  return out;
}

}  // namespace vqx
