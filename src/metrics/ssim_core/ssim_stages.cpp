// Plain twins of the MS-SSIM / SSIM stages (shared/spec/ms_ssim.md), in the reference order.
#include "metrics/ssim_core/ssim_stages.h"

#include <cmath>
#include <limits>

namespace vqx::ssim {

const float kAlpha[kScales] = {0.0f, 0.0f, 0.0f, 0.0f, 0.1333f};
const float kBeta[kScales] = {0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f};

// ---- Stage 1
// --------------------------------------------------------------------------------------

namespace {
template <typename Sample>
void convert_plane(const Sample* in, size_t n, float divisor, float* out) {
  // f32(v) / 2^(bpc-8): a power-of-two division, exact (spec section 1).
  for (size_t i = 0; i < n; ++i) out[i] = float(in[i]) / divisor;
}
}  // namespace

void convert_luma(const Picture& picture, float* out) {
  const PictureFormat& f = picture.format();
  const size_t n = size_t(f.width) * f.height;
  const float divisor = float(1u << (f.bit_depth - 8));
  if (f.bit_depth > 8)
    convert_plane(picture.plane<uint16_t>(0), n, divisor, out);
  else
    convert_plane(picture.plane<uint8_t>(0), n, divisor, out);
}

// ---- Stage 2
// --------------------------------------------------------------------------------------

void decimate_plain(const float* in, Size size, float* out) {
  const Size half = half_size(size);
  for (int y = 0; y < half.height; ++y) {
    for (int x = 0; x < half.width; ++x) {
      double sum = 0.0;
      for (int v = -kLpfRadius; v <= kLpfRadius; ++v) {
        const float* row = in + size_t(reflect(2 * y + v, size.height)) * size.width;
        for (int u = -kLpfRadius; u <= kLpfRadius; ++u) {
          // f32 product, rounded, then widened and added in f64 (spec 3.3).
          const float p =
              row[reflect(2 * x + u, size.width)] * kLpf[v + kLpfRadius][u + kLpfRadius];
          sum += double(p);
        }
      }
      out[size_t(y) * half.width + x] = float(sum);
    }
  }
}

// ---- Stage 3
// --------------------------------------------------------------------------------------

void window_convolve_plain(const float* in, Size size, float* out) {
  const Size map = map_size(size);
  // Horizontal pass over every input row; tmp[r][x] is upstream's cache[r][x+5].
  std::vector<float> tmp(size_t(map.width) * size.height);
  for (int r = 0; r < size.height; ++r) {
    for (int x = 0; x < map.width; ++x) {
      double acc = 0.0;
      for (int t = 0; t < kWindowTaps; ++t)
        acc += double(in[size_t(r) * size.width + x + t] * kGaussian[t]);
      tmp[size_t(r) * map.width + x] = float(acc);
    }
  }
  // Vertical pass.
  for (int y = 0; y < map.height; ++y) {
    for (int x = 0; x < map.width; ++x) {
      double acc = 0.0;
      for (int t = 0; t < kWindowTaps; ++t)
        acc += double(tmp[size_t(y + t) * map.width + x] * kGaussian[t]);
      out[size_t(y) * map.width + x] = float(acc);
    }
  }
}

WindowStatistics window_statistics_plain(const float* ref, const float* dis, Size size) {
  const Size map = map_size(size);
  const size_t n = size.pixels(), m = map.pixels();
  // The products are formed per pixel in f32 over the whole plane, then convolved (spec 4.2).
  std::vector<float> rr(n), dd(n), rd(n);
  for (size_t i = 0; i < n; ++i) {
    rr[i] = ref[i] * ref[i];
    dd[i] = dis[i] * dis[i];
    rd[i] = ref[i] * dis[i];
  }
  WindowStatistics s;
  s.size = map;
  s.mu_r.resize(m);
  s.mu_d.resize(m);
  s.var_r.resize(m);
  s.var_d.resize(m);
  s.cov.resize(m);
  window_convolve_plain(ref, size, s.mu_r.data());
  window_convolve_plain(dis, size, s.mu_d.data());
  window_convolve_plain(rr.data(), size, s.var_r.data());
  window_convolve_plain(dd.data(), size, s.var_d.data());
  window_convolve_plain(rd.data(), size, s.cov.data());
  for (size_t i = 0; i < m; ++i) {
    const PixelStatistics p =
        pixel_statistics(s.mu_r[i], s.mu_d[i], s.var_r[i], s.var_d[i], s.cov[i]);
    s.var_r[i] = p.var_r;
    s.var_d[i] = p.var_d;
    s.cov[i] = p.cov;
  }
  return s;
}

// ---- Stage 4
// --------------------------------------------------------------------------------------

void lcs_terms_plain(const WindowStatistics& st, double* l, double* c, float* s) {
  const size_t m = st.size.pixels();
  for (size_t i = 0; i < m; ++i) {
    const LcsTerm t = lcs_term(st.mu_r[i], st.mu_d[i], st.var_r[i], st.var_d[i], st.cov[i]);
    l[i] = t.l;
    c[i] = t.c;
    s[i] = t.s;
  }
}

// ---- Stage 5
// --------------------------------------------------------------------------------------

void ScaleSums::add(const double* l_terms, const double* c_terms, const float* s_terms, size_t n) {
  // Four independent sequential chains; each keeps upstream's raster order exactly.
  double sl = l, sc = c, ss = s, sssim = ssim;
  for (size_t i = 0; i < n; ++i) {
    const double si = double(s_terms[i]);
    sl += l_terms[i];
    sc += c_terms[i];
    ss += si;
    sssim += l_terms[i] * c_terms[i] * si;  // (l*c)*s in f64, upstream's ssim_sum
  }
  l = sl;
  c = sc;
  s = ss;
  ssim = sssim;
}

ScaleMeans ScaleSums::means(Size map) const {
  // Upstream divides by f64(w*h) of ints; the 64-bit product is the same number wherever upstream's
  // int product does not overflow (maps below 2^31 pixels).
  const double n = double(int64_t{map.width} * map.height);
  return {float(l / n), float(c / n), float(s / n), float(ssim / n)};
}

// ---- Stage 6
// --------------------------------------------------------------------------------------

double combine_scales(const std::array<ScaleMeans, kScales>& means, bool* infinite) {
  double msssim = 1.0;
  *infinite = false;
  for (int k = 0; k < kScales; ++k) {
    const ScaleMeans& m = means[size_t(k)];
    msssim *= std::pow(double(m.l), double(kAlpha[k])) * std::pow(double(m.c), double(kBeta[k])) *
              std::pow(double(m.s), double(kBeta[k]));
    if (msssim == std::numeric_limits<double>::infinity()) {
      *infinite = true;
      break;
    }
  }
  return msssim;
}

double max_db(bool clip_db, unsigned bit_depth, uint32_t width, uint32_t height) {
  if (!clip_db) return std::numeric_limits<double>::infinity();
  const uint32_t peak = (uint32_t{1} << bit_depth) - 1;
  const double mse = 0.5 / double(width * height);  // u32 product, as upstream
  return std::ceil(10. * std::log10(double(peak * peak) / mse));
}

double to_db(double score, double max_db) {
  const double db = -10. * std::log10(1 - score);
  return db < max_db ? db : max_db;
}

// ---- Composition
// ----------------------------------------------------------------------------------

ScaleMeans ssim_scale_plain(const float* ref, const float* dis, Size size) {
  const WindowStatistics st = window_statistics_plain(ref, dis, size);
  const size_t m = st.size.pixels();
  std::vector<double> l(m), c(m);
  std::vector<float> s(m);
  lcs_terms_plain(st, l.data(), c.data(), s.data());
  ScaleSums sums;
  sums.add(l.data(), c.data(), s.data(), m);
  return sums.means(st.size);
}

}  // namespace vqx::ssim
