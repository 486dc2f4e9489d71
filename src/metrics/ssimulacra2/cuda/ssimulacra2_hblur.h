#pragma once
// The warp-autonomous horizontal pass of ssimulacra2 on CUDA (VQX_SS2_HBLUR=warp / warpN; see
// ssimulacra2_hblur.cu and docs/ssimulacra2.md, session 14). Host-side declarations only: no CUDA
// headers, so that tests compiled by the host compiler can include it.
#include <cstdint>
#include <vector>

struct CUstream_st;

namespace vqx::ssimulacra2::cuda {

// Sets the kernels' shared-memory limit and reads the SM count (once per process); call before
// any launch that may be captured into a graph (Pipeline::init does).
void prepare_blur_rows_warp();

// Warps per block for `warps` = 0 ("auto"): enough that the warps of rows x 3 channels x 5
// planes fill at most one block per SM (every SM the same work, one wave).
int blur_rows_warp_auto_warps(uint32_t rows);

// Enqueues the horizontal pass of the 15 blurs (3 channels x mu1, mu2, s11, s22, s12) of image
// rows [row0, row0 + rows) (row0 a multiple of 32). xyb: 6 planes of w x h (ref X Y B, dis X Y B).
// hblur: 15 planes of ring_rows x w; image row y goes to ring row y % ring_rows (ring_rows = h:
// the plain layout). debug_products (or null): 9 planes of w x h, per channel p11, p22, p12 (only
// with ring_rows = h). vec: w % 4 == 0 and both bases 16-byte aligned (float4 loads and stores).
// warps: warps per block (1..12), 0 = blur_rows_warp_auto_warps(rows). uniform: every plane by
// one code path (the mu planes times a tile of 1.0f, the squares x * x from one tile). async: the
// tiles fetched by cp.async into two shared-memory slots (v5; float4 widths, else as uniform).
void launch_blur_rows_warp(const float* xyb, uint32_t w, uint32_t h, const float n2[3],
                           const float d1[3], float* hblur, float* debug_products, uint32_t row0,
                           uint32_t rows, uint32_t ring_rows, int warps, bool vec,
                           CUstream_st* stream, bool uniform = false, bool async = false);

// Test hook: uploads `xyb` (6 planes of w x h), runs launch_blur_rows_warp with the CPU's blur
// coefficients on rows [row0, row0 + rows) into a ring of ring_rows rows whose every sample
// starts as the bit pattern 0xffffffff, and returns the 15 ring planes (15 x ring_rows x w).
std::vector<float> debug_blur_rows_warp(const std::vector<float>& xyb, uint32_t w, uint32_t h,
                                        uint32_t row0, uint32_t rows, uint32_t ring_rows,
                                        int warps, bool vec, bool uniform = false,
                                        bool async = false);

}  // namespace vqx::ssimulacra2::cuda
