#pragma once
// Runtime choice between the baseline x86-64 build of a kernel and its AVX2 build. Both are
// compiled from the same plain C++ source (the compiler vectorises it for each target); integer
// arithmetic is exact and contraction is off, so the two builds give identical results, which
// the *_simd_twin tests check on random planes.
namespace vqx::vmaf_common {

// True when the CPU has AVX2 and use_avx2 was not turned off.
bool use_avx2();
// For tests: force the baseline build (false) or allow AVX2 again (true).
void set_avx2_allowed(bool allowed);

}  // namespace vqx::vmaf_common
