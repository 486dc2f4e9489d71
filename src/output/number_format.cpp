#include "output/number_format.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>

#include "core/error.h"

namespace vqx {
namespace {

// Leading zeros of the fraction, exactly as libvmaf counts them (f64 multiply by 10).
int fraction_leading_zeros(double x) {
  double f = std::fabs(x);
  f = f - double(static_cast<long long>(f));
  int n = 0;
  while (f < 1.0 && f != 0.0) {
    f = f * 10.0;
    ++n;
  }
  return n;
}

std::string printf_double(const char* spec, double value) {
  // snprintf in the C locale: vqx never calls setlocale, so LC_NUMERIC stays "C".
  char buffer[512];
  int n = std::snprintf(buffer, sizeof buffer, spec, value);
  return std::string(buffer, n > 0 ? size_t(n) < sizeof buffer ? size_t(n) : sizeof buffer - 1 : 0);
}

}  // namespace

std::string NumberFormat::format(double value) const {
  if (significant_digits > 0) {
    char spec[8];
    std::snprintf(spec, sizeof spec, "%%.%dg", significant_digits);
    return printf_double(spec, value);
  }
  if (significant_digits < 0 || !std::isfinite(value)) return printf_double("%.6f", value);
  return printf_double(fraction_leading_zeros(value) <= 6 ? "%.6f" : "%.16f", value);
}

NumberFormat parse_precision(const std::string& text) {
  if (text == "max" || text == "full") return NumberFormat::Digits(17);
  if (text == "legacy") return NumberFormat::Legacy();
  int n = 0;
  for (char c : text) {
    if (c < '0' || c > '9' || n > 100) {
      n = -1;
      break;
    }
    n = n * 10 + (c - '0');
  }
  if (text.empty() || n < 1 || n > 17)
    throw UsageError(fmt::format("--precision {}: expected 1..17, max, full or legacy", text));
  return NumberFormat::Digits(n);
}

}  // namespace vqx
