#pragma once
// How scores are printed (shared/spec/cli-and-output.md 3.2): libvmaf's adaptive %.6f / %.16f by
// default, or a fixed %.<N>g chosen with --precision.
#include <string>

namespace vqx {

struct NumberFormat {
  // 0 = libvmaf's adaptive rule; 1..17 = %.<N>g; -1 = the fork's "legacy" fixed %.6f.
  int significant_digits = 0;

  static NumberFormat Adaptive() { return {0}; }
  static NumberFormat Legacy() { return {-1}; }
  static NumberFormat Digits(int n) { return {n}; }

  std::string format(double value) const;
};

// Parses --precision: "N" (1..17), "max"/"full" (17) or "legacy"; throws UsageError.
NumberFormat parse_precision(const std::string& text);

}  // namespace vqx
