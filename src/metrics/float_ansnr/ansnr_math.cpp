#include "metrics/float_ansnr/ansnr_math.h"

#include <cmath>

#include "core/thread_pool.h"

namespace vqx::float_ansnr {
namespace {

// Upstream's kernels: f32 roundings of k / 16 and k / 571.
const float kReferenceTaps[9] = {1.0 / 16.0, 2.0 / 16.0, 1.0 / 16.0, 2.0 / 16.0, 4.0 / 16.0,
                                 2.0 / 16.0, 1.0 / 16.0, 2.0 / 16.0, 1.0 / 16.0};
const float kDistortedTaps[25] = {
    2.0 / 571.0,  7.0 / 571.0,  12.0 / 571.0,  7.0 / 571.0,  2.0 / 571.0,
    7.0 / 571.0,  31.0 / 571.0, 52.0 / 571.0,  31.0 / 571.0, 7.0 / 571.0,
    12.0 / 571.0, 52.0 / 571.0, 127.0 / 571.0, 52.0 / 571.0, 12.0 / 571.0,
    7.0 / 571.0,  31.0 / 571.0, 52.0 / 571.0,  31.0 / 571.0, 7.0 / 571.0,
    2.0 / 571.0,  7.0 / 571.0,  12.0 / 571.0,  7.0 / 571.0,  2.0 / 571.0};

int mirror(int i, int size) {
  if (i < 0) return -i;
  if (i >= size) return 2 * size - i - 1;
  return i;
}

}  // namespace

void filter(Kernel kernel, const float* src, int width, int height, float* dst, ThreadPool* pool) {
  const float* taps = kernel == Kernel::kReference3x3 ? kReferenceTaps : kDistortedTaps;
  const int size = kernel == Kernel::kReference3x3 ? 3 : 5;
  auto rows = [&](size_t begin, size_t end) {
    for (int y = int(begin); y < int(end); ++y)
      for (int x = 0; x < width; ++x) {
        float sum = 0;
        for (int u = 0; u < size; ++u) {
          const float* row = src + size_t(mirror(y - size / 2 + u, height)) * width;
          float row_sum = 0;
          for (int v = 0; v < size; ++v)
            row_sum += taps[u * size + v] * row[mirror(x - size / 2 + v, width)];
          sum += row_sum;
        }
        dst[size_t(y) * width + x] = sum;
      }
  };
  if (pool)
    pool->parallel_for(size_t(height), 16, rows);
  else
    rows(0, size_t(height));
}

Energies energies(const float* ref, const float* dis, int width, int height) {
  float signal = 0, noise = 0;
  for (int y = 0; y < height; ++y) {
    const float* r = ref + size_t(y) * width;
    const float* d = dis + size_t(y) * width;
    float row_signal = 0, row_noise = 0;
    for (int x = 0; x < width; ++x) {
      row_signal += r[x] * r[x];
      row_noise += (r[x] - d[x]) * (r[x] - d[x]);
    }
    signal += row_signal;
    noise += row_noise;
  }
  return {signal, noise};
}

Scores scores(const Energies& e, int width, int height, double peak, double psnr_max) {
  const double ansnr = e.noise == 0 ? psnr_max : 10.0 * std::log10(double(e.signal / e.noise));
  const double kEps = 1e-10;
  const double noise = e.noise > kEps ? double(e.noise) : kEps;
  const double anpsnr = 10 * std::log10(peak * peak * width * height / noise);
  return {ansnr, anpsnr < psnr_max ? anpsnr : psnr_max};
}

}  // namespace vqx::float_ansnr
