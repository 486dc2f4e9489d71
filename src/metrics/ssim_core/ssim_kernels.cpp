// Drivers of the optimised stages, the plain row kernels and the kernel table (ssim_kernels.h).
#include "metrics/ssim_core/ssim_kernels.h"

#include <algorithm>
#include <vector>

#include "core/thread_pool.h"
#include "metrics/ssim_core/ssim_row_kernels.h"

namespace vqx::ssim {
namespace detail {
namespace {

void decimate_row_generic(const float* const even[kLpfTaps], const float* const odd[kLpfTaps],
                          int out_width, float* out) {
  for (int x = 0; x < out_width; ++x) out[x] = decimate_one(even, odd, x);
}

void window_h_row_generic(const float* ref, const float* dis, int map_width,
                          float* const out[kQuantities]) {
  for (int x = 0; x < map_width; ++x) window_h_one(ref, dis, x, out);
}

void window_v_terms_row_generic(const float* const rows[kQuantities][kWindowTaps], int map_width,
                                double* l, double* c, float* s) {
  for (int x = 0; x < map_width; ++x) {
    const LcsTerm t = window_v_terms_one(rows, x);
    l[x] = t.l;
    c[x] = t.c;
    s[x] = t.s;
  }
}

}  // namespace
}  // namespace detail

SsimKernels make_ssim_kernels(const CpuFeatures& cpu) {
  SsimKernels k{detail::decimate_row_generic, detail::window_h_row_generic,
                detail::window_v_terms_row_generic};
  if (cpu.avx2) detail::install_avx2_kernels(k);
  return k;
}

const SsimKernels& ssim_kernels() {
  static const SsimKernels host = make_ssim_kernels(host_cpu_features());
  return host;
}

namespace {

// Rows per parallel chunk. Fixed numbers (never derived from the thread count); they only decide
// which thread computes a row, never how.
constexpr int kSplitRowsPerChunk = 32;
constexpr int kDecimateRowsPerChunk = 16;
// A strip of map rows shares one ring of horizontal rows (10 extra rows at its start); a wave of
// strips is computed in parallel, then summed in order.
constexpr int kStripRows = 64;
constexpr int kWaveStrips = 4;

void run_rows(ThreadPool* pool, int n, int grain, const std::function<void(size_t, size_t)>& body) {
  if (pool)
    pool->parallel_for(size_t(n), size_t(grain), body);
  else
    body(0, size_t(n));
}

}  // namespace

void decimate(const float* in, Size size, float* out, ThreadPool* pool, const SsimKernels& k) {
  const Size half = half_size(size);
  const size_t split_width = size_t(half.width) + kSplitPad;
  // Even/odd split of every input row (kSplitPad), reused between calls.
  thread_local std::vector<float> split;
  split.resize(2 * split_width * size_t(size.height));
  float* even_rows = split.data();
  float* odd_rows = split.data() + split_width * size_t(size.height);
  run_rows(pool, size.height, kSplitRowsPerChunk, [&](size_t begin, size_t end) {
    for (size_t r = begin; r < end; ++r) {
      const float* row = in + r * size_t(size.width);
      float* even = even_rows + r * split_width;
      float* odd = odd_rows + r * split_width;
      // Reflection only where 2j-4 < 0 or 2j-3 >= width; a plain strided copy in between.
      const int first = 2, last = std::min(int(split_width), (size.width + kLpfRadius - 1) / 2);
      auto edge = [&](int j) {
        even[j] = row[reflect(2 * j - kLpfRadius, size.width)];
        odd[j] = row[reflect(2 * j - kLpfRadius + 1, size.width)];
      };
      for (int j = 0; j < first; ++j) edge(j);
      for (int j = first; j < last; ++j) {
        even[j] = row[2 * j - kLpfRadius];
        odd[j] = row[2 * j - kLpfRadius + 1];
      }
      for (int j = std::max(first, last); j < int(split_width); ++j) edge(j);
    }
  });
  run_rows(pool, half.height, kDecimateRowsPerChunk, [&](size_t begin, size_t end) {
    for (size_t y = begin; y < end; ++y) {
      const float* even[kLpfTaps];
      const float* odd[kLpfTaps];
      for (int v = 0; v < kLpfTaps; ++v) {
        const size_t r = size_t(reflect(2 * int(y) + v - kLpfRadius, size.height));
        even[v] = even_rows + r * split_width;
        odd[v] = odd_rows + r * split_width;
      }
      k.decimate_row(even, odd, half.width, out + y * size_t(half.width));
    }
  });
}

void lcs_rows(const float* ref, const float* dis, Size size, int y0, int y1, double* l, double* c,
              float* s, const SsimKernels& k) {
  const Size map = map_size(size);
  const size_t mw = size_t(map.width);
  // Ring of the last 11 horizontal rows of each quantity: input row r lives in slot r % 11.
  thread_local std::vector<float> ring;
  ring.resize(kQuantities * kWindowTaps * mw);
  auto slot = [&](int q, int r) {
    return ring.data() + (size_t(q) * kWindowTaps + size_t(r % kWindowTaps)) * mw;
  };
  auto horizontal = [&](int r) {
    float* out[kQuantities];
    for (int q = 0; q < kQuantities; ++q) out[q] = slot(q, r);
    const size_t offset = size_t(r) * size_t(size.width);
    k.window_h_row(ref + offset, dis + offset, map.width, out);
  };
  for (int r = y0; r < y0 + kWindowMargin; ++r) horizontal(r);
  for (int y = y0; y < y1; ++y) {
    horizontal(y + kWindowMargin);
    const float* rows[kQuantities][kWindowTaps];
    for (int q = 0; q < kQuantities; ++q)
      for (int t = 0; t < kWindowTaps; ++t) rows[q][t] = slot(q, y + t);
    const size_t offset = size_t(y - y0) * mw;
    k.window_v_terms_row(rows, map.width, l + offset, c + offset, s + offset);
  }
}

ScaleMeans ssim_scale(const float* ref, const float* dis, Size size, ThreadPool* pool,
                      const SsimKernels& k) {
  const Size map = map_size(size);
  const size_t mw = size_t(map.width);
  constexpr int kWaveRows = kStripRows * kWaveStrips;
  thread_local std::vector<double> l, c;
  thread_local std::vector<float> s;
  const size_t wave_pixels = size_t(std::min(kWaveRows, map.height)) * mw;
  l.resize(wave_pixels);
  c.resize(wave_pixels);
  s.resize(wave_pixels);
  // Pointers for the workers (thread_local names would resolve to each worker's own vectors).
  double* lp = l.data();
  double* cp = c.data();
  float* sp = s.data();
  ScaleSums sums;
  for (int wave = 0; wave < map.height; wave += kWaveRows) {
    const int rows = std::min(kWaveRows, map.height - wave);
    const int strips = (rows + kStripRows - 1) / kStripRows;
    run_rows(pool, strips, 1, [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) {
        const int y0 = wave + int(i) * kStripRows;
        const int y1 = std::min(y0 + kStripRows, wave + rows);
        const size_t offset = size_t(y0 - wave) * mw;
        lcs_rows(ref, dis, size, y0, y1, lp + offset, cp + offset, sp + offset, k);
      }
    });
    // The sequential raster-order sum (spec 4.3), wave after wave.
    sums.add(lp, cp, sp, size_t(rows) * mw);
  }
  return sums.means(map);
}

}  // namespace vqx::ssim
