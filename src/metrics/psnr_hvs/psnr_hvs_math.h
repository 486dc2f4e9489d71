#pragma once
// The plane-level arithmetic of libvmaf's `psnr_hvs`, shared by the CPU path and its CUDA twin:
// the per-plane weights, the block grid, the order of the plane sum and the dB conversion.
#include <cstdint>
#include <string>
#include <vector>

#include "core/picture.h"
#include "metrics/psnr_hvs/psnr_hvs_block.h"

namespace vqx {
class ThreadPool;
}

namespace vqx::psnr_hvs {

inline const std::vector<std::string> kFeatureNames = {"psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr",
                                                       "psnr_hvs"};

// Throws InputError for input upstream refuses (4:0:0, more than 12 bits) and for planes below
// 8x8, where upstream has no block and reports NaN.
void require_supported(const PictureFormat& format);

// Luma uses the Y table, both chroma planes the 4:2:0 Cb and Cr tables whatever the layout.
const BlockWeights& plane_weights(unsigned plane);

// Blocks per row and per column of a plane: starts 0, 7, 14, ... while start + 7 < size.
struct BlockGrid {
  uint32_t columns, rows;
  uint64_t count() const { return uint64_t{columns} * rows; }
};
BlockGrid block_grid(uint32_t width, uint32_t height);

// The plane's score from its terms, blocks in raster order and each block's 64 terms in order:
// their f32 running sum, then finish_plane_sum.
double plane_score(const float* terms, uint64_t blocks, unsigned bit_depth);

// The four outputs from the three plane scores: 10 * -log10 of each, and of
// 0.8 * Y + 0.1 * (Cb + Cr).
void outputs_from_scores(const double scores[3], double out[4]);

// Every block's 64 terms of one plane, blocks in raster order (in parallel when `pool` is given).
std::vector<float> plane_terms(const Picture& ref, const Picture& dis, unsigned plane,
                               ThreadPool* pool);

// The CPU path of one plane: plane_terms, then plane_score.
double score_plane(const Picture& ref, const Picture& dis, unsigned plane, ThreadPool* pool);

}  // namespace vqx::psnr_hvs
