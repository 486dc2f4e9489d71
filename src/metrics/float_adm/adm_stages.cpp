#include "metrics/float_adm/adm_stages.h"

#include <cmath>
#include <cstdint>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "core/thread_pool.h"

namespace vqx::float_adm {
namespace {

constexpr double kBorderFactor = 0.1;
constexpr size_t kRowGrain = 8;

// Upstream's db2 taps, double literals rounded to f32.
const float kLow[4] = {0.482962913144690, 0.836516303737469, 0.224143868041857, -0.129409522550921};
const float kHigh[4] = {-0.129409522550921, -0.224143868041857, 0.836516303737469,
                        -0.482962913144690};

// The four source indices of output k: 2k - 1 .. 2k + 2, mirrored as -t below 0 and 2n - 1 - t
// at or past n (upstream repeats the last sample, but not the first).
void dwt_indices(int n, int k, int out[4]) {
  for (int t = 0; t < 4; ++t) {
    int i = 2 * k - 1 + t;
    if (i < 0)
      i = -i;
    else if (i >= n)
      i = 2 * n - i - 1;
    out[t] = i;
  }
}

float fold4(const float taps[4], float s0, float s1, float s2, float s3) {
  float sum = 0;
  sum += taps[0] * s0;
  sum += taps[1] * s1;
  sum += taps[2] * s2;
  sum += taps[3] * s3;
  return sum;
}

// Neighbour index for the masking: -1 -> 1 at the start, n -> n - 1 at the end.
int neighbour(int i, int n) { return i < 0 ? -i : (i >= n ? n - 1 : i); }

float pooled_power(float x, double p_norm) {
  if (p_norm == 3.0) return x * x * x;
  return std::pow(x, float(p_norm));
}

float noise_term(int w, int h, double weight, double p_norm) {
  return std::pow(float(w * h * weight), float(1.0f / p_norm));
}

// Per-row f32 sums of each detail band, computed in parallel, folded in row order.
template <typename RowSums>
void pool_rows(const Region& r, float accum[3], ThreadPool* pool, RowSums row_sums) {
  const int rows = r.bottom - r.top;
  if (rows <= 0) return;
  std::vector<float> partial(size_t(rows) * 3);
  auto body = [&](size_t begin, size_t end) {
    for (size_t k = begin; k < end; ++k) row_sums(r.top + int(k), &partial[k * 3]);
  };
  if (pool)
    pool->parallel_for(size_t(rows), kRowGrain, body);
  else
    body(0, size_t(rows));
  for (int k = 0; k < rows; ++k)
    for (int b = 0; b < 3; ++b) accum[b] += partial[size_t(k) * 3 + b];
}

}  // namespace

// DIVS(n, d) of upstream's x86-64 build (adm_tools.c with ADM_OPT_RECIP_DIVISION under __SSE2__).
// RCPSS is an approximation whose bits are the CPU's (vendors differ); using the instruction
// itself reproduces upstream on the same machine. Builds without SSE2 divide, as upstream's do.
float quotient(float n, float d) {
#if defined(__SSE2__)
  const float xi = _mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(d)));
  return n * (xi + xi * (1.0f - d * xi));
#else
  return n / d;
#endif
}

void Bands::resize(int width, int height) {
  w = width;
  h = height;
  for (auto* band : {&a, &hor, &ver, &diag}) band->assign(size_t(width) * height, 0.0f);
}

void dwt2(const float* src, int w, int h, bool approximation_only, Bands& out, ThreadPool* pool) {
  const int ow = (w + 1) / 2, oh = (h + 1) / 2;
  out.resize(ow, oh);
  std::vector<int> cols(size_t(ow) * 4);
  for (int j = 0; j < ow; ++j) dwt_indices(w, j, &cols[size_t(j) * 4]);
  auto rows = [&](size_t begin, size_t end) {
    std::vector<float> low(static_cast<size_t>(w)), high(static_cast<size_t>(w));
    for (size_t i = begin; i < end; ++i) {
      int r[4];
      dwt_indices(h, int(i), r);
      for (int j = 0; j < w; ++j) {
        const float s0 = src[size_t(r[0]) * w + j], s1 = src[size_t(r[1]) * w + j];
        const float s2 = src[size_t(r[2]) * w + j], s3 = src[size_t(r[3]) * w + j];
        low[size_t(j)] = fold4(kLow, s0, s1, s2, s3);
        if (!approximation_only) high[size_t(j)] = fold4(kHigh, s0, s1, s2, s3);
      }
      for (int j = 0; j < ow; ++j) {
        const int* c = &cols[size_t(j) * 4];
        const size_t o = i * size_t(ow) + j;
        out.a[o] = fold4(kLow, low[c[0]], low[c[1]], low[c[2]], low[c[3]]);
        if (approximation_only) continue;
        out.ver[o] = fold4(kHigh, low[c[0]], low[c[1]], low[c[2]], low[c[3]]);
        out.hor[o] = fold4(kLow, high[c[0]], high[c[1]], high[c[2]], high[c[3]]);
        out.diag[o] = fold4(kHigh, high[c[0]], high[c[1]], high[c[2]], high[c[3]]);
      }
    }
  };
  if (pool)
    pool->parallel_for(size_t(oh), kRowGrain, rows);
  else
    rows(0, size_t(oh));
}

Region filter_region(int w, int h) {
  // Upstream computes right and bottom from the unclamped left and top.
  const int left = int(w * kBorderFactor - 0.5 - 1), top = int(h * kBorderFactor - 0.5 - 1);
  Region r{left, top, w - left + 2, h - top + 2};
  if (r.left < 0) r.left = 0;
  if (r.right > w) r.right = w;
  if (r.top < 0) r.top = 0;
  if (r.bottom > h) r.bottom = h;
  return r;
}

Region score_region(int w, int h) {
  const int left = int(w * kBorderFactor - 0.5), top = int(h * kBorderFactor - 0.5);
  return {left, top, w - left, h - top};
}

void decouple(const Bands& ref, const Bands& dis, double enhn_gain_limit, Bands& r, Bands& a,
              ThreadPool* pool) {
  // cos(1 degree)^2, folded by the compiler from the f64 expression, rounded to f32.
  const float cos_1deg_sq = float(std::cos(1.0 * M_PI / 180.0) * std::cos(1.0 * M_PI / 180.0));
  const float eps = 1e-30f;
  const Region reg = filter_region(ref.w, ref.h);
  r.resize(ref.w, ref.h);
  a.resize(ref.w, ref.h);
  // Upstream's MIN / MAX of the f64 product and the f32 detail, rounded back to f32.
  auto restore = [&](float rst, float t, bool same_angle) {
    if (same_angle && rst > 0.0) {
      const double grown = rst * enhn_gain_limit;
      rst = float(grown < t ? grown : double(t));
    }
    if (same_angle && rst < 0.0) {
      const double grown = rst * enhn_gain_limit;
      rst = float(grown > t ? grown : double(t));
    }
    return rst;
  };
  auto rows = [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i)
      for (int j = reg.left; j < reg.right; ++j) {
        const size_t k = (size_t(reg.top) + i) * size_t(ref.w) + j;
        const float oh = ref.hor[k], ov = ref.ver[k], od = ref.diag[k];
        const float th = dis.hor[k], tv = dis.ver[k], td = dis.diag[k];
        auto gain = [&](float t, float o) {
          const float g = quotient(t, o + eps);
          return g < 0.0f ? 0.0f : (g > 1.0f ? 1.0f : g);
        };
        const float kh = gain(th, oh), kv = gain(tv, ov), kd = gain(td, od);
        // Angle test without atan: (o.t >= 0) and (o.t)^2 >= cos^2(1 deg) |o|^2 |t|^2.
        const float ot_dp = oh * th + ov * tv;
        const float o_mag_sq = oh * oh + ov * ov;
        const float t_mag_sq = th * th + tv * tv;
        const bool same_angle =
            (ot_dp >= 0.0f) && (ot_dp * ot_dp >= cos_1deg_sq * o_mag_sq * t_mag_sq);
        const float rh = restore(kh * oh, th, same_angle);
        const float rv = restore(kv * ov, tv, same_angle);
        const float rd = restore(kd * od, td, same_angle);
        r.hor[k] = rh;
        r.ver[k] = rv;
        r.diag[k] = rd;
        a.hor[k] = th - rh;
        a.ver[k] = tv - rv;
        a.diag[k] = td - rd;
      }
  };
  const size_t n = size_t(reg.bottom > reg.top ? reg.bottom - reg.top : 0);
  if (pool)
    pool->parallel_for(n, kRowGrain, rows);
  else
    rows(0, n);
}

void csf(const Bands& src, const CsfFactors& f, Bands& out, Bands& masker) {
  const Region reg = filter_region(src.w, src.h);
  out.resize(src.w, src.h);
  masker.resize(src.w, src.h);
  const std::vector<float>* in[3] = {&src.hor, &src.ver, &src.diag};
  std::vector<float>* dst[3] = {&out.hor, &out.ver, &out.diag};
  std::vector<float>* flt[3] = {&masker.hor, &masker.ver, &masker.diag};
  const float factor[3] = {f.hv, f.hv, f.d};
  for (int b = 0; b < 3; ++b)
    for (int i = reg.top; i < reg.bottom; ++i)
      for (int j = reg.left; j < reg.right; ++j) {
        const size_t k = size_t(i) * src.w + j;
        const float v = factor[b] * (*in[b])[k];
        (*dst[b])[k] = v;
        (*flt[b])[k] = float(0.0333333351 * double(std::fabs(v)));
      }
}

float den_scale(const Bands& ref, const CsfFactors& f, double p_norm, double noise_weight) {
  const Region reg = score_region(ref.w, ref.h);
  float accum[3] = {0, 0, 0};
  pool_rows(reg, accum, nullptr, [&](int i, float* sums) {
    float s[3] = {0, 0, 0};
    for (int j = reg.left; j < reg.right; ++j) {
      const size_t k = size_t(i) * ref.w + j;
      s[0] += pooled_power(std::fabs(f.hv * ref.hor[k]), p_norm);
      s[1] += pooled_power(std::fabs(f.hv * ref.ver[k]), p_norm);
      s[2] += pooled_power(std::fabs(f.d * ref.diag[k]), p_norm);
    }
    for (int b = 0; b < 3; ++b) sums[b] = s[b];
  });
  const float noise = noise_term(reg.right - reg.left, reg.bottom - reg.top, noise_weight, p_norm);
  float total[3];
  for (int b = 0; b < 3; ++b) total[b] = std::pow(accum[b], float(1.0f / p_norm)) + noise;
  return total[0] + total[1] + total[2];
}

float masked_pool(const Bands& src, const Bands& weighted, const Bands& masker, const CsfFactors& f,
                  bool bypass_cm, double p_norm, double noise_weight, ThreadPool* pool) {
  const int w = src.w, h = src.h;
  const Region reg = score_region(w, h);
  // Upstream's loops visit the score region clamped to the band, rows and columns in order.
  Region visited{reg.left < 0 ? 0 : reg.left, reg.top < 0 ? 0 : reg.top,
                 reg.right > w ? w : reg.right, reg.bottom > h ? h : reg.bottom};
  const std::vector<float>* centre[3] = {&weighted.hor, &weighted.ver, &weighted.diag};
  const std::vector<float>* around[3] = {&masker.hor, &masker.ver, &masker.diag};
  auto threshold = [&](int i, int j) {
    float t = 0;
    for (int b = 0; b < 3; ++b) {
      float sum = 0;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const size_t k = size_t(neighbour(i + dy, h)) * w + neighbour(j + dx, w);
          if (dy == 0 && dx == 0)
            sum = float(sum + 0.0666666701 * double(std::fabs((*centre[b])[size_t(i) * w + j])));
          else
            sum += (*around[b])[k];
        }
      t += sum;
    }
    return t;
  };
  float accum[3] = {0, 0, 0};
  pool_rows(visited, accum, pool, [&](int i, float* sums) {
    float s[3] = {0, 0, 0};
    for (int j = visited.left; j < visited.right; ++j) {
      const size_t k = size_t(i) * w + j;
      const float t = bypass_cm ? 0.0f : threshold(i, j);
      float x[3] = {src.hor[k] * f.hv, src.ver[k] * f.hv, src.diag[k] * f.d};
      for (int b = 0; b < 3; ++b) {
        x[b] = std::fabs(x[b]) - t;
        x[b] = x[b] < 0.0f ? 0.0f : x[b];
        s[b] += pooled_power(x[b], p_norm);
      }
    }
    for (int b = 0; b < 3; ++b) sums[b] = s[b];
  });
  const float noise = noise_term(reg.right - reg.left, reg.bottom - reg.top, noise_weight, p_norm);
  float total[3];
  for (int b = 0; b < 3; ++b) total[b] = std::pow(accum[b], float(1.0f / p_norm)) + noise;
  return total[0] + total[1] + total[2];
}

}  // namespace vqx::float_adm
