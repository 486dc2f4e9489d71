#pragma once
// The optimised CPU kernels of SpEED-chroma as a dispatch table (core/cpu_features.h). Every
// level gives the plain twin's bits (speed_chroma_stages_test).
#include <vector>

#include "core/cpu_features.h"
#include "metrics/speed_core/speed_covariance.h"

namespace vqx::speed {

struct SpeedKernels {
  // K of 8.3 from the offset deviations, grouped as upstream's AVX2 kernel (covariance_plain).
  void (*covariance)(const std::vector<double>& dev, const Geometry& g, Matrix25& k) = nullptr;
};

// The plain twin, then the entries of every level `cpu` has.
SpeedKernels make_speed_kernels(const CpuFeatures& cpu);
// This host's table, built once.
const SpeedKernels& speed_kernels();

// The AVX2 + FMA entries (speed_covariance_avx2.cpp), which override the plain ones.
void install_avx2_fma_kernels(SpeedKernels& kernels);

}  // namespace vqx::speed
