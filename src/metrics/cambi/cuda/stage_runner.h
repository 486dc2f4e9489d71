#pragma once
// Test-only: runs cambi's device stages (device_stages.h) on host planes and reads their outputs
// back, for the twin tests against the CPU stages (tests/gpu/cambi_cuda_premask_test.cpp,
// tests/gpu/cambi_cuda_cvalues_test.cpp). Unlike the metric, it allocates per call and waits for
// the device; the metric does not use it.
#include <cstdint>
#include <vector>

#include "engine/cuda/device_context.h"
#include "metrics/cambi/cambi_stages.h"

namespace vqx::cambi_cuda {

class StageRunner {
 public:
  explicit StageRunner(int device = 0);

  struct PreMask {
    std::vector<uint16_t> image;
    std::vector<uint8_t> mask;
  };
  // The preprocessing and the spatial mask as a frame runs them: `luma` is in_w x in_h samples of
  // 1 byte (bpc <= 8) or 2, converted to w x h (through the resize index tables when the sizes
  // differ), anti-dithered when `dither`.
  PreMask preprocess_mask(const void* luma, unsigned in_w, unsigned in_h, int bpc, unsigned w,
                          unsigned h, bool dither, int mask_index);

  struct CValuePlane {
    const uint16_t* image;  // 10-bit codes
    const uint8_t* mask;    // 0 or 1
    unsigned w, h;
  };
  enum class Route {
    kFrame,           // classification, compact tiles, dense tiles beside them: as a frame runs
    kEveryTileDense,  // every tile through the dense kernel
  };
  struct CValues {
    std::vector<std::vector<float>> planes;
    unsigned dense_tiles = 0;  // tiles the dense kernel did
  };
  // The c-value stage on one to five planes (as the scales of a frame) in one launch, with tiles
  // of `tile_rows` rows and dense tiles in `dense_pieces` row pieces: cambi::c_values of each.
  CValues c_values(const std::vector<CValuePlane>& planes, unsigned window,
                   const cambi::LevelParams& params, unsigned tile_rows, int dense_pieces,
                   Route route);

 private:
  cuda::DeviceContext device_;
  cuda::Stream stream_, side_{cuda::Stream::Priority::kHighest};
  cuda::Event fork_{false}, join_{false};
};

}  // namespace vqx::cambi_cuda
