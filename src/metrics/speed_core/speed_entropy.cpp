#include "metrics/speed_core/speed_entropy.h"

#include <cmath>
#include <stdexcept>

namespace vqx::speed {

void block_variances(const std::vector<float>& x, const std::vector<float>& y, size_t nb,
                     std::vector<float>& var) {
  var.resize(nb);
  for (size_t b = 0; b < nb; ++b) {
    // Divide each term by 25, then fold starting from the first term (not from +0).
    float s = (x[b] * y[b]) / 25.0f;
    for (int r = 1; r < kDim; ++r) {
      const size_t i = size_t(r) * nb + b;
      s = s + (x[i] * y[i]) / 25.0f;
    }
    var[b] = s;
  }
}

void block_entropies(const Eigenvalues& ev, const std::vector<float>& var, float sigma,
                     std::vector<float>& ent) {
  ent.resize(var.size());
  float lambda[kDim];
  for (int k = 0; k < kDim; ++k) {
    const float l = ev.lambda[size_t(k)];
    lambda[k] = l >= 0.0f ? l : 0.0f;
  }
  for (size_t b = 0; b < var.size(); ++b) {
    float acc = 0.0f;
    for (int k = 0; k < kDim; ++k) {
      const float u = (lambda[k] * var[b]) + sigma;
      acc = float(double(acc) + (std::log2(double(u)) + kLog2TwoPiE));  // glibc log2 (11.2)
    }
    ent[b] = acc;
  }
}

float entropy_threshold(float sigma, float nn_floor) {
  const float floor_sigma = (1.0f + nn_floor) * sigma;
  return float(25.0 * (std::log2(double(floor_sigma)) + kLog2TwoPiE));
}

namespace {

// Weight arguments of 9.2: an f32 sum 1 + V, or an f64 expression, widened to f64 for log2.
inline double one_plus(float v) { return double(1.0f + v); }

}  // namespace

float plane_score(const ImageStats& ref, const ImageStats& dis, float threshold, int wvm) {
  const size_t nb = ref.ent.size();
  float acc = 0.0f;
  for (size_t b = 0; b < nb; ++b) {
    const float er = ref.ent[b], ed = dis.ent[b];
    if (er < threshold && ed < threshold) continue;  // skipped, still counted in nb
    const float vr = ref.var[b], vd = dis.var[b];
    double wr, wd;
    switch (wvm) {
      case 0:
        wr = one_plus(vr), wd = one_plus(vd);
        break;
      case 1:
        wr = one_plus(vr), wd = one_plus(vr);
        break;
      case 2:
        wr = one_plus(vd), wd = one_plus(vd);
        break;
      case 3:
        wr = wd = 1.0 + double(vr + vd) / 2.0;
        break;
      case 4:
        wr = one_plus(vr), wd = 1.0 + double(vr + vd) / 2.0;
        break;
      // Mode 5/6 (v1 uses 5): the ref argument is an f32 sum, the dis one entirely f64.
      case 5:
        wr = one_plus(vr), wd = 1.0 + ((0.75 * double(vr)) + (0.25 * double(vd)));
        break;
      case 6:
        wr = one_plus(vr), wd = 1.0 + ((0.25 * double(vr)) + (0.75 * double(vd)));
        break;
      default:
        throw std::logic_error("speed_chroma: weight_var_mode out of range");
    }
    const float r = float(double(er) * std::log2(wr));
    const float d = float(double(ed) * std::log2(wd));
    acc = acc + std::fabs(r - d);
  }
  return acc / float(nb);
}

PlaneResult plane_result(const ImageStats& ref, const ImageStats& dis, float threshold, int wvm) {
  PlaneResult out;
  out.failed = ref.failed || dis.failed;
  out.score = ref.failed != dis.failed ? 0.0f : plane_score(ref, dis, threshold, wvm);
  return out;
}

ChromaScores combine_planes(const PlaneResult& u, const PlaneResult& v, double max_val) {
  float uv;
  if (u.failed && !v.failed)
    uv = v.score;
  else if (v.failed && !u.failed)
    uv = u.score;
  else
    uv = float(double(u.score + v.score) / 2.0);
  auto clip = [max_val](float s) { return double(s) < max_val ? double(s) : max_val; };
  return {clip(u.score), clip(v.score), clip(uv)};
}

}  // namespace vqx::speed
