#include "metrics/psnr/psnr_math.h"

#include <algorithm>
#include <cmath>

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

template <typename Sample>
uint64_t sse_of(const Sample* a, const Sample* b, size_t rows, size_t cols) {
  uint64_t total = 0;
  for (size_t y = 0; y < rows; ++y) {
    uint64_t row = 0;
    const Sample* ra = a + y * cols;
    const Sample* rb = b + y * cols;
    for (size_t x = 0; x < cols; ++x) {
      int64_t d = int64_t(ra[x]) - int64_t(rb[x]);
      row += uint64_t(d * d);
    }
    total += row;
  }
  return total;
}

}  // namespace

uint64_t plane_sse(const Picture& ref, const Picture& dis, unsigned plane) {
  const PictureFormat& f = ref.format();
  size_t w = f.plane_width(plane), h = f.plane_height(plane);
  if (f.bytes_per_sample() == 1) return sse_of(ref.plane<uint8_t>(plane), dis.plane<uint8_t>(plane), h, w);
  return sse_of(ref.plane<uint16_t>(plane), dis.plane<uint16_t>(plane), h, w);
}

}  // namespace vqx::psnr
