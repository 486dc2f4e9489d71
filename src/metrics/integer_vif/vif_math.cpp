// Integer VIF stages (shared/spec/vmaf.md section 2). Integer steps are exact, so loops are
// written for the auto-vectoriser; the per-pixel f64 step 3 of 2.5 follows the spec literally.
#include "metrics/integer_vif/vif_math.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <type_traits>

namespace vqx::integer_vif {

const uint16_t kFilter[kScales][17] = {
    {489, 935, 1640, 2640, 3896, 5274, 6547, 7455, 7784, 7455, 6547, 5274, 3896, 2640, 1640, 935,
     489},
    {1244, 3663, 7925, 12590, 14692, 12590, 7925, 3663, 1244},
    {3571, 16004, 26386, 16004, 3571},
    {10904, 43728, 10904},
};

namespace {

// 2.4: round_half_away(2048 * RN32(log2(i))); the spec checked this equals glibc's log2f table,
// including the 80 exact ties (which is why this is not rint()).
std::array<uint16_t, 65536> make_log2_table() {
  std::array<uint16_t, 65536> t{};
  for (uint32_t i = 32767; i <= 65535; ++i) {
    double v = double(float(std::log2(double(i)))) * 2048.0;  // exact product
    t[i] = uint16_t(std::floor(v + 0.5));                     // v > 0: half away from zero
  }
  return t;
}

// 2.3: reflection about the edge sample, which is not repeated. Valid for |overhang| < n.
inline uint32_t mirror(int64_t k, uint32_t n) {
  if (k < 0) return uint32_t(-k);
  if (k >= int64_t(n)) return uint32_t(2 * (int64_t(n) - 1) - k);
  return uint32_t(k);
}

// Pads a row buffer that holds `w` values at [r, r + w) with r mirrored values on each side.
template <typename T>
void mirror_pad(T* row, uint32_t w, int r) {
  for (int k = 1; k <= r; ++k) {
    row[r - k] = row[r + k];
    row[r + w - 1 + k] = row[r + w - 1 - k];
  }
}

// Vertical rounding of 2.5 (sv, cv) for means and (sq, cq) for second moments.
struct VerticalRounding {
  unsigned sv;
  uint32_t cv;
  unsigned sq;
  uint64_t cq;
};
VerticalRounding vertical_rounding(int scale, unsigned bpc) {
  if (scale > 0) return {16, 32768, 16, 32768};
  if (bpc == 8) return {8, 128, 0, 0};
  unsigned sq = 2 * (bpc - 8);
  return {bpc, uint32_t{1} << (bpc - 1), sq, uint64_t{1} << (sq - 1)};
}

// Row buffers for one band of statistic rows; reused per thread.
template <typename Wide>
struct StatScratch {
  std::vector<uint32_t> a1, a2;
  std::vector<Wide> b11, b22, b12;
  std::vector<uint32_t> m1, m2, q11, q22, q12;  // padded by r on both sides
  std::vector<int32_t> s1, s2, s12;
  void resize(uint32_t w, int r) {
    a1.resize(w), a2.resize(w), b11.resize(w), b22.resize(w), b12.resize(w);
    for (auto* v : {&m1, &m2, &q11, &q22, &q12}) v->resize(w + 2 * r);
    s1.resize(w), s2.resize(w), s12.resize(w);
  }
};

constexpr int32_t kNoiseVariance = 131072;  // 2.0 in units of (8-bit sample)^2 = 65536

// 2.5 step 3 for one pixel.
inline void accumulate_pixel(int32_t sigma1, int32_t sigma2, int32_t sigma12, double gain_limit,
                             VifAccumulators& acc) {
  if (sigma1 >= kNoiseVariance) {
    acc.den_log += log2_q11_32(uint32_t(kNoiseVariance + sigma1)) - 2048 * 17;
    if (sigma12 > 0 && sigma2 > 0) {
      const double eps = 65536 * 1.0e-10;
      double g = double(sigma12) / (double(sigma1) + eps);
      int32_t sv = int32_t(double(sigma2) - g * double(sigma12));
      sv = std::max(sv, 0);
      g = std::min(g, gain_limit);
      uint32_t n1 = uint32_t(sv + kNoiseVariance);
      int64_t n2 = int64_t((g * g) * double(sigma1)) + n1;
      acc.num_log += log2_q11_64(uint64_t(n2)) - log2_q11_64(n1);
    }
  } else {
    acc.num_flat += sigma2;
    acc.den_flat += 1;
  }
}

// Wide = uint32_t is exact when every second-moment sum fits (8-bit scale 0, 2.8).
template <typename Wide, typename Sample>
VifAccumulators statistic_rows(const Sample* ref, const Sample* dis, uint32_t w, uint32_t h,
                               int scale, unsigned bpc, double gain_limit, uint32_t row_begin,
                               uint32_t row_end) {
  const int r = kFilterRadius[scale], taps = kFilterTaps[scale];
  const uint16_t* f = kFilter[scale];
  const VerticalRounding vr = vertical_rounding(scale, bpc);
  thread_local StatScratch<Wide> s;
  s.resize(w, r);
  VifAccumulators acc;
  for (uint32_t i = row_begin; i < row_end; ++i) {
    // Vertical pass.
    std::fill(s.a1.begin(), s.a1.end(), 0u);
    std::fill(s.a2.begin(), s.a2.end(), 0u);
    std::fill(s.b11.begin(), s.b11.end(), Wide{0});
    std::fill(s.b22.begin(), s.b22.end(), Wide{0});
    std::fill(s.b12.begin(), s.b12.end(), Wide{0});
    for (int k = 0; k < taps; ++k) {
      uint32_t row = mirror(int64_t(i) - r + k, h);
      const Sample* pr = ref + size_t(row) * w;
      const Sample* pd = dis + size_t(row) * w;
      const uint32_t fk = f[k];
      uint32_t* __restrict a1 = s.a1.data();
      uint32_t* __restrict a2 = s.a2.data();
      Wide* __restrict b11 = s.b11.data();
      Wide* __restrict b22 = s.b22.data();
      Wide* __restrict b12 = s.b12.data();
      for (uint32_t j = 0; j < w; ++j) {
        uint32_t x = pr[j], y = pd[j];
        uint32_t fx = fk * x, fy = fk * y;  // uint32 products (2.5)
        a1[j] += fx;
        a2[j] += fy;
        b11[j] += Wide(fx) * x;
        b22[j] += Wide(fy) * y;
        b12[j] += Wide(fx) * y;
      }
    }
    {
      uint32_t* __restrict m1 = s.m1.data() + r;
      uint32_t* __restrict m2 = s.m2.data() + r;
      uint32_t* __restrict q11 = s.q11.data() + r;
      uint32_t* __restrict q22 = s.q22.data() + r;
      uint32_t* __restrict q12 = s.q12.data() + r;
      for (uint32_t j = 0; j < w; ++j) {
        m1[j] = (s.a1[j] + vr.cv) >> vr.sv;
        m2[j] = (s.a2[j] + vr.cv) >> vr.sv;
        q11[j] = uint32_t((s.b11[j] + Wide(vr.cq)) >> vr.sq);
        q22[j] = uint32_t((s.b22[j] + Wide(vr.cq)) >> vr.sq);
        q12[j] = uint32_t((s.b12[j] + Wide(vr.cq)) >> vr.sq);
      }
    }
    for (auto* v : {&s.m1, &s.m2, &s.q11, &s.q22, &s.q12}) mirror_pad(v->data(), w, r);
    // Horizontal pass and the variances.
    for (uint32_t j = 0; j < w; ++j) {
      uint32_t mu1 = 0, mu2 = 0;
      uint64_t x11 = 0, x22 = 0, x12 = 0;
      for (int k = 0; k < taps; ++k) {
        uint32_t fk = f[k];
        mu1 += fk * s.m1[j + k];
        mu2 += fk * s.m2[j + k];
        x11 += uint64_t(fk) * s.q11[j + k];
        x22 += uint64_t(fk) * s.q22[j + k];
        x12 += uint64_t(fk) * s.q12[j + k];
      }
      uint32_t u11 = uint32_t((uint64_t(mu1) * mu1 + 0x80000000u) >> 32);
      uint32_t u22 = uint32_t((uint64_t(mu2) * mu2 + 0x80000000u) >> 32);
      uint32_t u12 = uint32_t((uint64_t(mu1) * mu2 + 0x80000000u) >> 32);
      uint32_t v11 = uint32_t((x11 + 32768) >> 16);
      uint32_t v22 = uint32_t((x22 + 32768) >> 16);
      uint32_t v12 = uint32_t((x12 + 32768) >> 16);
      s.s1[j] = int32_t(v11 - u11);  // 32-bit wrapping subtraction (2.5)
      s.s2[j] = std::max(int32_t(v22 - u22), 0);
      s.s12[j] = int32_t(v12 - u12);
    }
    for (uint32_t j = 0; j < w; ++j) accumulate_pixel(s.s1[j], s.s2[j], s.s12[j], gain_limit, acc);
  }
  return acc;
}

}  // namespace

const uint16_t* log2_table() {
  static const std::array<uint16_t, 65536> table = make_log2_table();
  return table.data();
}

int32_t log2_q11_32(uint32_t x) {
  int e = 16 - std::countl_zero(x);
  return int32_t(log2_table()[x >> e]) + 2048 * e;
}

int32_t log2_q11_64(uint64_t x) {
  int e = 48 - std::countl_zero(x);
  return int32_t(log2_table()[x >> e]) + 2048 * e;
}

template <typename Sample>
VifAccumulators vif_statistic_rows(const Sample* ref, const Sample* dis, uint32_t w, uint32_t h,
                                   int scale, unsigned bpc, double gain_limit, uint32_t row_begin,
                                   uint32_t row_end) {
  // 2.8: at 8-bit scale 0 every vertical sum fits 32 bits, so narrower lanes are exact.
  if (scale == 0 && bpc == 8)
    return statistic_rows<uint32_t>(ref, dis, w, h, scale, bpc, gain_limit, row_begin, row_end);
  return statistic_rows<uint64_t>(ref, dis, w, h, scale, bpc, gain_limit, row_begin, row_end);
}

VifScaleResult vif_scale_result(const VifAccumulators& acc) {
  // 2.5 step 4: f64 arithmetic in this order, then f32.
  double num = (double(acc.num_log) / 2048.0) +
               (double(acc.den_flat) - ((double(acc.num_flat) / 16384.0) / 65025.0));
  double den = (double(acc.den_log) / 2048.0) + double(acc.den_flat);
  return {float(num), float(den)};
}

template <typename Sample>
void vif_downsample_rows(const Sample* in, uint32_t w, uint32_t h, int from_scale, unsigned bpc,
                         uint16_t* out, uint32_t row_begin, uint32_t row_end) {
  const int next = from_scale + 1;
  const int r = kFilterRadius[next], taps = kFilterTaps[next];
  const uint16_t* f = kFilter[next];
  const unsigned sh = from_scale == 0 ? bpc : 16;
  const uint32_t c = from_scale == 0 ? uint32_t{1} << (bpc - 1) : 32768u;
  const uint32_t out_w = w / 2;
  thread_local std::vector<uint32_t> acc, t;
  acc.resize(w);
  t.resize(w + 2 * r);
  for (uint32_t i = row_begin; i < row_end; ++i) {
    // Only even rows and columns survive the decimation (2.7 step 3), so only they are filtered.
    std::fill(acc.begin(), acc.end(), 0u);
    for (int k = 0; k < taps; ++k) {
      const Sample* p = in + size_t(mirror(int64_t(2 * i) - r + k, h)) * w;
      const uint32_t fk = f[k];
      uint32_t* __restrict a = acc.data();
      for (uint32_t j = 0; j < w; ++j) a[j] += fk * p[j];
    }
    for (uint32_t j = 0; j < w; ++j) t[r + j] = (acc[j] + c) >> sh;
    mirror_pad(t.data(), w, r);
    uint16_t* o = out + size_t(i) * out_w;
    for (uint32_t j = 0; j < out_w; ++j) {
      uint32_t sum = 0;
      for (int k = 0; k < taps; ++k) sum += f[k] * t[2 * j + k];
      o[j] = uint16_t((sum + 32768) >> 16);
    }
  }
}

template VifAccumulators vif_statistic_rows<uint8_t>(const uint8_t*, const uint8_t*, uint32_t,
                                                     uint32_t, int, unsigned, double, uint32_t,
                                                     uint32_t);
template VifAccumulators vif_statistic_rows<uint16_t>(const uint16_t*, const uint16_t*, uint32_t,
                                                      uint32_t, int, unsigned, double, uint32_t,
                                                      uint32_t);
template void vif_downsample_rows<uint8_t>(const uint8_t*, uint32_t, uint32_t, int, unsigned,
                                           uint16_t*, uint32_t, uint32_t);
template void vif_downsample_rows<uint16_t>(const uint16_t*, uint32_t, uint32_t, int, unsigned,
                                            uint16_t*, uint32_t, uint32_t);

}  // namespace vqx::integer_vif
