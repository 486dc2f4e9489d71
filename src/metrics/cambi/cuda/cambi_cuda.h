#pragma once
// The CUDA twin of cambi (shared/spec/cambi.md section 10, seed 001): every stage on the device,
// one readback per frame of the per-scale exact top-K sums and a status word.
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/cuda/cuda_metric.h"
#include "metrics/cambi/cambi_stages.h"

namespace vqx {

std::unique_ptr<CudaMetric> make_cambi_cuda(const OptionValues& options);

// Test hook (tests/gpu/cambi_cuda_cvalues_test.cpp): the tiled device c-value stage alone, the
// kernels a frame uses, on one to five planes (as the five scales of a frame) in one launch, with
// tiles of `tile_rows` rows and `cells` histogram cells per lane (32, 64, 96 or 128; tiles needing
// more go to the dense kernel) or cells = 0 (every tile through the dense kernel). Same inputs and
// output as cambi::c_values (10-bit image, 0/1 mask). `dense_tiles` (optional) gets how many tiles
// the dense kernel did; `warp_runs` selects the warp-uniform run updates instead of the per-lane
// ones (both are kept: VQX_CAMBI_CUDA_RUNS).
struct CambiCvPlane {
  const uint16_t* image;
  const uint8_t* mask;
  unsigned w, h;
};
std::vector<std::vector<float>> cambi_cuda_c_values(const std::vector<CambiCvPlane>& planes,
                                                    unsigned window,
                                                    const cambi::LevelParams& params,
                                                    unsigned tile_rows, int cells,
                                                    unsigned* dense_tiles = nullptr,
                                                    bool warp_runs = false);

// Test hook (tests/gpu/cambi_cuda_premask_test.cpp): the device preprocessing (10-bit conversion
// through the resize index tables, or without tables when `tables` is false and the sizes agree;
// the 2x2 anti-dither when `dither`) and the spatial mask, in mode 0 (preprocess, then the
// two-kernel mask), 1 (preprocess, then the one-kernel mask) or 2 (one kernel for both, as a frame
// runs by default). `luma` is in_w x in_h samples of 1 byte (bpc <= 8) or 2.
struct CambiPreMask {
  std::vector<uint16_t> image;
  std::vector<uint8_t> mask;
};
CambiPreMask cambi_cuda_preprocess_mask(const void* luma, unsigned in_w, unsigned in_h, int bpc,
                                        unsigned w, unsigned h, bool dither, int mask_index,
                                        int mode, bool tables);

}  // namespace vqx
