#pragma once
// The CPU's filter tables in constant memory, initialised at compile time from the same constexpr
// arrays as the CPU's (ssim_stages.h): no copy at run time. Each file that includes this has its
// own copy. The properties the kernels rely on are checked here, at compile time.
#include <bit>
#include <cstdint>

#include "metrics/ssim_core/ssim_stages.h"

namespace vqx::ssim::cuda {
namespace {

struct DeviceTables {
  float gaussian[kWindowTaps];
  float lpf[kLpfTaps][kLpfTaps];
  float lpf_abs[kLpfTaps][kLpfTaps];  // |kLpf|: the same entries, sign bit cleared
};

constexpr DeviceTables make_device_tables() {
  DeviceTables t{};
  for (int k = 0; k < kWindowTaps; ++k) t.gaussian[k] = kGaussian[k];
  for (int v = 0; v < kLpfTaps; ++v)
    for (int u = 0; u < kLpfTaps; ++u) {
      t.lpf[v][u] = kLpf[v][u];
      t.lpf_abs[v][u] = kLpf[v][u] < 0.0f ? -kLpf[v][u] : kLpf[v][u];
    }
  return t;
}

__constant__ DeviceTables c_tables = make_device_tables();

// The window runs share the products of taps k and 10 - k.
constexpr bool gaussian_symmetric() {
  for (int k = 0; k < kWindowTaps; ++k)
    if (std::bit_cast<uint32_t>(kGaussian[k]) !=
        std::bit_cast<uint32_t>(kGaussian[kWindowTaps - 1 - k]))
      return false;
  return true;
}
static_assert(gaussian_symmetric(), "kGaussian is symmetric bit for bit");

// The sweep and the row-run decimations share the products of columns u and 8 - u; the row runs
// share the row sums of table rows v and 8 - v.
constexpr bool lpf_symmetric() {
  for (int v = 0; v < kLpfTaps; ++v)
    for (int u = 0; u < kLpfTaps; ++u)
      if (std::bit_cast<uint32_t>(kLpf[v][u]) !=
              std::bit_cast<uint32_t>(kLpf[v][kLpfTaps - 1 - u]) ||
          std::bit_cast<uint32_t>(kLpf[v][u]) != std::bit_cast<uint32_t>(kLpf[kLpfTaps - 1 - v][u]))
        return false;
  return true;
}
static_assert(lpf_symmetric(), "kLpf is symmetric in its rows and columns bit for bit");

// Level 1's exact sums (decimate_sweep.cu, decimate_row_runs.cu) need min|kLpf| >= 2^-12 and
// sum|kLpf| < 2.
constexpr bool lpf_within_exact_bound() {
  float smallest = 1.0f;
  double total = 0.0;
  for (int v = 0; v < kLpfTaps; ++v)
    for (int u = 0; u < kLpfTaps; ++u) {
      const float m = kLpf[v][u] < 0.0f ? -kLpf[v][u] : kLpf[v][u];
      smallest = m < smallest ? m : smallest;
      total += double(m);
    }
  return smallest >= 0x1p-12f && total < 2.0;
}
static_assert(lpf_within_exact_bound(), "kLpf's magnitudes keep level 1's partial sums exact");

}  // namespace
}  // namespace vqx::ssim::cuda
