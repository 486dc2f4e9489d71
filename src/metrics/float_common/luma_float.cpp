#include "metrics/float_common/luma_float.h"

#include <fmt/format.h>

#include "core/error.h"

namespace vqx::float_common {
namespace {

template <typename Sample>
void convert(const Sample* in, size_t n, float divisor, float offset, float* out) {
  for (size_t i = 0; i < n; ++i) out[i] = float(in[i]) / divisor + offset;
}

}  // namespace

void plane_to_float(const Picture& picture, unsigned plane, float offset, float* out) {
  const PictureFormat& f = picture.format();
  const size_t n = size_t(f.plane_width(plane)) * f.plane_height(plane);
  const float divisor = float(1u << (f.bit_depth - 8));
  if (f.bytes_per_sample() == 1)
    convert(picture.plane<uint8_t>(plane), n, divisor, offset, out);
  else
    convert(picture.plane<uint16_t>(plane), n, divisor, offset, out);
}

std::vector<float> plane_to_float(const Picture& picture, unsigned plane, float offset) {
  const PictureFormat& f = picture.format();
  std::vector<float> out(size_t(f.plane_width(plane)) * f.plane_height(plane));
  plane_to_float(picture, plane, offset, out.data());
  return out;
}

void luma_to_float(const Picture& picture, float offset, float* out) {
  plane_to_float(picture, 0, offset, out);
}

std::vector<float> luma_to_float(const Picture& picture, float offset) {
  return plane_to_float(picture, 0, offset);
}

PsnrLimits psnr_limits(unsigned bit_depth, const char* feature) {
  switch (bit_depth) {
    case 8:
      return {255.0, 60.0};
    case 10:
      return {255.75, 72.0};
    case 12:
      return {255.9375, 84.0};
    case 16:
      return {255.99609375, 108.0};
    default:
      throw InputError(fmt::format(
          "{} supports 8, 10, 12 and 16 bits per sample, as libvmaf, got {}", feature, bit_depth));
  }
}

}  // namespace vqx::float_common
