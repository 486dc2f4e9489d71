#pragma once
// The stages of Netflix CAMBI (shared/spec/cambi.md), each callable on its own so that a device
// twin can be compared with the CPU stage by stage, bit for bit.
//
// Planes are tight rows (stride = width). Images are 10-bit codes in uint16_t (12-/16-bit maxima
// become 1024, spec 4.2); masks are one byte per pixel, 0 or 1; c-values are f32.
//
// Init-time math (section 3):  luminance, tvi_threshold_code, vis_lum_threshold_code,
//                              adjust_window, make_level_params, make_resize_map
// Per frame (sections 4-7):    convert_to_10bit -> anti_dither -> spatial_mask (mask_index)
//                              then per scale: decimate -> mode_filter -> c_values -> top_k_mean
//                              and finally weight_scores.
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace vqx {
class ThreadPool;
}

namespace vqx::cambi {

inline constexpr int kNumScales = 5;
inline constexpr int kScaleWeights[kNumScales] = {16, 8, 4, 2, 1};
inline constexpr int kReciprocalLutSize = 4226;  // ws^2 < 4226: the largest window is 65
inline constexpr int kMaxNumDiffs = 32;          // 1 << max_log_contrast, mlc <= 5

// R[i] (spec 6.3.1): the table shipped as data, with its 42 entries one ulp away from 1.0f / i.
const std::array<float, kReciprocalLutSize>& reciprocal_lut();

// ---- Init-time math (section 3) -------------------------------------------------------------

enum class Eotf { kBt1886, kPq };

// L(s) in cd/m^2 of a 10-bit limited-range code s (spec 3.1), f64 with libm pow.
double luminance(Eotf eotf, int code);
// get_tvi(diff): the largest code at which a step of `diff` is visible (spec 3.1), raw (without
// the +num_diffs adjustment); 0 or 1023 at the ends.
int tvi_threshold_code(Eotf eotf, double tvi_threshold, int diff);
// vlt_luma (spec 3.2): smallest code >= 64 with L >= threshold, 0 if that is 64, bounded at 940.
int vis_lum_threshold_code(Eotf eotf, double threshold_cd_m2);
// The window at a processing size (spec 3 step 9), in unsigned arithmetic as upstream.
unsigned adjust_window(unsigned window_size, unsigned width, unsigned height, bool speedup);
// The 7x7 flat-count threshold of the spatial mask (spec 5).
int mask_index(unsigned width, unsigned height);

// Everything the c-values need besides the image, mask and window (spec 3 steps 5-11).
struct LevelParams {
  int num_diffs = 4;
  std::array<int, kMaxNumDiffs> diff_weights{};
  std::array<int, kMaxNumDiffs> tvi{};  // adjusted: get_tvi(d + 1) + num_diffs
  int vlt_luma = 0;
  int base = 0;  // histogram band [base, base + band) of raw 10-bit codes
  int band = 0;
};
LevelParams make_level_params(Eotf eotf, double tvi_threshold, int max_log_contrast,
                              double vis_lum_threshold);

// Nearest-neighbour source index of every output row and column (spec 4.2), from upstream's f32
// stepping accumulator. Identity when the sizes agree.
struct ResizeMap {
  std::vector<uint32_t> rows, cols;
};
ResizeMap make_resize_map(unsigned in_w, unsigned in_h, unsigned out_w, unsigned out_h);

// ---- Per-frame stages (sections 4-7) --------------------------------------------------------

// Largest luma sample of an input plane (bytes per sample: 1 if bpc <= 8, else 2).
unsigned max_sample(const void* luma, size_t count, int bpc);
// One input sample to 10 bits (spec 4.2).
inline uint16_t to_10bit(uint32_t v, int bpc) {
  if (bpc <= 8) return uint16_t(v << (10 - bpc));
  if (bpc == 9) return uint16_t(v << 1);
  if (bpc == 10) return uint16_t(v);
  return uint16_t((v + (1u << (bpc - 11))) >> (bpc - 10));
}
// Converts the luma plane (in_w wide) to 10 bits at the map's size.
void convert_to_10bit(const void* luma, unsigned in_w, int bpc, const ResizeMap& map,
                      uint16_t* out);
// 2x2 box anti-dithering (spec 4.3); out may not alias in.
void anti_dither(const uint16_t* in, unsigned w, unsigned h, uint16_t* out);
// Flat-region mask (spec 5) at full processing resolution.
void spatial_mask(const uint16_t* image, unsigned w, unsigned h, int mask_index, uint8_t* mask);
// Keeps every second pixel of every second row: out is ((w+1)/2) x ((h+1)/2) (spec 6 step 1).
void decimate(const uint16_t* image, const uint8_t* mask, unsigned w, unsigned h,
              uint16_t* out_image, uint8_t* out_mask);
// 3x3 separable mode filter with upstream's borders (spec 6.2); out may not alias in.
void mode_filter(const uint16_t* in, unsigned w, unsigned h, uint16_t* out);

// The level the c-value histograms count a pixel under (spec 6.3): code - base for a masked-in
// code inside the band [base, base + band), kNotCounted otherwise.
inline constexpr uint16_t kNotCounted = 0xFFFF;
void counted_levels(const uint16_t* image, const uint8_t* mask, size_t n, const LevelParams& p,
                    uint16_t* levels);
// Per band level l: bit d set when contrast d takes part at l (spec 6.3 step 3's two conditions,
// which depend on the level only).
std::vector<uint32_t> level_contrasts(const LevelParams& p);

// What the pooling needs to know of a plane of c-values before it selects (spec 6.4): how many
// are non-zero and their exact sum in units of 2^-24; both mean nothing unless every non-zero
// value is a non-negative multiple of 2^-24 below 2^14 (`representable`, always so for c-values).
struct ValueSums {
  uint64_t nonzero = 0, units = 0;
  bool representable = true;
  void add(float value) {
    const uint32_t bits = std::bit_cast<uint32_t>(value);
    if (bits == 0) return;
    const uint32_t e = bits >> 23;  // biased exponent; the sign bit would make it >= 256
    representable &= e >= 126 && e <= 140;
    ++nonzero;
    units += uint64_t((bits & 0x7FFFFFu) | 0x800000u) << ((e - 126) & 15);
  }
  void add(const ValueSums& other) {
    nonzero += other.nonzero;
    units += other.units;
    representable &= other.representable;
  }
};

// c-value of every pixel (spec 6.3) by sliding column histograms, row chunks in parallel on
// `pool` (may be null). Counts are exact, so the result does not depend on the chunking.
// Returns the plane's ValueSums, taken while the values are computed.
ValueSums c_values(const uint16_t* image, const uint8_t* mask, unsigned w, unsigned h,
                   unsigned window, const LevelParams& params, float* out, ThreadPool* pool);
// The plain twin: the definition of spec 6.3 with a direct window scan (tests only, slow).
void c_values_plain(const uint16_t* image, const uint8_t* mask, unsigned w, unsigned h,
                    unsigned window, const LevelParams& params, float* out);

// k of the top-K pooling (spec 6.4 step 1).
size_t top_k_count(double ratio, size_t n);
// Mean of the k largest values as upstream computes it (spec 6.4). Exact integer selection and
// sum; when that sum is >= 2^29 (where upstream's f64 sum may round) it falls back to the literal
// quick-select. May reorder `values`.
// `sums`, when given, are the values' ValueSums (saving a pass over them).
double top_k_mean(std::span<float> values, size_t k, const ValueSums* sums = nullptr);
// The plain twin: upstream's quick-select and sequential f64 sum, literally. Reorders `values`.
double top_k_mean_quickselect(std::span<float> values, size_t k);

// Final score from the five per-scale means (spec 7), before the cambi_max_val clip.
double weight_scores(const std::array<double, kNumScales>& scale_means, unsigned window);

}  // namespace vqx::cambi
