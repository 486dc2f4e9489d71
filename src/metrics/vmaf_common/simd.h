#pragma once
// Runtime choice between the builds of a kernel. The fast kernels are C++ compiled twice, for
// baseline x86-64 and for AVX2 (the compiler vectorises them for each target, and the AVX2 build
// adds a few intrinsics); integer arithmetic is exact and contraction is off. The original
// straightforward kernels are kept as the plain twins (kernel path kPlain): the fast kernels
// regroup exact integer sums (narrower lanes, split halves, register-held taps), and the twin
// tests of vmaf_features_unit_test check both builds against the plain twins, bit for bit, on
// random and extreme planes.
namespace vqx::vmaf_common {

enum class KernelPath { kPlain, kBaseline, kAvx2 };

// The path the stage functions take now: kAvx2 when the CPU has AVX2 and nothing restricted it.
KernelPath kernel_path();
// True when kernel_path() is kAvx2.
bool use_avx2();
// For tests: force the baseline build (false) or allow AVX2 again (true).
void set_avx2_allowed(bool allowed);
// For tests: run the plain twins (true) or the fast kernels again (false).
void set_plain_only(bool plain);

}  // namespace vqx::vmaf_common
