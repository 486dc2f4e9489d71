// The plain level of the SSIMULACRA 2 CPU kernels (ssimulacra2_kernels.inc compiled for the
// build's baseline) and the table builder.
#include "metrics/ssimulacra2/ssimulacra2_kernels.h"

#include <cstring>
#include <vector>

// The 32-byte lane types only cross functions internal to one level; their ABI does not matter.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace vqx::ssimulacra2 {
namespace {
#include "metrics/ssimulacra2/ssimulacra2_kernels.inc"
}  // namespace

float* blur_line_scratch(size_t floats) {
  thread_local std::vector<float> storage;
  if (storage.size() < floats + 8) storage.resize(floats + 8);  // + room to align
  const uintptr_t at = reinterpret_cast<uintptr_t>(storage.data());
  return reinterpret_cast<float*>((at + 31) / 32 * 32);
}

Ssimulacra2Kernels plain_ssimulacra2_kernels() { return kKernelTable; }

Ssimulacra2Kernels make_ssimulacra2_kernels(const CpuFeatures& cpu) {
  Ssimulacra2Kernels k = plain_ssimulacra2_kernels();
  if (cpu.avx2) install_avx2_kernels(k);
  return k;
}

const Ssimulacra2Kernels& ssimulacra2_kernels() {
  static const Ssimulacra2Kernels kernels = make_ssimulacra2_kernels(host_cpu_features());
  return kernels;
}

}  // namespace vqx::ssimulacra2
