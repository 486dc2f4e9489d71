#include "metrics/psnr/psnr_math.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace vqx::psnr {

PsnrParams make_params(const PictureFormat& format, bool reduced_hbd_peak, double min_sse) {
  PsnrParams p;
  unsigned bpc = format.bit_depth;
  p.peak = bpc == 8 ? 255u : (reduced_hbd_peak ? 255u << (bpc - 8) : (1u << bpc) - 1u);
  for (unsigned plane = 0; plane < 3; ++plane) {
    if (min_sse == 0.0) {
      p.psnr_max[plane] = double(6 * bpc + 12);
      continue;
    }
    // libvmaf halves the luma size with integer division here, not the real chroma size.
    uint64_t w = format.width, h = format.height;
    if (plane > 0) {
      if (format.subsampling != ChromaSubsampling::k444) w /= 2;
      if (format.subsampling == ChromaSubsampling::k420) h /= 2;
    }
    double peak_sq = double(uint64_t{p.peak} * p.peak);
    p.psnr_max[plane] = std::ceil(10.0 * std::log10(peak_sq / (min_sse / double(w * h))));
  }
  return p;
}

std::vector<std::string> feature_names(const PsnrOptions& options) {
  std::vector<std::string> names;
  unsigned planes = options.enable_chroma ? 3 : 1;
  for (unsigned p = 0; p < planes; ++p) names.push_back(std::string("psnr_") + kPlaneNames[p]);
  if (options.enable_mse)
    for (unsigned p = 0; p < planes; ++p) names.push_back(std::string("mse_") + kPlaneNames[p]);
  return names;
}

double mse_from_sse(uint64_t sse, uint64_t pixels) { return double(sse) / double(pixels); }

double psnr_from_sse(uint64_t sse, uint64_t pixels, uint32_t peak, double psnr_max) {
  double mse = mse_from_sse(sse, pixels);
  double peak_sq = double(uint64_t{peak} * peak);
  return std::min(10.0 * std::log10(peak_sq / std::max(mse, 1e-16)), psnr_max);
}

double aggregate_psnr(uint64_t sse, uint64_t pixels, uint32_t peak) {
  double peak_sq = double(uint64_t{peak} * peak);
  double value = 10.0 * (std::log10(peak_sq) + std::log10(double(pixels)) - std::log10(double(sse)));
  double cap = std::ceil(10.0 * std::log10(peak_sq * double(pixels) * 2.0));
  return std::min(value, cap);
}

namespace {

// The squared differences of one row, exact. 8-bit squares (at most 255^2) of a row no wider
// than kMaxDimension sum in a uint32 that cannot wrap, which the vectoriser turns into pmaddwd;
// deeper samples may hold any 16-bit value (nothing checks them against the bit depth), whose
// square still fits a uint32 and is widened term by term.
static_assert(uint64_t{kMaxDimension} * 255 * 255 <= 0xffffffffu);

uint64_t row_sse(const uint8_t* a, const uint8_t* b, size_t cols) {
  uint32_t sum = 0;
  for (size_t x = 0; x < cols; ++x) {
    const int32_t d = int32_t(a[x]) - int32_t(b[x]);
    sum += uint32_t(d * d);
  }
  return sum;
}

uint64_t row_sse(const uint16_t* a, const uint16_t* b, size_t cols) {
  uint64_t row = 0;
  for (size_t x = 0; x < cols; ++x) {
    const uint32_t d = uint32_t(std::abs(int32_t(a[x]) - int32_t(b[x])));
    row += uint64_t(d * d);
  }
  return row;
}

template <typename Sample>
uint64_t sse_of(const Sample* a, const Sample* b, size_t rows, size_t cols) {
  uint64_t total = 0;
  for (size_t y = 0; y < rows; ++y) total += row_sse(a + y * cols, b + y * cols, cols);
  return total;
}

}  // namespace

uint64_t plane_sse(const Picture& ref, const Picture& dis, unsigned plane) {
  const PictureFormat& f = ref.format();
  size_t w = f.plane_width(plane), h = f.plane_height(plane);
  if (f.bytes_per_sample() == 1)
    return sse_of(ref.plane<uint8_t>(plane), dis.plane<uint8_t>(plane), h, w);
  return sse_of(ref.plane<uint16_t>(plane), dis.plane<uint16_t>(plane), h, w);
}

}  // namespace vqx::psnr
