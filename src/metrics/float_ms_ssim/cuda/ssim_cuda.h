#pragma once
// The MS-SSIM / SSIM stages on CUDA (shared/spec/ms_ssim.md section 10), callable one by one so
// that tests can compare every intermediate with the plain CPU twins of ssim_stages.h.
//
//   stage                            device function          CPU twin (bit-identical)
//   luma -> f32                      in every tile loader     convert_luma
//   9x9 decimation                   enqueue_decimate         decimate_plain
//   box decimation (float_ssim)      enqueue_box_decimate     box_decimate
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
#include "metrics/float_ms_ssim/ssim_stages.h"

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

// Kernel variants (docs/float_ms_ssim.md, CUDA twin; pruned to these in session 16): every
// variant gives the same planes, per-pixel terms and per-tile partials; the reduce variants' sums
// differ only in rounding (each a fixed tree). Defaults from the environment (VQX_SSIM_WIN,
// VQX_SSIM_DEC, VQX_SSIM_RED, VQX_SSIM_STRIP, VQX_SSIM_STRIP_MIN); tests and benches switch them
// between launches (not thread-safe: set before enqueueing). A window or decimation value not in
// the lists below selects the default.
inline constexpr int kWindowVariants[] = {54, 44, 38};  // 54: default (session 18); 44: session 16's; 38: session 15's
inline constexpr int kDecimateVariants[] = {34, 32, 26, 28};  // 34: default (session 18); 32: session 16's;
                                                              // 26: session 14's; 28
struct SpeedVariants {
  int window = 54;    // kWindowVariants
  int decimate = 34;  // kDecimateVariants: 34 = decimate_row_runs_kernel (runs of 4 output columns)
                      // for raw inputs of 3000x2000 samples and up, else 26 =
                      // decimate_sweep2_kernel for inputs of 2e6 samples and up, decimate_kernel
                      // below; 32 = 34 with decimate_rows_kernel (a column per thread); 28 =
                      // decimate_rows_kernel for every raw input, 26's kernels for the f32 levels
  int reduce = 1;     // 0..1 (default 1: 1024 threads per tree; the sums differ only in rounding)
  int strip = 0;     // session 15: tiles per block of the strip kernel (VQX_SSIM_STRIP, default 2); 0
                     // in set_speed_variants: unchanged
  int strip_min_tiles = 0;  // strips only in launches of at least this many tiles (VQX_SSIM_STRIP_MIN,
                            // default 1000; 1: always); 0 in set_speed_variants: unchanged
};
SpeedVariants speed_variants();
void set_speed_variants(SpeedVariants variants);

// The luma plane of a picture in the engine's device layout (plane 0 first).
DevicePlane luma_plane(const void* picture, const PictureFormat& format);

// Copies the CPU's kGaussian and kLpf tables to the device and sets the window kernel's shared
// memory limit. Before the first enqueue on a device (the metrics' init() calls it); synchronous.
void prepare_device();

// One 9x9 decimation step (spec 3.3) of the reference and the distorted plane:
// out_* = decimate_plain(in_*), half_size(in.size).
void enqueue_decimate(const DevicePlane& ref, const DevicePlane& dis, float* out_ref, float* out_dis,
                      cudaStream_t stream);

// float_ssim's box decimation by `factor` >= 2 (box_decimate): box_decimated_size(in.size, factor).
void enqueue_box_decimate(const DevicePlane& in, int factor, float* out, cudaStream_t stream);

// Intermediates a test can ask for (map-sized device planes; nullptr: not written). The five
// convolved planes before the statistics, then the per-pixel terms.
struct WindowTaps {
  float* mu_r = nullptr;
  float* mu_d = nullptr;
  float* sum_rr = nullptr;
  float* sum_dd = nullptr;
  float* sum_rd = nullptr;
  double* l = nullptr;
  double* c = nullptr;
  float* s = nullptr;
};

// The sums of one scale, in the order of ScaleSums: l, c, s, ssim (= (l*c)*s per pixel).
inline constexpr int kSumQuantities = 4;

// A (sum, error) pair of one quantity: a block's partial sum as a double-double.
struct PartialSum {
  double hi, lo;
};

// Work of one scale for enqueue_windows.
struct ScaleJob {
  DevicePlane ref, dis;  // same size
  WindowTaps taps;
  // Only the c and s sums are wanted: float_ms_ssim's scales whose l mean enters the score with
  // exponent 0 (pow(x, 0) == 1 for every x, NaN included) when enable_lcs is off, and whose ssim sum
  // nothing reads. The window kernel with the lean terms (variant 44) then skips l and (l*c)*s
  // per pixel; those two partials are unspecified. Ignored when taps are asked for.
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
