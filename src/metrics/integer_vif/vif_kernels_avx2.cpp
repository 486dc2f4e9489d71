// The AVX2 level of the integer VIF row kernels (shared/spec/vmaf.md 2.5, 2.7): the vector
// levels' source (vif_vector_stages.inc, shared with the AVX-512 level): C++ for the
// auto-vectoriser compiled for AVX2, plus intrinsics for the 8-bit vertical pass, the horizontal
// pass (vpmaddwd) and the log branch of step 3. They compute the same integers as the plain
// twins (vif_kernels.cpp), regrouped only where integer sums are exact:
//  - the radius is a template argument, so the tap loops unroll and every tap of a filter is
//    summed in registers (one pass over a row instead of one pass per tap);
//  - 32-bit lanes only. A spec sum S = sum_k f[k] * v[k] with uint32 values v is formed in uint64
//    upstream. With v = 2^16 * hi + lo (hi, lo < 2^16) and sum_k f[k] = 65536 (2.2), both
//    H = sum f*hi and L = sum f*lo are at most 65536 * 65535 < 2^32, S = 2^16 * H + L, and for a
//    shift 0 <= sh <= 16 with rounding c < 2^16:
//        (S + c) >> sh = H * 2^(16 - sh) + ((L + c) >> sh)      (L + c < 2^32)
//    exactly; taken mod 2^32 it is the uint32 the spec stores. The vertical second moments split
//    the products x*y (< 2^32) this way, the horizontal pass the q values;
//  - the vertical outputs are stored as int16 offset by -32768 for vpmaddwd (OffsetRows);
//  - the per-pixel step 3 of 2.5 is split in a vectorised pass for the flat pixels and a pass for
//    the others (the accumulators are integer sums, any order), whose f64 steps are the spec's
//    IEEE operations in the spec's order, lane by lane.
// Every partial sum is bounded by the full sum (all terms are non-negative), so nothing wraps.
// Column indices are size_t: with uint32 indices the vectoriser cannot prove j + k contiguous and
// falls back to emulated gathers. The passes stay out of line (one register allocation each, and
// readable profiles).
//
// Everything between the target pragmas has internal linkage; the headers come first, so the
// inline functions they define stay baseline code (one definition for every translation unit).
#include <immintrin.h>

#include <cstddef>
#include <vector>

#include "core/cpu_features.h"
#include "metrics/integer_vif/vif_kernels.h"
#include "metrics/integer_vif/vif_rows.h"
#include "metrics/vmaf_common/mirror.h"

VQX_BEGIN_TARGET_AVX2

namespace vqx::integer_vif {
namespace {

#include "metrics/integer_vif/vif_vector_stages.inc"

template <int R>
size_t vertical_8bit_blocks(const uint8_t* const (&rr)[2 * R + 1],
                            const uint8_t* const (&dr)[2 * R + 1], uint32_t w, unsigned sv,
                            uint32_t cv, OffsetRows& o) {
  return vertical_8bit_avx2<R>(rr, dr, w, sv, cv, o, 0);
}

// The 16-bit vertical pass and the downsampling keep their scalar columns at this level.
template <int R>
size_t vertical_16bit_blocks(const uint16_t* const (&)[2 * R + 1],
                             const uint16_t* const (&)[2 * R + 1], uint32_t, unsigned, uint32_t,
                             unsigned, uint32_t, OffsetRows&) {
  return 0;
}

template <int R, typename Sample>
size_t downsample_vertical_blocks(const Sample* const (&)[2 * R + 1], uint32_t, unsigned, uint32_t,
                                  int16_t*) {
  return 0;
}

template <int R>
size_t downsample_horizontal_blocks(const int16_t*, uint32_t, uint16_t*) {
  return 0;
}

template <int R>
size_t horizontal_blocks(uint32_t w, FastScratch& s) {
  return horizontal_blocks16<R>(0, w, s);
}

size_t log_blocks(const uint16_t* table, uint32_t w, const FastScratch& s, double gain_limit,
                  int64_t& num_log, int64_t& den_log) {
  return log_blocks4(table, 0, w, s, gain_limit, num_log, den_log);
}

#include "metrics/integer_vif/vif_downsample_stages.inc"

}  // namespace
}  // namespace vqx::integer_vif

VQX_END_TARGET

namespace vqx::integer_vif {

// Baseline code: filling the table must not itself need AVX2.
void install_avx2_kernels(VifKernels& k) {
  k.u8 = {statistic_rows<uint8_t>, downsample_rows<uint8_t>};
  k.u16 = {statistic_rows<uint16_t>, downsample_rows<uint16_t>};
}

}  // namespace vqx::integer_vif
