// SpEED-chroma preprocessing (speed.md 3, 5, 6, 7). Every operation is f32 unless a comment
// says f64; the order of each fold is the spec's and must not be changed.
#include "metrics/speed_core/speed_preprocess.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace vqx::speed {
namespace {

// speed.md 3: 8-bit samples are offset directly, deeper ones are first divided (exactly) by
// 2^(bpc-8). The divisor is a power of two, so the quotient and the offset sum are exact.
float sample_divisor(uint8_t bit_depth) {
  switch (bit_depth) {
    case 8:
      return 1.0f;
    case 10:
      return 4.0f;
    case 12:
      return 16.0f;
    case 16:
      return 256.0f;
    default:
      throw std::logic_error("speed_chroma: unsupported bit depth reached conversion");
  }
}

}  // namespace

void convert_row(const Picture& picture, unsigned plane, uint32_t y, uint32_t w, float* out) {
  const PictureFormat& f = picture.format();
  const size_t stride = f.plane_width(plane);
  if (f.bit_depth == 8) {
    const uint8_t* src = picture.plane<uint8_t>(plane) + size_t(y) * stride;
    for (uint32_t x = 0; x < w; ++x) out[x] = float(src[x]) + -128.0f;
    return;
  }
  const float div = sample_divisor(f.bit_depth);
  const uint16_t* src = picture.plane<uint16_t>(plane) + size_t(y) * stride;
  for (uint32_t x = 0; x < w; ++x) out[x] = float(src[x]) / div + -128.0f;
}

void convert_plane(const Picture& picture, unsigned plane, uint32_t w, uint32_t h, Image& out) {
  out.w = w;
  out.h = h;
  out.px.resize(size_t(w) * h);  // every sample is written below
  for (uint32_t y = 0; y < h; ++y) convert_row(picture, plane, y, w, out.row(y));
}

BilinearAxis make_bilinear_axis(uint32_t n, uint32_t m) {
  BilinearAxis axis;
  axis.i1.resize(m);
  axis.i2.resize(m);
  axis.frac.resize(m);
  const float r = float(n) / float(m);  // f32 ratio
  const int64_t last = int64_t(n) - 1;
  auto mirror = [&](int64_t i) { return i < 0 ? -i : (i > last ? 2 * last - i : i); };
  for (uint32_t k = 0; k < m; ++k) {
    // The position is computed in f64 from the f32 ratio and rounded to f32 (speed.md 5.2).
    const float t = float((double(k) + 0.5) * double(r) - 0.5);
    const int64_t i1 = mirror(int64_t(std::floor(t)));
    const int64_t i2 = mirror(int64_t(std::ceil(t)));
    axis.i1[k] = uint32_t(i1);
    axis.i2[k] = uint32_t(i2);
    axis.frac[k] = t - float(i1);  // measured from the mirrored floor
  }
  return axis;
}

void bilinear_row(const float* row1, const float* row2, float dy, const BilinearAxis& cols,
                  float* out) {
  const float a = 1.0f - dy;
  const size_t m = cols.frac.size();
  for (size_t x = 0; x < m; ++x) {
    const float dx = cols.frac[x];
    const float ax = 1.0f - dx;
    const uint32_t x1 = cols.i1[x], x2 = cols.i2[x];
    // (((a a') P11 + (a dx) P12) + (dy a') P21) + (dy dx) P22, each product and sum in f32.
    float v = (a * ax) * row1[x1];
    v = v + (a * dx) * row1[x2];
    v = v + (dy * ax) * row2[x1];
    v = v + (dy * dx) * row2[x2];
    out[x] = v;
  }
}

std::vector<uint32_t> make_nearest_axis(uint32_t n, uint32_t m) {
  std::vector<uint32_t> idx(m);
  const float r = float(n) / float(m);
  for (uint32_t k = 0; k < m; ++k) {
    // trunc(k * r) in f32; clamped only against an out-of-range read upstream would make.
    idx[k] = std::min(uint32_t(float(k) * r), n - 1);
  }
  return idx;
}

void prescale(const Image& in, uint32_t sw, uint32_t sh, PrescaleMethod method, Image& out) {
  if (sw == in.w && sh == in.h) {  // identity for both methods (nearest: ratio 1 is exact)
    out = in;
    return;
  }
  out.resize(sw, sh);
  if (method == PrescaleMethod::kBilinear) {
    const BilinearAxis bx = make_bilinear_axis(in.w, sw);
    const BilinearAxis by = make_bilinear_axis(in.h, sh);
    for (uint32_t y = 0; y < sh; ++y)
      bilinear_row(in.row(by.i1[y]), in.row(by.i2[y]), by.frac[y], bx, out.row(y));
    return;
  }
  if (method == PrescaleMethod::kNearest) {
    const auto nx = make_nearest_axis(in.w, sw);
    const auto ny = make_nearest_axis(in.h, sh);
    for (uint32_t y = 0; y < sh; ++y) {
      const float* src = in.row(ny[y]);
      float* dst = out.row(y);
      for (uint32_t x = 0; x < sw; ++x) dst[x] = src[nx[x]];
    }
    return;
  }
  if (method == PrescaleMethod::kBicubic) return bicubic_resample(in, sw, sh, out);
  lanczos4_resample(in, sw, sh, out);
}

std::vector<float> gaussian_taps(int width, float s) {
  // speed.md 6.3. SQRT2PI is sqrt(2 pi) in f64.
  constexpr double kSqrt2Pi = 0x1.40d931ff62705p+1;
  const int r = (width - 1) / 2;
  std::vector<float> raw(static_cast<size_t>(width));
  const float k = float(1.0 / (double(s) * kSqrt2Pi));
  for (int i = 0; i < width; ++i) {
    const float t = float(i - r);
    const double q = (((-0.5 * double(t)) / double(s)) * double(t)) / double(s);
    const float g = float(std::exp(q));
    raw[size_t(i)] = g / k;
  }
  float sum = 0.0f;
  for (float v : raw) sum = sum + v;
  for (float& v : raw) v = v / sum;
  return raw;
}

int filter_size(int scale, float ks32) {
  const int n = (1 << (4 - scale)) + 1;
  const float f = float(n) * ks32;
  int c = int(std::ceil(f));
  if (c % 2 == 0) c = c + 1;
  return std::max(c, 3);
}

SpeedFilters make_filters(float ks32) {
  const int l1 = filter_size(1, ks32);
  const float sigma1 = float((2.0 * double(l1)) / 5.0);  // 2.0 is upstream's sqrt(4)
  const int l2 = filter_size(4, ks32);
  const float sigma2 = float(l2) / 5.0f;
  return {gaussian_taps(l1, sigma1), gaussian_taps(l2, sigma2)};
}

void convolve(const Image& in, const std::vector<float>& taps, Image& out) {
  const int64_t r = int64_t(taps.size() - 1) / 2;
  const uint32_t w = in.w, h = in.h;
  Image t;
  t.resize(w, h);
  for (uint32_t i = 0; i < h; ++i) {
    float* dst = t.row(i);
    for (size_t k = 0; k < taps.size(); ++k) {
      const float* src = in.row(uint32_t(mirror_index(int64_t(i) - r + int64_t(k), h)));
      const float f = taps[k];
      for (uint32_t j = 0; j < w; ++j) dst[j] = dst[j] + f * src[j];  // fold from +0 over k
    }
  }
  out.resize(w, h);
  for (uint32_t i = 0; i < h; ++i) {
    const float* src = t.row(i);
    float* dst = out.row(i);
    for (uint32_t j = 0; j < w; ++j) {
      float acc = 0.0f;
      for (size_t k = 0; k < taps.size(); ++k)
        acc = acc + taps[k] * src[mirror_index(int64_t(j) - r + int64_t(k), w)];
      dst[j] = acc;
    }
  }
}

void decimate(const Image& a, uint32_t ow, uint32_t oh, Image& out) {
  out.resize(ow, oh);
  for (uint32_t i = 0; i < oh; ++i)
    for (uint32_t j = 0; j < ow; ++j) out.row(i)[j] = a.at(i * kDecimation, j * kDecimation);
}

void remove_local_mean(const Image& d, const std::vector<float>& mean_taps, Image& out) {
  Image g;
  convolve(d, mean_taps, g);
  out.resize(d.w, d.h);
  for (size_t i = 0; i < d.px.size(); ++i) out.px[i] = d.px[i] - g.px[i];
}

void preprocess_plane_staged(const Picture& picture, unsigned plane, const Geometry& g,
                             PrescaleMethod method, const SpeedFilters& filters, Image& e) {
  Image p;
  convert_plane(picture, plane, g.w, g.h, p);
  preprocess_image(p, g, method, filters, e);
}

void preprocess_image(const Image& source, const Geometry& g, PrescaleMethod method,
                      const SpeedFilters& filters, Image& e) {
  Image scaled, blurred, d;
  const Image* src = &source;
  if (g.prescale_active) {
    prescale(source, g.sw, g.sh, method, scaled);
    src = &scaled;
  }
  convolve(*src, filters.antialias, blurred);
  decimate(blurred, g.ow, g.oh, d);
  remove_local_mean(d, filters.mean, e);
}

void preprocess_plane(const Picture& picture, unsigned plane, const Geometry& g,
                      PrescaleMethod method, const SpeedFilters& filters, PreprocessScratch& s,
                      Image& e) {
  const bool identity = !g.prescale_active || (g.sw == g.w && g.sh == g.h);
  if (!identity) {
    // Source rows are converted on first use: the kept rows of the scaled image read only about
    // half of them.
    s.source.w = g.w;
    s.source.h = g.h;
    s.source.px.resize(size_t(g.w) * g.h);
    s.converted.assign(g.h, 0);
    if (s.cached_w != g.w || s.cached_h != g.h || s.cached_sw != g.sw || s.cached_sh != g.sh ||
        s.cached_method != method) {
      if (method == PrescaleMethod::kBilinear) {
        s.bx = make_bilinear_axis(g.w, g.sw);
        s.by = make_bilinear_axis(g.h, g.sh);
      } else if (method == PrescaleMethod::kNearest) {
        s.nx = make_nearest_axis(g.w, g.sw);
        s.ny = make_nearest_axis(g.h, g.sh);
      } else {
        throw std::logic_error("speed_chroma: prescale method not implemented");
      }
      s.cached_w = g.w, s.cached_h = g.h, s.cached_sw = g.sw, s.cached_sh = g.sh;
      s.cached_method = method;
    }
  }
  auto source_row = [&](uint32_t y) -> const float* {
    float* row = s.source.row(y);
    if (!s.converted[y]) {
      convert_row(picture, plane, y, g.w, row);
      s.converted[y] = 1;
    }
    return row;
  };
  // Row y of the (possibly scaled) image, computed exactly as prescale() computes it.
  auto scaled_row = [&](uint32_t y, float* out) {
    if (identity) {
      convert_row(picture, plane, y, g.sw, out);
    } else if (method == PrescaleMethod::kBilinear) {
      bilinear_row(source_row(s.by.i1[y]), source_row(s.by.i2[y]), s.by.frac[y], s.bx, out);
    } else {
      const float* src = source_row(s.ny[y]);
      for (uint32_t x = 0; x < g.sw; ++x) out[x] = src[s.nx[x]];
    }
  };

  const std::vector<float>& taps = filters.antialias;
  const size_t taps_n = taps.size();
  const int64_t r = int64_t(taps_n - 1) / 2;
  s.rows.resize(g.sw);
  s.vertical.resize(g.sw);
  s.decimated.resize(g.ow, g.oh);
  const PictureFormat& pf = picture.format();
  const size_t stride = pf.plane_width(plane);
  for (uint32_t i = 0; i < g.oh; ++i) {
    const int64_t y0 = int64_t(i) * kDecimation;
    // Vertical pass of convolve() at row 16 i: the same fold from +0 over k for each column.
    float* v = s.vertical.data();
    std::fill(v, v + g.sw, 0.0f);
    for (size_t k = 0; k < taps_n; ++k) {
      const uint32_t y = uint32_t(mirror_index(y0 - r + int64_t(k), g.sh));
      const float f = taps[k];
      if (identity && pf.bit_depth == 8) {
        // Conversion fused into the pass: the sample value is the one convert_row() gives.
        const uint8_t* src = picture.plane<uint8_t>(plane) + size_t(y) * stride;
        for (uint32_t j = 0; j < g.sw; ++j) v[j] = v[j] + f * (float(src[j]) + -128.0f);
      } else {
        float* row = s.rows.data();
        scaled_row(y, row);
        for (uint32_t j = 0; j < g.sw; ++j) v[j] = v[j] + f * row[j];
      }
    }
    // Horizontal pass of convolve() at the columns 16 j only.
    float* d = s.decimated.row(i);
    for (uint32_t j = 0; j < g.ow; ++j) {
      const int64_t x0 = int64_t(j) * kDecimation;
      float acc = 0.0f;
      for (size_t k = 0; k < taps_n; ++k)
        acc = acc + taps[k] * v[mirror_index(x0 - r + int64_t(k), g.sw)];
      d[j] = acc;
    }
  }
  remove_local_mean(s.decimated, filters.mean, e);
}

}  // namespace vqx::speed
