#include "metrics/speed_core/speed_covariance.h"

#include <cmath>

namespace vqx::speed {

std::array<float, kDim> offset_means(const Image& e, const Geometry& g) {
  // 25 independent folds, each over its own samples in raster order. They are interleaved (the
  // five offsets of one row offset advance together) only to break the add latency chain; the
  // order within each fold is unchanged. Tested against the one-fold-at-a-time form.
  std::array<float, kDim> acc{};
  for (uint32_t i = 0; i < g.mh; ++i)
    for (uint32_t oy = 0; oy < kBlock; ++oy) {
      const float* row = e.row(oy + i);
      float a0 = acc[oy * kBlock], a1 = acc[oy * kBlock + 1], a2 = acc[oy * kBlock + 2],
            a3 = acc[oy * kBlock + 3], a4 = acc[oy * kBlock + 4];
      for (uint32_t j = 0; j < g.mw; ++j) {
        a0 = a0 + row[j];
        a1 = a1 + row[j + 1];
        a2 = a2 + row[j + 2];
        a3 = a3 + row[j + 3];
        a4 = a4 + row[j + 4];
      }
      acc[oy * kBlock] = a0, acc[oy * kBlock + 1] = a1, acc[oy * kBlock + 2] = a2;
      acc[oy * kBlock + 3] = a3, acc[oy * kBlock + 4] = a4;
    }
  const float n = float(g.n);  // exact: N < 2^24
  std::array<float, kDim> mu{};
  for (int q = 0; q < kDim; ++q) mu[size_t(q)] = acc[size_t(q)] / n;
  return mu;
}

void offset_deviations(const Image& e, const Geometry& g, const std::array<float, kDim>& mu,
                       std::vector<double>& out) {
  out.resize(size_t(kDim) * g.n);
  for (int q = 0; q < kDim; ++q) {
    const uint32_t oy = uint32_t(q) / kBlock, ox = uint32_t(q) % kBlock;
    const double m = double(mu[size_t(q)]);
    double* dst = out.data() + size_t(q) * g.n;
    for (uint32_t i = 0; i < g.mh; ++i) {
      const float* row = e.row(oy + i) + ox;
      for (uint32_t j = 0; j < g.mw; ++j) dst[size_t(i) * g.mw + j] = double(row[j]) - m;
    }
  }
}

void covariance_plain(const std::vector<double>& dev, const Geometry& g, Matrix25& k) {
  const double n = double(g.n);
  for (int q = 0; q < kDim; ++q) {
    const double* dx = dev.data() + size_t(q) * g.n;
    for (int p = 0; p <= q; ++p) {
      const double* dy = dev.data() + size_t(p) * g.n;
      double lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      double tail = 0.0;
      for (uint32_t i = 0; i < g.mh; ++i) {
        const double* a = dx + size_t(i) * g.mw;
        const double* b = dy + size_t(i) * g.mw;
        uint32_t j = 0;
        for (; j + 8 <= g.mw; j += 8)
          for (int l = 0; l < 8; ++l) lane[l] = std::fma(a[j + l], b[j + l], lane[l]);
        if (j + 4 <= g.mw) {
          for (int l = 0; l < 4; ++l) lane[l] = std::fma(a[j + l], b[j + l], lane[l]);
          j += 4;
        }
        for (; j < g.mw; ++j) tail = tail + a[j] * b[j];  // unfused (speed.md 8.3)
      }
      const double sum = ((((lane[0] + lane[4]) + (lane[1] + lane[5])) + (lane[2] + lane[6])) +
                          (lane[3] + lane[7])) +
                         tail;
      const float v = float(sum / n);
      k[size_t(q) * kDim + size_t(p)] = v;
      k[size_t(p) * kDim + size_t(q)] = v;
    }
  }
}

void block_vectors(const Image& e, const Geometry& g, std::vector<float>& y) {
  y.resize(size_t(kDim) * g.nb);
  for (uint32_t by = 0; by < g.nby; ++by)
    for (uint32_t bx = 0; bx < g.nbx; ++bx) {
      const size_t b = size_t(by) * g.nbx + bx;
      for (uint32_t ry = 0; ry < kBlock; ++ry)
        for (uint32_t rx = 0; rx < kBlock; ++rx)
          y[size_t(ry * kBlock + rx) * g.nb + b] = e.at(kBlock * by + ry, kBlock * bx + rx);
    }
}

}  // namespace vqx::speed
