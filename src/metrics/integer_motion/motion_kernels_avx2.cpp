// The AVX2 level of the integer motion SAD kernel (shared/spec/vmaf.md 4.2): the vector levels'
// source (motion_vector_stages.inc) compiled for AVX2. Same integers as the plain twin
// (motion_kernels.cpp).
// Everything between the target pragmas has internal linkage; the headers come first, so the
// inline functions they define stay baseline code.
#include <cstddef>
#include <vector>

#include "core/cpu_features.h"
#include "metrics/integer_motion/motion_kernels.h"
#include "metrics/integer_motion/motion_math.h"
#include "metrics/vmaf_common/mirror.h"

VQX_BEGIN_TARGET_AVX2

namespace vqx::integer_motion {
namespace {

#include "metrics/integer_motion/motion_vector_stages.inc"

}  // namespace
}  // namespace vqx::integer_motion

VQX_END_TARGET

namespace vqx::integer_motion {

// Baseline code: filling the table must not itself need AVX2.
void install_avx2_kernels(MotionKernels& k) {
  k.sad_rows_8 = sad_rows<uint8_t>;
  k.sad_rows_16 = sad_rows<uint16_t>;
}

}  // namespace vqx::integer_motion
