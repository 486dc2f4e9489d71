#pragma once
// The optimised CPU kernels of SSIMULACRA 2, one dispatch table (core/cpu_features.h). Each entry
// gives the bits of its plain twin in ssimulacra2_core.h for any input (ssimulacra2_kernels_test):
// the kernels run eight lines or pixels at once in the lanes of a vector, every lane performing the
// twin's operations in the twin's order.
//
// The entries come from one portable source (ssimulacra2_kernels.inc) compiled once per
// instruction set: the plain table is the build's baseline (SSE2 on x86-64, which splits each
// eight-lane operation in two; the same C++ on any other CPU), and the AVX2 level
// (ssimulacra2_kernels_avx2.cpp) replaces every entry where the CPU has AVX2. There is no AVX-512
// level: the lanes are 256 bits wide, which AVX2 already covers.
#include <cstddef>
#include <cstdint>

#include "core/cpu_features.h"
#include "metrics/ssimulacra2/ssimulacra2_core.h"

namespace vqx::ssimulacra2 {

struct Ssimulacra2Kernels {
  // Section 3: pixels [begin, end) of the planes (same index in input and output), as
  // linear_rgb_to_xyb(r, g, b) per pixel.
  void (*xyb_planes)(const ConstRgbPlanes& in, const RgbPlanes& out, size_t begin, size_t end);

  // Sections 5-6, horizontal pass: rows [y0, y1) of the product a * b (of a when b is null) of
  // planes w wide, blurred along each row into `out` (which may be a), as blur_line_reference.
  void (*blur_rows)(const float* a, const float* b, float* out, uint32_t w, uint32_t y0,
                    uint32_t y1);
  // Section 6, vertical pass: columns [x0, x1) of a w x h plane, in place.
  void (*blur_columns)(float* plane, uint32_t w, uint32_t h, uint32_t x0, uint32_t x1);
  // The vertical pass run a few rows at a time over a ring of `ring_rows` rows of w samples (row y
  // of the horizontally blurred plane lives in ring row y % ring_rows), for a plane of h rows.
  // Runs the recurrence's steps [t0, t1) (the first call starts at t0 = -4) of every column: step
  // t reads input rows t - 6 and t + 4 (zero outside [0, h)) and writes output row t, for t >= 0,
  // into the ring row of input row t - 6, which step t read for the last time. `state` carries
  // each column's recurrence between calls: column_state_floats(w) floats, zero before step -4.
  void (*blur_columns_steps)(float* ring, uint32_t ring_rows, uint32_t w, uint32_t h, long t0,
                             long t1, float* state);

  // Sections 7-9: S1, S4 of pixels [0, n), added to `sums` in raster order (ssim_term).
  void (*sum_ssim_terms)(const float* mu1, const float* mu2, const float* s11, const float* s22,
                         const float* s12, size_t n, ChannelSums& sums);
  // A1, A4, D1, D4 of pixels [0, n) of a run of the raster, added in order: the first `f32_count`
  // take edge_ratio_f32_difference, the rest edge_ratio.
  void (*sum_edge_terms)(const float* img1, const float* mu1, const float* img2, const float* mu2,
                         size_t n, size_t f32_count, ChannelSums& sums);
};

// The levels, applied in order by make_ssimulacra2_kernels.
Ssimulacra2Kernels plain_ssimulacra2_kernels();
void install_avx2_kernels(Ssimulacra2Kernels& kernels);

// CpuFeatures{} gives the plain table; the levels the CPU can run then replace its entries.
Ssimulacra2Kernels make_ssimulacra2_kernels(const CpuFeatures& cpu);
// This host's table, built once.
const Ssimulacra2Kernels& ssimulacra2_kernels();

// The horizontal pass's line buffer: `floats` floats, 32-byte aligned, per thread, kept between
// calls (baseline code shared by the levels).
float* blur_line_scratch(size_t floats);

}  // namespace vqx::ssimulacra2
