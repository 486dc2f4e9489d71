#pragma once
// The device stages of cambi (shared/spec/cambi.md section 10), one file each, as the metric
// (cambi_cuda.cpp) and the stage tests (stage_runner.h) enqueue them. Every function only
// enqueues on the stream it is given; pointers are device pointers; planes are tight rows.
//
//   stage                                    file                CPU twin (bit-identical)
//   input check                              preprocess_mask.cu  max_sample
//   10-bit conversion, anti-dither, mask     preprocess_mask.cu  convert_to_10bit, anti_dither,
//                                                                spatial_mask
//   decimation, mode filter, level map       mode_filter.cu      decimate, mode_filter,
//                                                                counted_levels
//   c-values (tiled window histograms)       c_values.cu         c_values
//   exact top-K sum                          top_k.cu            top_k_mean's exact path
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "engine/cuda/cuda_check.h"
#include "engine/cuda/device_context.h"
#include "metrics/cambi/cambi_stages.h"

namespace vqx::cambi_cuda {

using cambi::kNotCounted;
using cambi::kNumScales;
using u64 = unsigned long long;

// Status bits of a frame's result slot.
inline constexpr unsigned kStatusInvalidDis = 1u;  // a distorted luma sample above 2^bpc - 1 (4.1)
inline constexpr unsigned kStatusInvalidRef = 2u;  // the same for the reference (full_ref)
inline constexpr unsigned kStatusBadValue = 4u;    // a c-value that is not 0 or in [0.5, 2^14)
inline constexpr unsigned kStatusSelection = 8u;   // the radix select found no bin for rank k

inline dim3 grid2d(unsigned w, unsigned h, dim3 block) {
  return dim3((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
}

// A device copy of an init-time table. The copy goes on the legacy stream, which the engine
// waits for after every metric's init; the host does not wait here.
inline cuda::DeviceBuffer upload(cuda::DeviceContext& device, const void* data, size_t bytes,
                                 const char* what) {
  cuda::DeviceBuffer buffer(device, std::max<size_t>(bytes, 4), what);
  cuda::check(cudaMemcpyAsync(buffer.get(), data, bytes, cudaMemcpyHostToDevice, 0), what);
  return buffer;
}

// ---- Preprocessing and spatial mask (preprocess_mask.cu; spec 4, 5) --------------------------

// A luma plane as the engine holds it on the device: 1 byte per sample up to 8 bits, else 2.
struct LumaPlane {
  const void* samples = nullptr;
  unsigned width = 0, height = 0;
  int bpc = 8;
};

// Sets `status_bit` in *status when a sample exceeds 2^bpc - 1 (spec 4.1). At 8 and 16 bits no
// sample can, and nothing is enqueued.
void enqueue_validate(const LumaPlane& luma, unsigned* status, unsigned status_bit,
                      cudaStream_t stream);

// The w x h 10-bit image (spec 4.2; through the resize index tables `rows` and `cols`, or null
// tables when the sizes agree), anti-dithered when `dither` (4.3), and its spatial mask (5), in
// one kernel.
void enqueue_preprocess_mask(const LumaPlane& luma, const uint32_t* rows, const uint32_t* cols,
                             unsigned w, unsigned h, bool dither, int mask_index, uint16_t* image,
                             uint8_t* mask, cudaStream_t stream);

// ---- Per scale: decimation, mode filter, level map (mode_filter.cu; spec 6 step 1, 6.2) -------

// The input of a scale is `prev` sampled every `step` pixels (2: the decimation of spec 6 step
// 1), its mask the full-resolution mask sampled every 2^shift pixels (never recomputed).
struct ModeFilterScale {
  const uint16_t* prev = nullptr;
  unsigned prev_w = 0, step = 1;
  const uint8_t* mask = nullptr;
  unsigned mask_w = 0, shift = 0;
  unsigned w = 0, h = 0;
};

// Writes the w x h mode-filtered image (the next scale's input) and the level map of
// counted_levels: code - base, or kNotCounted.
void enqueue_mode_filter(const ModeFilterScale& scale, int base, int band, uint16_t* image,
                         uint16_t* level, cudaStream_t stream);

// ---- c-values (c_values.cu; spec 6.3) -------------------------------------------------------

// One scale of the tiled c-value stage: its level map, its c-value plane and its tile grid.
struct TileScale {
  const uint16_t* level = nullptr;
  float* out = nullptr;
  int w = 0, h = 0, tiles_x = 0, tile_begin = 0;
  int rows = 0;  // tile height
};

struct TileArgs {
  TileScale scale[kNumScales];
  int scales = 0, pad = 0, band = 0, tiles = 0;
  const float* recip = nullptr;         // the CPU's reciprocal table
  const uint32_t* contrasts = nullptr;  // level_contrasts, per band level
  int weights[cambi::kMaxNumDiffs] = {};
  unsigned* dense_count = nullptr;  // the tiles the classification lists for the dense kernel
  uint32_t* dense_list = nullptr;
  int dense_pieces = 1;  // the dense kernel does each listed tile as this many row pieces
};

// Tiles of `rows` x 32 over args.scale[0 .. args.scales) (their w and h set), numbered scale by
// scale: fills each scale's tiles_x, tile_begin and rows, and args.tiles.
void plan_tiles(TileArgs& args, unsigned rows);

// What every tile of a picture shares: the window, the band, the tables (device copies of
// reciprocal_lut and level_contrasts) and the dense tile list, tile_list = [count, tile ids...]
// (args.tiles + 1 words).
void set_tile_tables(TileArgs& args, unsigned window, const cambi::LevelParams& params,
                     const float* recip, const uint32_t* contrasts, uint32_t* tile_list,
                     int dense_pieces);

// Lets the dense kernel have its band x 64 bytes of shared memory; returns how many of its
// blocks `device` holds at once.
unsigned prepare_dense_kernel(int band, const cuda::DeviceContext& device);

// Where the dense kernel runs: `stream`, forked from the caller's stream at `fork` and joined
// back at `join`, with `grid` blocks.
struct DenseSide {
  cudaStream_t stream = nullptr;
  cudaEvent_t fork = nullptr, join = nullptr;
  unsigned grid = 1;
};

// The c-values of every scale: a classification kernel lists the tiles needing more than the
// compact kernel's cells; the compact kernel does the others on `stream` while the dense kernel
// does the listed ones on the side stream.
void enqueue_c_values(const TileArgs& args, const DenseSide& side, cudaStream_t stream);

// The dense kernel alone, on the tiles args.dense_count / dense_list already hold (the stage
// tests list every tile, so the dense kernel sees every kind of content).
void enqueue_dense_c_values(const TileArgs& args, unsigned grid, cudaStream_t stream);

// ---- Exact top-K sum (top_k.cu; spec 10.4) --------------------------------------------------

inline constexpr int kBins0 = 2048, kBins1 = 2048, kBins2 = 1024;  // radix digits 11 + 11 + 10

// Per picture and scale, cleared before every frame.
struct ScaleState {
  unsigned bins0[kBins0];
  unsigned bins1[kBins1];
  unsigned bins2[kBins2];
  u64 total[2];    // exact sum of all c-values, units of 2^-24 (lo, hi)
  u64 greater[2];  // exact sum of the values above the 21-bit prefix (pass 2)
  u64 above;       // how many values lie above the current prefix
  unsigned ticket[3];
  unsigned done;    // the sum is final (written to the result)
  unsigned prefix;  // digits found so far
};

struct PassScale {
  const float* values = nullptr;
  u64 n = 0, k = 0;
  ScaleState* state = nullptr;
};

struct PassArgs {
  PassScale scale[kNumScales];
  u64* sums = nullptr;  // [scale][2]: the exact top-K sum in units of 2^-24 (lo, hi)
  unsigned* status = nullptr;
};

// Blocks per scale of each radix pass for a largest scale of n values.
unsigned top_k_blocks(u64 n);

// The three radix passes of every scale: the exact top-K sums and the validity status.
void enqueue_top_k(const PassArgs& args, unsigned blocks, cudaStream_t stream);

}  // namespace vqx::cambi_cuda
