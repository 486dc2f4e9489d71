// The AVX-512 VNNI level of the integer VIF row kernels (shared/spec/vmaf.md 2.5, 2.7): the vector
// levels' source (vif_vector_stages.inc, the method described at the top of
// vif_kernels_avx2.cpp) and the 512-bit blocks (vif_avx512_stages.inc) compiled for AVX-512
// F/BW/DQ/VL and VNNI, with one vpdpwssd for each multiply-add. They compute the same integers as
// the plain twins (vif_kernels.cpp).
//
// Everything between the target pragmas has internal linkage; the headers come first, so the
// inline functions they define stay baseline code (one definition for every translation unit).
#include <cstddef>
#include <vector>

#include "core/avx512_intrinsics.h"
#include "core/cpu_features.h"
#include "metrics/integer_vif/vif_kernels.h"
#include "metrics/integer_vif/vif_rows.h"
#include "metrics/vmaf_common/mirror.h"

VQX_BEGIN_TARGET_AVX512_VNNI

namespace vqx::integer_vif {
namespace {

#include "metrics/integer_vif/vif_vector_stages.inc"

inline __m512i dot_add(__m512i acc, __m512i a, __m512i b) { return _mm512_dpwssd_epi32(acc, a, b); }

#include "metrics/integer_vif/vif_avx512_stages.inc"
#include "metrics/integer_vif/vif_downsample_stages.inc"

}  // namespace
}  // namespace vqx::integer_vif

VQX_END_TARGET

namespace vqx::integer_vif {

// Baseline code: filling the table must not itself need AVX-512.
void install_avx512_vnni_kernels(VifKernels& k) {
  k.u8 = {statistic_rows<uint8_t>, downsample_rows<uint8_t>};
  k.u16 = {statistic_rows<uint16_t>, downsample_rows<uint16_t>};
}

}  // namespace vqx::integer_vif
