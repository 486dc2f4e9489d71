// The bicubic and lanczos4 prescale resamplers of libvmaf's vif_tools.c (vif_scale_frame_s),
// which float_vif offers and speed_chroma refuses. Every operation keeps upstream's types: the
// positions are f64 expressions rounded to f32, the kernels f32 (lanczos4's through f64 sin), and
// each output is the f32 sum of its taps in upstream's order.
#include <cmath>
#include <numbers>

#include "metrics/speed_core/speed_preprocess.h"

namespace vqx::speed {
namespace {

// Upstream's mirror(float i, float left, float right) with left = 0, truncated back to an int.
int mirror_tap(int i, int last) {
  const float f = float(i), right = float(last);
  return int(f < 0.0f ? -f : (f > right ? 2 * right - f : f));
}

// Source position of destination index k: (k + 0.5) * ratio - 0.5 in f64, rounded to f32.
float source_position(uint32_t k, float ratio) {
  return float((double(k) + 0.5) * double(ratio) - 0.5);
}

float bicubic_weight(float t) {
  const float a = -0.75f;
  if (t < 0) t = -t;
  if (t < 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < 2) return (((t - 5) * t + 8) * t - 4) * a;
  return 0;
}

float lanczos4_weight(float x, float a) {
  constexpr double kPi = std::numbers::pi;
  if (x == 0.0) return 1.0f;
  if (x > -a && x < a)
    return float(double(a) * std::sin(kPi * double(x)) * std::sin(kPi * double(x) / double(a)) /
                 (kPi * kPi * double(x) * double(x)));
  return 0.0f;
}

// One destination sample from the (2 radius) x (2 radius) taps around (x, y); `normalise`
// divides by the f32 sum of the weights (lanczos4), as upstream.
template <int kRadius, typename Weight>
float interpolate(const Image& in, float x, float y, Weight weight, bool normalise) {
  const int x0 = int(std::floor(double(x))), y0 = int(std::floor(double(y)));
  const float dx = x - float(x0), dy = y - float(y0);
  constexpr int kFirst = kRadius == 2 ? -1 : -kRadius;
  constexpr int kLast = kRadius;
  constexpr int kTaps = kLast - kFirst + 1;
  float wx[kTaps], wy[kTaps];
  for (int i = kFirst; i <= kLast; ++i) {
    wx[i - kFirst] = weight(float(i) - dx);
    wy[i - kFirst] = weight(float(i) - dy);
  }
  float value = 0.0f, weight_sum = 0.0f;
  for (int j = kFirst; j <= kLast; ++j)
    for (int i = kFirst; i <= kLast; ++i) {
      const float w = wx[i - kFirst] * wy[j - kFirst];
      weight_sum += w;
      const int xi = mirror_tap(x0 + i, int(in.w) - 1), yi = mirror_tap(y0 + j, int(in.h) - 1);
      value += in.at(uint32_t(yi), uint32_t(xi)) * w;
    }
  return normalise ? value / weight_sum : value;
}

template <int kRadius, typename Weight>
void resample(const Image& in, uint32_t sw, uint32_t sh, Weight weight, bool normalise,
              Image& out) {
  out.resize(sw, sh);
  const float rx = float(in.w) / float(sw), ry = float(in.h) / float(sh);
  for (uint32_t y = 0; y < sh; ++y) {
    const float yy = source_position(y, ry);
    for (uint32_t x = 0; x < sw; ++x)
      out.row(y)[x] = interpolate<kRadius>(in, source_position(x, rx), yy, weight, normalise);
  }
}

}  // namespace

void bicubic_resample(const Image& in, uint32_t sw, uint32_t sh, Image& out) {
  resample<2>(in, sw, sh, bicubic_weight, false, out);
}

void lanczos4_resample(const Image& in, uint32_t sw, uint32_t sh, Image& out) {
  resample<4>(
      in, sw, sh, [](float t) { return lanczos4_weight(t, 4.0f); }, true, out);
}

}  // namespace vqx::speed
