#include "output/thumbnail.h"

#include <algorithm>
#include <cmath>

namespace vqx {
namespace {

// The source range [begin, end) that output index i of n covers in a line of `length` samples.
struct Span {
  uint32_t begin, end;
};
std::vector<Span> box_spans(uint32_t length, uint32_t n) {
  std::vector<Span> spans(n);
  for (uint32_t i = 0; i < n; ++i) {
    spans[i].begin = uint32_t(uint64_t(i) * length / n);
    spans[i].end = std::max(spans[i].begin + 1, uint32_t(uint64_t(i + 1) * length / n));
  }
  return spans;
}

// One plane averaged to width x height, in the plane's sample units.
template <typename Sample>
std::vector<float> average_plane(const Picture& picture, unsigned plane, ThumbnailSize size) {
  const PictureFormat& f = picture.format();
  const uint32_t pw = f.plane_width(plane), ph = f.plane_height(plane);
  const Sample* samples = picture.plane<Sample>(plane);
  const std::vector<Span> columns = box_spans(pw, size.width), rows = box_spans(ph, size.height);
  std::vector<float> out(size_t(size.width) * size.height);
  std::vector<double> sums(size.width);
  for (uint32_t y = 0; y < size.height; ++y) {
    std::fill(sums.begin(), sums.end(), 0.0);
    for (uint32_t r = rows[y].begin; r < rows[y].end; ++r) {
      const Sample* line = samples + size_t(r) * pw;
      for (uint32_t x = 0; x < size.width; ++x)
        for (uint32_t c = columns[x].begin; c < columns[x].end; ++c) sums[x] += line[c];
    }
    const uint32_t height = rows[y].end - rows[y].begin;
    for (uint32_t x = 0; x < size.width; ++x)
      out[size_t(y) * size.width + x] = float(sums[x] / (double(height) * (columns[x].end - columns[x].begin)));
  }
  return out;
}

std::vector<float> average(const Picture& picture, unsigned plane, ThumbnailSize size) {
  return picture.format().bytes_per_sample() == 1 ? average_plane<uint8_t>(picture, plane, size)
                                                  : average_plane<uint16_t>(picture, plane, size);
}

uint8_t to_byte(double unit) { return uint8_t(std::lround(std::clamp(unit, 0.0, 1.0) * 255.0)); }

}  // namespace

ThumbnailSize thumbnail_size(const PictureFormat& format, uint32_t max_width, uint32_t max_height) {
  const double scale = std::min({1.0, double(max_width) / format.width, double(max_height) / format.height});
  return {std::max(1u, uint32_t(std::lround(format.width * scale))),
          std::max(1u, uint32_t(std::lround(format.height * scale)))};
}

Thumbnail make_thumbnail(const Picture& picture, ThumbnailSize size) {
  const PictureFormat& f = picture.format();
  Thumbnail t{size.width, size.height, std::vector<uint8_t>(size_t(size.width) * size.height * 3)};
  const size_t pixels = size_t(size.width) * size.height;
  if (f.color == ColorModel::kRGB) {
    const double max_code = double((1u << f.bit_depth) - 1);
    for (unsigned p = 0; p < 3; ++p) {
      const std::vector<float> plane = average(picture, p, size);
      for (size_t i = 0; i < pixels; ++i) t.rgb[i * 3 + p] = to_byte(plane[i] / max_code);
    }
    return t;
  }
  // Codes scaled to 8 bits, then the range's offsets and excursions (BT.601/709 tables).
  const double to8 = 1.0 / double(1u << (f.bit_depth - 8));
  const bool full = f.range == ColorRange::kFull;
  const double y_offset = full ? 0 : 16, y_range = full ? 255 : 219, c_range = full ? 255 : 224;
  const bool hd = f.height > 576;
  const double kr = hd ? 0.2126 : 0.299, kb = hd ? 0.0722 : 0.114, kg = 1.0 - kr - kb;
  const std::vector<float> luma = average(picture, 0, size);
  std::vector<float> cb, cr;
  if (f.plane_count() == 3) cb = average(picture, 1, size), cr = average(picture, 2, size);
  for (size_t i = 0; i < pixels; ++i) {
    const double y = (luma[i] * to8 - y_offset) / y_range;
    const double u = cb.empty() ? 0.0 : (cb[i] * to8 - 128.0) / c_range;
    const double v = cr.empty() ? 0.0 : (cr[i] * to8 - 128.0) / c_range;
    const double r = y + 2.0 * (1.0 - kr) * v, b = y + 2.0 * (1.0 - kb) * u;
    const double g = (y - kr * r - kb * b) / kg;
    t.rgb[i * 3] = to_byte(r);
    t.rgb[i * 3 + 1] = to_byte(g);
    t.rgb[i * 3 + 2] = to_byte(b);
  }
  return t;
}

}  // namespace vqx
