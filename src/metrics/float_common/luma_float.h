#pragma once
// What libvmaf's float features share: the conversion of luma to f32 (feature/picture_copy.c)
// and the peak and cap of float_psnr and float_ansnr.
#include <cstddef>
#include <vector>

#include "core/picture.h"

namespace vqx::float_common {

// f32(sample) / 2^(bit_depth - 8) + offset for every sample of a plane, rows packed. Upstream
// converts 10, 12 and 16 bits this way and reads every other depth as 8-bit bytes; vqx divides
// by 2^(bit_depth - 8) for 9, 11 and 13-15 bits too. The division is by a power of two and the
// offset (0 or -128) is added exactly, so every value is the exact quotient.
void plane_to_float(const Picture& picture, unsigned plane, float offset, float* out);
std::vector<float> plane_to_float(const Picture& picture, unsigned plane, float offset);

// The luma plane (plane 0).
void luma_to_float(const Picture& picture, float offset, float* out);
std::vector<float> luma_to_float(const Picture& picture, float offset);

// 10 log10(peak^2 / noise) is capped at psnr_max; the peak is (2^bpc - 1) / 2^(bpc - 8).
struct PsnrLimits {
  double peak, psnr_max;
};
// Upstream defines them for 8, 10, 12 and 16 bits only and refuses other depths: so does vqx
// (InputError naming `feature`).
PsnrLimits psnr_limits(unsigned bit_depth, const char* feature);

}  // namespace vqx::float_common
