#pragma once
// The MS-SSIM / SSIM stages on CUDA (shared/spec/ms_ssim.md section 10), each enqueued on its own
// so that tests can compare every intermediate with the plain CPU twins of ssim_stages.h.
//
//   stage                            device function          CPU twin (bit-identical)
//   luma -> f32                      in every tile loader     convert_luma
//   9x9 decimation                   enqueue_decimate         decimate_plain
//   11-tap windows, statistics,      enqueue_windows          window_convolve_plain,
//   per-pixel l, c, s                                         lcs_terms_plain
//   per-scale sums                   enqueue_windows +        ScaleSums (sequential; here a fixed
//                                    enqueue_reduce           tree of double-double sums)
//
// Every function only enqueues on the given stream; none waits for the device or allocates.
// All pointers are device pointers. Planes are dense (stride = width).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/picture.h"
#include "metrics/ssim_core/ssim_stages.h"

namespace vqx::ssim::cuda {

// What a plane holds: f32 samples on the 8-bit scale (pyramid levels, decimated planes), or the
// raw luma samples of a picture, converted on load as convert_luma does (spec section 1).
enum class SampleType : uint32_t { kF32 = 0, kU8 = 1, kU16 = 2 };

struct DevicePlane {
  const void* data = nullptr;
  SampleType type = SampleType::kF32;
  uint32_t bit_depth = 8;  // raw samples only: f32(v) / 2^(bit_depth - 8)
  Size size;
};

// The luma plane of a picture in the engine's device layout (plane 0 first).
inline DevicePlane luma_plane(const void* picture, const PictureFormat& format) {
  return {picture,
          format.bit_depth > 8 ? SampleType::kU16 : SampleType::kU8,
          format.bit_depth,
          {int(format.width), int(format.height)}};
}

// Sets the window kernel's shared-memory limit on the current device. Before the first enqueue on
// a device (the metrics' init() call it).
void prepare_device();

// One 9x9 decimation step (spec 3.3) of the reference and the distorted plane:
// out_* = decimate_plain(in_*), half_size(in.size).
void enqueue_decimate(const DevicePlane& ref, const DevicePlane& dis, float* out_ref,
                      float* out_dis, cudaStream_t stream);

// The sums of one scale, in the order of ScaleSums: l, c, s, ssim (= (l*c)*s per pixel).
inline constexpr int kSumQuantities = 4;

// A (sum, error) pair of one quantity: a block's partial sum as a double-double.
struct PartialSum {
  double hi, lo;
};

// Work of one scale for enqueue_windows.
struct ScaleJob {
  DevicePlane ref, dis;  // same size
  // Only the c and s sums are wanted: float_ms_ssim's scales whose l mean enters the score with
  // exponent 0 (pow(x, 0) == 1 for every x, NaN included) when enable_lcs is off, and whose ssim
  // sum nothing reads. Those scales skip l and (l*c)*s per pixel; their two partials are
  // unspecified.
  bool cs_only = false;
};

inline constexpr int kMaxJobs = kScales;

// Map rows of one window tile: partial_count(plane) / (tiles per tile row) is the number of tile
// rows; a plane cut into bands of whole tile rows gives the same tiles (the same partials).
inline constexpr int kWindowTileRows = 64;

// Partial sums one scale produces (a fixed function of its plane size): one per window tile.
size_t partial_count(Size plane);

// Windows, statistics, per-pixel terms and per-tile partial sums of up to kMaxJobs scales in one
// launch. partials[j] holds partial_count(jobs[j].ref.size) * kSumQuantities PartialSums (a buffer
// per scale).
void enqueue_windows(const ScaleJob* jobs, int count, PartialSum* const* partials,
                     cudaStream_t stream);

// Reduces each scale's partials in a fixed tree: sums[j * kSumQuantities + q] (f64) for job j,
// quantity q. The tree's shape depends only on the plane sizes.
void enqueue_reduce(const Size* sizes, int count, PartialSum* const* partials, double* sums,
                    cudaStream_t stream);

}  // namespace vqx::ssim::cuda
