#pragma once
// What the host CPU can run, detected once, for the kernel dispatch tables.
//
// Every metric with optimised CPU kernels follows one pattern (dav1d's): a struct of function
// pointers per kernel family, filled by one function from a CpuFeatures value. The plain C++
// entries go in first; entries the CPU can run faster then override them:
//
//   struct VifKernels { void (*filter_row)(...); ... };
//   VifKernels make_vif_kernels(const CpuFeatures& cpu);  // CpuFeatures{} gives the plain table
//   const VifKernels& vif_kernels();                       // this host's table, built once
//
// Metrics read their table once at init; nothing in the process can switch it afterwards. Twin
// tests call the entries of make_..._kernels(CpuFeatures{}) and of make_..._kernels(
// host_cpu_features()) side by side, on the same inputs, and compare bit for bit.
#include <string>

namespace vqx {

struct CpuFeatures {
  bool avx2 = false;    // AVX2 (and the BMI1/2 that comes with it on every AVX2 CPU)
  bool fma = false;     // FMA3; parity kernels never contract, some integer kernels may use it
  bool avx512 = false;  // AVX-512 F, BW, DQ and VL together

  std::string describe() const;  // e.g. "avx2 fma avx512"
};

// Detected once per process (cpuid, and the OS's saving of the vector state).
const CpuFeatures& host_cpu_features();

}  // namespace vqx
