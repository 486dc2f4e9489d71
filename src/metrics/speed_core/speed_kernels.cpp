#include "metrics/speed_core/speed_kernels.h"

namespace vqx::speed {

SpeedKernels make_speed_kernels(const CpuFeatures& cpu) {
  SpeedKernels k;
  k.covariance = covariance_plain;
  // Identical bits: an FMA is one correctly rounded operation whichever unit computes it.
  if (cpu.avx2 && cpu.fma) install_avx2_fma_kernels(k);
  return k;
}

const SpeedKernels& speed_kernels() {
  static const SpeedKernels kernels = make_speed_kernels(host_cpu_features());
  return kernels;
}

}  // namespace vqx::speed
