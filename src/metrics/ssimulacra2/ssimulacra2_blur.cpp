// The recursive Gaussian of SSIMULACRA 2 (Charalampidis 2016, three poles; shared/spec/
// ssimulacra2.md section 6): coefficients, the plain one-line recurrence, and fast kernels that run
// eight lines at once in the lanes of a vector. Every lane performs exactly the operations of the
// plain recurrence in the same order, so the fast kernels give the same bits (ssimulacra2_blur_test).
#include <cmath>
#include <cstring>
#include <vector>

#include "metrics/ssimulacra2/ssimulacra2_core.h"

// The 32-byte lane type only crosses functions internal to this file; its ABI does not matter.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace vqx::ssimulacra2 {

// ---- 6.1 coefficients --------------------------------------------------------------------------

const BlurCoefficients& blur_coefficients() {
  // Hard-coded f32 bit patterns of 6.1; the fork (Cramer's rule) and libjxl (adjugate) derive
  // betas that differ in the last f64 bit but round to these same floats.
  static const BlurCoefficients kCoefficients = {
      {std::bit_cast<float>(0x3d627d42u), std::bit_cast<float>(0xbd70febdu),
       std::bit_cast<float>(0x3c5444a5u)},
      {std::bit_cast<float>(0xbff37871u), std::bit_cast<float>(0xbf967918u),
       std::bit_cast<float>(0xa50d3132u)},  // d1 of pole 5 is -1.2e-16, cos(pi/2) in f64
  };
  return kCoefficients;
}

BlurCoefficients blur_coefficients_derivation(double* beta_dot_p) {
  const double sigma = 1.5;
  const double pi = 3.14159265358979323846;
  const double n = std::round(3.2795 * sigma + 0.2546);
  const double mul = pi / (2.0 * n);
  const double w[3] = {mul, 3.0 * mul, 5.0 * mul};
  const double p[3] = {1.0 / std::tan(0.5 * w[0]), -1.0 / std::tan(0.5 * w[1]),
                       1.0 / std::tan(0.5 * w[2])};
  const double r[3] = {p[0] * p[0] / std::sin(w[0]), -p[1] * p[1] / std::sin(w[1]),
                       p[2] * p[2] / std::sin(w[2])};
  double rho[3];
  for (int k = 0; k < 3; ++k)
    rho[k] = std::exp(-0.5 * sigma * sigma * w[k] * w[k]) * (1.0 / n);
  const double d13 = p[0] * r[1] - r[0] * p[1];
  const double d35 = p[1] * r[2] - r[1] * p[2];
  const double d51 = p[2] * r[0] - r[2] * p[0];
  const double inv_d13 = 1.0 / d13;
  const double zeta15 = d35 * inv_d13;
  const double zeta35 = d51 * inv_d13;
  // [p1 p3 p5; r1 r3 r5; z15 z35 1] * beta = rhs, by Cramer's rule.
  const double a[3][3] = {{p[0], p[1], p[2]}, {r[0], r[1], r[2]}, {zeta15, zeta35, 1.0}};
  const double rhs[3] = {1.0, n * n - sigma * sigma, zeta15 * rho[0] + zeta35 * rho[1] + rho[2]};
  auto det3 = [](const double m[3][3]) {
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
           m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  };
  const double det = det3(a);
  double beta[3];
  for (int k = 0; k < 3; ++k) {
    double m[3][3];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) m[i][j] = j == k ? rhs[i] : a[i][j];
    beta[k] = det3(m) / det;
  }
  if (beta_dot_p) *beta_dot_p = beta[0] * p[0] + beta[1] * p[1] + beta[2] * p[2];
  BlurCoefficients c{};
  for (int k = 0; k < 3; ++k) {
    c.n2[k] = float(-beta[k] * std::cos(w[k] * (n + 1.0)));
    c.d1[k] = float(-2.0 * std::cos(w[k]));
  }
  return c;
}

// ---- 6.2 / 6.3 plain twins ---------------------------------------------------------------------

void blur_line_reference(const float* in, size_t in_stride, float* out, size_t out_stride,
                         size_t n) {
  const BlurCoefficients& c = blur_coefficients();
  float prev1[3] = {0, 0, 0}, prev2[3] = {0, 0, 0};
  const long len = long(n);
  for (long t = -kBlurRadius + 1; t < len; ++t) {
    const long ia = t - kBlurRadius - 1, ib = t + kBlurRadius - 1;
    const float a = ia >= 0 ? in[size_t(ia) * in_stride] : 0.0f;
    const float b = ib < len ? in[size_t(ib) * in_stride] : 0.0f;
    const float sum = a + b;
    float o[3];
    for (int k = 0; k < 3; ++k) {
      o[k] = ((c.n2[k] * sum) - (c.d1[k] * prev1[k])) - prev2[k];
      prev2[k] = prev1[k];
      prev1[k] = o[k];
    }
    if (t >= 0) out[size_t(t) * out_stride] = (o[0] + o[1]) + o[2];
  }
}

void blur_plane_reference(const float* in, float* temp, float* out, uint32_t w, uint32_t h) {
  for (uint32_t y = 0; y < h; ++y) blur_line_reference(in + size_t{y} * w, 1, temp + size_t{y} * w, 1, w);
  for (uint32_t x = 0; x < w; ++x) blur_line_reference(temp + x, w, out + x, w, h);
}

// ---- fast kernels ------------------------------------------------------------------------------

namespace {

// Eight f32 lanes. GCC lowers each operator to element-wise IEEE operations (two SSE instructions
// without AVX); no lane ever sees another lane's data.
using Lanes = float __attribute__((vector_size(32)));
constexpr uint32_t kLanes = 8;

inline Lanes splat(float v) { return Lanes{v, v, v, v, v, v, v, v}; }

// One step of the three-pole recurrence on eight lines; returns (o1 + o3) + o5.
struct Recurrence {
  Lanes n2[3], d1[3];
  Lanes prev1[3], prev2[3];

  Recurrence() {
    const BlurCoefficients& c = blur_coefficients();
    for (int k = 0; k < 3; ++k) {
      n2[k] = splat(c.n2[k]);
      d1[k] = splat(c.d1[k]);
      prev1[k] = splat(0.0f);
      prev2[k] = splat(0.0f);
    }
  }
  inline Lanes step(Lanes sum) {
    Lanes o[3];
    for (int k = 0; k < 3; ++k) {
      o[k] = ((n2[k] * sum) - (d1[k] * prev1[k])) - prev2[k];
      prev2[k] = prev1[k];
      prev1[k] = o[k];
    }
    return (o[0] + o[1]) + o[2];
  }
};

// Line buffer for the horizontal pass: slot 10 + x holds the eight rows' sample x, slots
// [0, 10) and [10 + w, 14 + w) are the zero padding on either side.
constexpr size_t kLeadPad = 10, kTailPad = 4;

std::vector<Lanes>& line_buffer(size_t w) {
  thread_local std::vector<Lanes> buffer;
  if (buffer.size() < w + kLeadPad + kTailPad) buffer.resize(w + kLeadPad + kTailPad);
  return buffer;
}

// Runs the recurrence along the buffer. Output t is written to slot t + 4, the slot that held
// in[t - 6], which is read for the last time at step t.
void run_rows(Lanes* buf, uint32_t w) {
  Recurrence rec;
  const long len = long(w);
  for (long t = -kBlurRadius + 1; t < len; ++t) {
    Lanes* a = buf + (t + 4);   // in[t - 6]
    const Lanes sum = *a + buf[t + 14];  // + in[t + 4]
    const Lanes o = rec.step(sum);
    if (t >= 0) *a = o;
  }
}

// Horizontal pass on the rows [y, y + rows) (rows <= 8) of `src` (or of src*src2), into `dst`.
template <bool kProduct>
void blur_row_block(const float* src, const float* src2, float* dst, uint32_t w, uint32_t y,
                    uint32_t rows) {
  std::vector<Lanes>& storage = line_buffer(w);
  Lanes* buf = storage.data();
  const Lanes zero = splat(0.0f);
  for (size_t i = 0; i < kLeadPad; ++i) buf[i] = zero;
  for (size_t i = 0; i < kTailPad; ++i) buf[kLeadPad + w + i] = zero;
  if (rows < kLanes)
    for (uint32_t x = 0; x < w; ++x) buf[kLeadPad + x] = zero;
  for (uint32_t r = 0; r < rows; ++r) {
    const size_t row = size_t{y + r} * w;
    if constexpr (kProduct) {
      for (uint32_t x = 0; x < w; ++x) buf[kLeadPad + x][r] = src[row + x] * src2[row + x];
    } else {
      for (uint32_t x = 0; x < w; ++x) buf[kLeadPad + x][r] = src[row + x];
    }
  }
  run_rows(buf, w);
  for (uint32_t r = 0; r < rows; ++r) {
    float* out = dst + size_t{y + r} * w;
    for (uint32_t x = 0; x < w; ++x) out[x] = buf[4 + x][r];
  }
}

template <bool kProduct>
void blur_rows(const float* src, const float* src2, float* dst, uint32_t w, uint32_t y0,
               uint32_t y1) {
  for (uint32_t y = y0; y < y1; y += kLanes) {
    const uint32_t rows = y1 - y < kLanes ? y1 - y : kLanes;
    blur_row_block<kProduct>(src, src2, dst, w, y, rows);
  }
}

// Vertical pass on the columns [x, x + cols), cols <= kStrip. Each group of eight columns keeps its
// recurrence state and a ring of the last ten inputs (the rows already overwritten by outputs):
// step t reads row t + 4 from the plane and in[t - 6] from ring slot (t + 4) % 10, then stores
// row t + 4 in that same slot.
constexpr uint32_t kStrip = 64;
constexpr uint32_t kGroups = kStrip / kLanes;
constexpr int kRing = 10;

inline Lanes load_lanes(const float* p, uint32_t n) {
  Lanes v = splat(0.0f);
  if (n == kLanes) std::memcpy(&v, p, sizeof v);
  else for (uint32_t i = 0; i < n; ++i) v[i] = p[i];
  return v;
}
inline void store_lanes(float* p, Lanes v, uint32_t n) {
  if (n == kLanes) std::memcpy(p, &v, sizeof v);
  else for (uint32_t i = 0; i < n; ++i) p[i] = v[i];
}

void blur_column_strip(float* plane, uint32_t w, uint32_t h, uint32_t x, uint32_t cols) {
  Recurrence rec[kGroups];
  Lanes ring[kRing][kGroups];
  const Lanes zero = splat(0.0f);
  for (auto& slot : ring)
    for (auto& v : slot) v = zero;
  const uint32_t groups = (cols + kLanes - 1) / kLanes;
  const long len = long(h);
  for (long t = -kBlurRadius + 1; t < len; ++t) {
    const long ib = t + 4;
    Lanes* slot = ring[ib % kRing];
    const float* in_row = plane + size_t(ib) * w + x;
    float* out_row = t >= 0 ? plane + size_t(t) * w + x : nullptr;
    for (uint32_t g = 0; g < groups; ++g) {
      const uint32_t n = cols - g * kLanes < kLanes ? cols - g * kLanes : kLanes;
      const Lanes b = ib < len ? load_lanes(in_row + g * kLanes, n) : zero;
      const Lanes sum = slot[g] + b;
      slot[g] = b;
      const Lanes o = rec[g].step(sum);
      if (t >= 0) store_lanes(out_row + g * kLanes, o, n);
    }
  }
}

constexpr float kZeroRow[kLanes] = {};

}  // namespace

void blur_columns_steps(float* ring, uint32_t ring_rows, uint32_t w, uint32_t h, long t0, long t1,
                        float* state) {
  const long len = long(h), rows = long(ring_rows);
  auto row = [&](long y) { return ring + size_t(y % rows) * w; };
  Recurrence rec;
  for (uint32_t x = 0, g = 0; x < w; x += kLanes, ++g) {
    const uint32_t n = w - x < kLanes ? w - x : kLanes;
    float* st = state + size_t{g} * 48;
    for (int k = 0; k < 3; ++k) {
      std::memcpy(&rec.prev1[k], st + 8 * k, sizeof(Lanes));
      std::memcpy(&rec.prev2[k], st + 24 + 8 * k, sizeof(Lanes));
    }
    for (long t = t0; t < t1; ++t) {
      // Exactly blur_line_reference's sum: in[t - 6] + in[t + 4], zeros included.
      const long ia = t - kBlurRadius - 1, ib = t + kBlurRadius - 1;
      const Lanes a = ia >= 0 ? load_lanes(row(ia) + x, n) : load_lanes(kZeroRow, kLanes);
      const Lanes b = ib < len ? load_lanes(row(ib) + x, n) : load_lanes(kZeroRow, kLanes);
      const Lanes o = rec.step(a + b);
      // Output t goes to the ring row of input t - 6 (never live: rows < 0 are not stored).
      if (t >= 0) store_lanes(row(ia + rows) + x, o, n);
    }
    for (int k = 0; k < 3; ++k) {
      std::memcpy(st + 8 * k, &rec.prev1[k], sizeof(Lanes));
      std::memcpy(st + 24 + 8 * k, &rec.prev2[k], sizeof(Lanes));
    }
  }
}

void blur_rows_in_place(float* plane, uint32_t w, uint32_t /*h*/, uint32_t y0, uint32_t y1) {
  blur_rows<false>(plane, nullptr, plane, w, y0, y1);
}

void blur_rows_of_product(const float* a, const float* b, float* out, uint32_t w, uint32_t y0,
                          uint32_t y1) {
  if (b) blur_rows<true>(a, b, out, w, y0, y1);
  else blur_rows<false>(a, nullptr, out, w, y0, y1);
}

void blur_columns_in_place(float* plane, uint32_t w, uint32_t h, uint32_t x0, uint32_t x1) {
  for (uint32_t x = x0; x < x1; x += kStrip) {
    const uint32_t cols = x1 - x < kStrip ? x1 - x : kStrip;
    blur_column_strip(plane, w, h, x, cols);
  }
}

}  // namespace vqx::ssimulacra2
