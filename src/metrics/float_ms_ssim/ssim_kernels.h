#pragma once
// Optimised twins of the MS-SSIM / SSIM stages (ssim_stages.h has the plain ones). Every function
// here gives the same bits as its plain twin for any input, any ISA and any thread count:
// - vectorised across output pixels only (each output keeps its own sequential f64 sum, taps in the
//   reference order);
// - parallel across output rows only; the per-scale sums stay one sequential raster-order chain.
// tests/unit/float_ms_ssim_kernels_test.cpp checks each one against the plain twin.
#include <cstdint>

#include "metrics/float_ms_ssim/ssim_stages.h"

namespace vqx {
class ThreadPool;
}

namespace vqx::ssim {

// Instruction sets with a kernel implementation. kGeneric is portable C++ (whatever the compiler
// makes of it); kAvx2 uses AVX2 intrinsics without FMA.
enum class Isa : uint8_t { kGeneric, kAvx2 };
// The best kernel set this CPU can run.
Isa best_isa();
bool isa_supported(Isa isa);
const char* to_string(Isa isa);

// Stage 2: same result as decimate_plain. `pool` may be null (runs in the caller).
void decimate(const float* in, Size size, float* out, ThreadPool* pool, Isa isa);

// Stages 3 and 4 fused: l, c, s of map rows [y0, y1) (map_size(size) wide, row-major, starting at
// map row y0), equal to window_statistics_plain + lcs_terms_plain on those rows.
void lcs_rows(const float* ref, const float* dis, Size size, int y0, int y1, double* l, double* c,
              float* s, Isa isa);

// Stages 3 to 5 for one scale: rows computed in parallel, then summed sequentially in raster order.
// Equal to ssim_scale_plain.
ScaleMeans ssim_scale(const float* ref, const float* dis, Size size, ThreadPool* pool, Isa isa);

}  // namespace vqx::ssim
