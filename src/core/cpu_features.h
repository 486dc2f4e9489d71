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
//
// Each level above the plain one lives in a translation unit of its own (vif_kernels_avx2.cpp):
// the headers first, then VQX_BEGIN_TARGET_AVX2 ... VQX_END_TARGET (below) around an anonymous
// namespace holding the kernels, then the function that installs them (install_avx2_kernels). The
// internal linkage keeps target-specific code apart from the baseline copies of inline functions;
// a source shared by several levels is an .inc included inside each unit's namespace. The
// builder applies the levels in order, each overriding the entries it has:
//   VifKernels k = plain_vif_kernels();
//   if (cpu.avx2) install_avx2_kernels(k);
//   if (cpu.avx512) install_avx512_kernels(k);   // a later level, where a metric has one
#include <string>

// The target region of a unit: GCC's target pragma, or for clang (the fuzzing and sanitizer
// builds) the same target attribute given to every function declared inside. AVX-512 means F, BW,
// DQ and VL, the set CpuFeatures::avx512 stands for.
#define VQX_PRAGMA(text) _Pragma(#text)
#if defined(__clang__)
#define VQX_BEGIN_TARGET_AVX2 \
  _Pragma("clang attribute push(__attribute__((target(\"avx2\"))), apply_to = function)")
#define VQX_BEGIN_TARGET_AVX512                                                                \
  VQX_PRAGMA(clang attribute push(__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"))), \
                                  apply_to = function))
#define VQX_BEGIN_TARGET_AVX512_VNNI                                            \
  VQX_PRAGMA(clang attribute push(                                              \
      __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni"))), \
      apply_to = function))
#define VQX_END_TARGET _Pragma("clang attribute pop")
#else
#define VQX_BEGIN_TARGET_AVX2 _Pragma("GCC push_options") _Pragma("GCC target(\"avx2\")")
#define VQX_BEGIN_TARGET_AVX512 \
  _Pragma("GCC push_options") _Pragma("GCC target(\"avx512f,avx512bw,avx512dq,avx512vl\")")
#define VQX_BEGIN_TARGET_AVX512_VNNI \
  _Pragma("GCC push_options")        \
      _Pragma("GCC target(\"avx512f,avx512bw,avx512dq,avx512vl,avx512vnni\")")
#define VQX_END_TARGET _Pragma("GCC pop_options")
#endif

namespace vqx {

struct CpuFeatures {
  bool avx2 = false;    // AVX2 (and the BMI1/2 that comes with it on every AVX2 CPU)
  bool fma = false;     // FMA3; parity kernels never contract, some integer kernels may use it
  bool avx512 = false;  // AVX-512 F, BW, DQ and VL together
  // AVX-512 VNNI on top of those: vpdpwssd, the int16 multiply-add that also accumulates (one
  // instruction where AVX-512 BW takes vpmaddwd and vpaddd, with the same wrapping int32 sum)
  bool avx512_vnni = false;

  std::string describe() const;  // e.g. "avx2 fma avx512"
};

// Detected once per process (cpuid, and the OS's saving of the vector state).
const CpuFeatures& host_cpu_features();

}  // namespace vqx
