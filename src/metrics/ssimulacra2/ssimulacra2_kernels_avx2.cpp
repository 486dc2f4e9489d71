// The AVX2 level of the SSIMULACRA 2 CPU kernels: ssimulacra2_kernels.inc compiled for AVX2
// (no FMA: the target is "avx2" alone, and contraction is off everywhere). Each eight-lane
// operation is one instruction instead of two, with the same IEEE result per lane.
//
// Everything inside the target region has internal linkage; the headers come first, so the
// inline functions they define stay baseline code (one definition for every translation unit).
#include <cstring>

#include "core/cpu_features.h"
#include "metrics/ssimulacra2/ssimulacra2_kernels.h"

#pragma GCC diagnostic ignored "-Wpsabi"

#if defined(__x86_64__) || defined(__i386__)

VQX_BEGIN_TARGET_AVX2

namespace vqx::ssimulacra2 {
namespace {
#include "metrics/ssimulacra2/ssimulacra2_kernels.inc"
}  // namespace
}  // namespace vqx::ssimulacra2

VQX_END_TARGET

namespace vqx::ssimulacra2 {

// Baseline code: filling the table must not itself need AVX2.
void install_avx2_kernels(Ssimulacra2Kernels& k) { k = kKernelTable; }

}  // namespace vqx::ssimulacra2

#else

namespace vqx::ssimulacra2 {

// No AVX2 off x86 (host_cpu_features() never reports it there).
void install_avx2_kernels(Ssimulacra2Kernels&) {}

}  // namespace vqx::ssimulacra2

#endif
