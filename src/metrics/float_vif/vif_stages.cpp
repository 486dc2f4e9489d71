#include "metrics/float_vif/vif_stages.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/thread_pool.h"
#include "metrics/speed_core/speed_preprocess.h"

namespace vqx::float_vif {

std::vector<float> scale_taps(int scale, float ks32) {
  const int width = speed::filter_size(scale, ks32);
  return speed::gaussian_taps(width, float(width) / 5.0f);
}

namespace {

template <FilterInput kInput>
float input_at(const float* a, const float* b, size_t i) {
  if constexpr (kInput == FilterInput::kPlain)
    return a[i];
  else if constexpr (kInput == FilterInput::kSquare)
    return a[i] * a[i];
  else
    return a[i] * b[i];
}

// Output rows [begin, end) of the filter sampled every `step` rows and columns (1: the full
// filter; 2: the filter followed by decimation, computing only the samples that are kept). Each
// sum is folded from +0 in tap order, the vertical pass first: the loops run tap by tap over a
// row of accumulators so that they vectorise, which leaves every sum's order unchanged.
template <FilterInput kInput>
void filter_rows(const std::vector<float>& taps, const float* a, const float* b, int width,
                 int height, int step, float* out, int out_width, size_t begin, size_t end) {
  const int radius = int(taps.size()) / 2;
  std::vector<float> vertical(static_cast<size_t>(width));
  // Output columns whose taps all lie inside the row need no mirror.
  const int inner_begin = std::min(out_width, (radius + step - 1) / step);
  const int inner_end =
      std::max(inner_begin,
               std::min(out_width, width - 1 - radius >= 0 ? (width - 1 - radius) / step + 1 : 0));
  for (size_t m = begin; m < end; ++m) {
    const int64_t i = int64_t(m) * step;
    std::fill(vertical.begin(), vertical.end(), 0.0f);
    for (size_t k = 0; k < taps.size(); ++k) {
      const size_t row = size_t(speed::mirror_index(i - radius + int64_t(k), height)) * width;
      const float f = taps[k];
      for (int j = 0; j < width; ++j)
        vertical[size_t(j)] = vertical[size_t(j)] + f * input_at<kInput>(a, b, row + j);
    }
    float* dst = out + m * size_t(out_width);
    auto mirrored = [&](int n) {
      float sum = 0;
      for (size_t k = 0; k < taps.size(); ++k)
        sum +=
            taps[k] *
            vertical[size_t(speed::mirror_index(int64_t(n) * step - radius + int64_t(k), width))];
      dst[n] = sum;
    };
    for (int n = 0; n < inner_begin; ++n) mirrored(n);
    for (int n = inner_end; n < out_width; ++n) mirrored(n);
    std::fill(dst + inner_begin, dst + inner_end, 0.0f);
    for (size_t k = 0; k < taps.size(); ++k) {
      const float f = taps[k];
      const int64_t shift = int64_t(k) - radius;
      for (int n = inner_begin; n < inner_end; ++n)
        dst[n] = dst[n] + f * vertical[size_t(int64_t(n) * step + shift)];
    }
  }
}

void run_rows(FilterInput input, const std::vector<float>& taps, const float* a, const float* b,
              int width, int height, int step, float* out, int out_width, int out_height,
              ThreadPool* pool) {
  auto rows = [&](size_t begin, size_t end) {
    switch (input) {
      case FilterInput::kPlain:
        return filter_rows<FilterInput::kPlain>(taps, a, b, width, height, step, out, out_width,
                                                begin, end);
      case FilterInput::kSquare:
        return filter_rows<FilterInput::kSquare>(taps, a, b, width, height, step, out, out_width,
                                                 begin, end);
      case FilterInput::kProduct:
        return filter_rows<FilterInput::kProduct>(taps, a, b, width, height, step, out, out_width,
                                                  begin, end);
    }
  };
  if (pool)
    pool->parallel_for(size_t(out_height), 16, rows);
  else
    rows(0, size_t(out_height));
}

}  // namespace

void filter(FilterInput input, const std::vector<float>& taps, const float* a, const float* b,
            int width, int height, float* out, ThreadPool* pool) {
  run_rows(input, taps, a, b, width, height, 1, out, width, height, pool);
}

void filter_and_decimate(const std::vector<float>& taps, const float* in, int width, int height,
                         float* out, ThreadPool* pool) {
  run_rows(FilterInput::kPlain, taps, in, nullptr, width, height, 2, out, width / 2, height / 2,
           pool);
}

void decimate(const float* in, int width, int height, float* out) {
  const int w = width / 2, h = height / 2;
  for (int i = 0; i < h; ++i)
    for (int j = 0; j < w; ++j) out[size_t(i) * w + j] = in[size_t(2 * i) * width + 2 * j];
}

float fast_log2(float x) {
  // Upstream's coefficients (double literals rounded to f32), highest degree first.
  static const float kPoly[9] = {-0.012671635276421, 0.064841182402670,  -0.157048836463065,
                                 0.257167726303123,  -0.353800560300520, 0.480131410397451,
                                 -0.721314327952201, 1.442694803896991,  0};
  if (x == 0) return -INFINITY;
  if (x < 0) return NAN;
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const uint32_t exponent = (bits & 0x7F800000u) >> 23;
  const uint32_t mantissa_bits = (bits & 0x007FFFFFu) | 0x3F800000u;
  float mantissa;
  std::memcpy(&mantissa, &mantissa_bits, sizeof mantissa);
  const float base = float(int32_t(exponent) - 127);
  const float t = mantissa - 1.0f;
  float poly = 0;
  for (float c : kPoly) poly = poly * t + c;
  return base + poly;
}

ScaleSums statistic(const float* mu1, const float* mu2, const float* xx, const float* yy,
                    const float* xy, int width, int height, double enhn_gain_limit,
                    double sigma_nsq) {
  // powf(nsq, 2) is the compiler's exact-rounded f32 square; the division promotes to f64.
  const float nsq32 = float(sigma_nsq);
  const float sigma_max_inv = float(double(nsq32 * nsq32) / (255.0 * 255.0));
  const float eps = 1.0e-10f;
  const float gain_limit = float(enhn_gain_limit);
  float num = 0.0f, den = 0.0f;
  for (int i = 0; i < height; ++i) {
    float row_num = 0, row_den = 0;
    for (int j = 0; j < width; ++j) {
      const size_t k = size_t(i) * width + j;
      const float m1 = mu1[k], m2 = mu2[k];
      float sigma1_sq = xx[k] - m1 * m1;
      float sigma2_sq = yy[k] - m2 * m2;
      const float sigma12 = xy[k] - m1 * m2;
      sigma1_sq = sigma1_sq > 0.0f ? sigma1_sq : 0.0f;
      sigma2_sq = sigma2_sq > 0.0f ? sigma2_sq : 0.0f;
      float g = sigma12 / (sigma1_sq + eps);
      float sv_sq = sigma2_sq - g * sigma12;
      if (sigma1_sq < eps) {
        g = 0.0f;
        sv_sq = sigma2_sq;
        sigma1_sq = 0.0f;
      }
      if (sigma2_sq < eps) {
        g = 0.0f;
        sv_sq = 0.0f;
      }
      if (g < 0.0f) {
        sv_sq = sigma2_sq;
        g = 0.0f;
      }
      sv_sq = sv_sq > eps ? sv_sq : eps;
      g = g < gain_limit ? g : gain_limit;
      float num_val =
          fast_log2(float(1.0f + double(g * g * sigma1_sq) / (double(sv_sq) + sigma_nsq)));
      float den_val = fast_log2(float(1.0f + double(sigma1_sq) / sigma_nsq));
      if (sigma12 < 0.0f) num_val = 0.0f;
      if (sigma1_sq < sigma_nsq) {
        num_val = 1.0f - sigma2_sq * sigma_max_inv;
        den_val = 1.0f;
      }
      row_num += num_val;
      row_den += den_val;
    }
    num += row_num;
    den += row_den;
  }
  return {num, den};
}

}  // namespace vqx::float_vif
