// f32 eigenvalues and linear solve of SpEED (speed.md 8.4-8.6). Upstream adapts GSL's symmtd and
// symmetric QR to f32 but keeps several double literals and libm calls; every place where C
// evaluates in f64 is written out with explicit casts below.
#include "metrics/speed_core/speed_solver.h"

#include <cmath>

namespace vqx::speed {
namespace {

constexpr int n = kDim;
constexpr double kEps = 1e-6;  // f64 literal (speed.md 11.1)
constexpr int kMaxQrSteps = 500;

inline float& at(Matrix25& a, int r, int c) { return a[size_t(r) * n + size_t(c)]; }
inline float at(const Matrix25& a, int r, int c) { return a[size_t(r) * n + size_t(c)]; }

// Zeroes e[k] when it is negligible against its neighbours: f32 sum, f64 product and compare.
void chop(Tridiagonal& t, int lo, int hi) {
  for (int k = lo; k <= hi; ++k)
    if (double(std::fabs(t.e[size_t(k)])) <
        kEps * double(std::fabs(t.d[size_t(k)]) + std::fabs(t.d[size_t(k) + 1])))
      t.e[size_t(k)] = 0.0f;
}

struct Rotated {
  float ap, bp, aq;
};
// Rotation of the 2x2 window (ap, bp, aq), f32, brackets as in speed.md 8.4.2.
inline Rotated rotate(float c, float s, float ap, float bp, float aq) {
  return {(c * ((c * ap) - (s * bp))) + (s * ((s * aq) - (c * bp))),
          (c * ((s * ap) + (c * bp))) - (s * ((s * bp) + (c * aq))),
          (s * ((s * ap) + (c * bp))) + (c * ((s * bp) + (c * aq)))};
}

// Wilkinson shift from the trailing 2x2 of the block.
float wilkinson_shift(const float* d, const float* f, int m) {
  const float t = float(double(d[m - 2] - d[m - 1]) / 2.0);
  const float g = f[m - 2];
  const float h = std::sqrt((t * t) + (g * g));
  float mu;
  if (t > 0)
    mu = d[m - 1] - (g * (g / (t + h)));
  else if (t == 0)
    mu = d[m - 1] - std::fabs(g);
  else
    mu = d[m - 1] + (g * (g / ((-t) + h)));
  if (kEps * double(std::fabs(mu)) > double(std::fabs(d[0]) + std::fabs(f[0]))) mu = 0.0f;
  return mu;
}

void qr_step(float* d, float* f, int m) {
  const float mu = wilkinson_shift(d, f, m);
  float c, s;
  if (m == 2) {
    givens(d[0] - mu, f[0], c, s);
    const Rotated r = rotate(c, s, d[0], f[0], d[1]);
    d[0] = r.ap;
    f[0] = r.bp;
    d[1] = r.aq;
    return;
  }
  float x = d[0] - mu, z = f[0];
  float ap = d[0], bp = f[0], aq = d[1], bq = f[1], bk = 0.0f, zk = 0.0f;
  for (int k = 0; k < m - 1; ++k) {
    givens(x, z, c, s);
    const float w = (c * bk) - (s * zk);
    const Rotated r = rotate(c, s, ap, bp, aq);
    const float z1 = (-s) * bq;
    const float bq1 = c * bq;
    bk = r.bp;
    zk = z1;
    ap = r.aq;
    bp = bq1;
    if (k < m - 2) aq = d[k + 2];
    if (k < m - 3) bq = f[k + 2];
    d[k] = r.ap;
    if (k > 0) f[k - 1] = w;
    if (k < m - 2) f[k + 1] = bp;
    x = bk;
    z = zk;
  }
  d[m - 1] = ap;
  f[m - 2] = bk;
}

}  // namespace

void givens(float x, float z, float& c, float& s) {
  if (z == 0.0f) {
    c = 1.0f;
    s = 0.0f;
  } else if (std::fabs(z) > std::fabs(x)) {
    const float tau = (-x) / z;
    s = float(1.0 / std::sqrt(double(1.0f + (tau * tau))));  // f64 reciprocal square root
    c = s * tau;
  } else {
    const float tau = (-z) / x;
    c = float(1.0 / std::sqrt(double(1.0f + (tau * tau))));
    s = c * tau;
  }
}

Tridiagonal tridiagonalise(const Matrix25& k) {
  Matrix25 a = k;
  std::array<float, n> v{}, p{};
  for (int i = 0; i < n - 2; ++i) {
    float nu2 = 0.0f;
    for (int r = i + 2; r < n; ++r) nu2 = nu2 + at(a, r, i) * at(a, r, i);
    const float nu = std::sqrt(nu2);
    float tau = 0.0f;
    if (nu != 0.0f) {
      const float alpha = at(a, i + 1, i);
      const float h = std::sqrt((alpha * alpha) + (nu * nu));
      const float beta = alpha >= 0.0f ? -h : h;  // -0 >= 0 holds: beta = -h
      tau = (beta - alpha) / beta;
      const float s = alpha - beta;
      if (s != 0.0f) {
        for (int r = i + 1; r < n; ++r) at(a, r, i) = at(a, r, i) / s;
        at(a, i + 1, i) = beta;
      }
    }
    if (tau != 0.0f) {
      v[size_t(i) + 1] = 1.0f;
      for (int r = i + 2; r < n; ++r) v[size_t(r)] = at(a, r, i);
      for (int r = i + 1; r < n; ++r) {
        float acc = 0.0f;
        for (int c = i + 1; c < n; ++c) acc = acc + (tau * at(a, r, c)) * v[size_t(c)];
        p[size_t(r)] = acc;
      }
      float kappa = 0.0f;
      for (int r = i + 1; r < n; ++r) kappa = kappa + p[size_t(r)] * v[size_t(r)];
      // Both products are exact in f64 (-0.5 scales by a power of two): one rounding to f32.
      const float alpha2 = float((-0.5 * double(tau)) * double(kappa));
      for (int r = i + 1; r < n; ++r) p[size_t(r)] = p[size_t(r)] + alpha2 * v[size_t(r)];
      for (int r = i + 1; r < n; ++r)
        for (int c = i + 1; c < n; ++c)
          at(a, r, c) =
              at(a, r, c) - ((p[size_t(r)] * v[size_t(c)]) + (v[size_t(r)] * p[size_t(c)]));
    }
  }
  Tridiagonal t;
  for (int i = 0; i < n; ++i) t.d[size_t(i)] = at(a, i, i);
  for (int i = 0; i < n - 1; ++i) t.e[size_t(i)] = at(a, i + 1, i);
  return t;
}

Eigenvalues qr_eigenvalues(Tridiagonal t) {
  Eigenvalues ev;
  chop(t, 0, n - 2);
  int b = n - 1;
  int it = 0;
  while (b > 0 && it < kMaxQrSteps) {
    if (t.e[size_t(b) - 1] == 0.0f) {
      --b;
      continue;
    }
    int a = b - 1;
    while (a > 0 && t.e[size_t(a) - 1] != 0.0f) --a;
    qr_step(t.d.data() + a, t.e.data() + a, b - a + 1);
    chop(t, a, b - 1);
    ++it;
  }
  ev.lambda = t.d;
  ev.qr_steps = it;
  ev.step_limit_hit = b > 0 && it >= kMaxQrSteps;
  return ev;
}

Eigenvalues symmetric_eigenvalues(const Matrix25& k) { return qr_eigenvalues(tridiagonalise(k)); }

bool is_singular(const Eigenvalues& ev) {
  for (float l : ev.lambda)
    if (double(l) < kEps) return true;
  return false;
}

void matmul25(const float* m, const float* nmat, size_t cols, float* out) {
  for (int r = 0; r < n; ++r) {
    float* acc = out + size_t(r) * cols;
    for (size_t c = 0; c < cols; ++c) acc[c] = 0.0f;
    for (int t = 0; t < n; ++t) {
      const float mrt = m[size_t(r) * n + size_t(t)];
      const float* row = nmat + size_t(t) * cols;
      for (size_t c = 0; c < cols; ++c) acc[c] = acc[c] + mrt * row[c];  // fold over t from +0
    }
  }
}

bool householder_qr_solve(const Matrix25& k, const std::vector<float>& y, size_t nb,
                          std::vector<float>& x) {
  Matrix25 p{}, z = k, h, tmp;
  for (int i = 0; i < n; ++i) at(p, i, i) = 1.0f;
  std::array<float, n> u{};
  for (int kk = 0; kk < n - 1; ++kk) {
    // Outside the active sub-matrix Z is forced to the identity before the reflector is built.
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c)
        if (r < kk || c < kk) at(z, r, c) = r == c ? 1.0f : 0.0f;
    for (int r = 0; r < n; ++r) u[size_t(r)] = at(z, r, kk);
    float rho2 = 0.0f;
    for (int r = 0; r < n; ++r) rho2 = rho2 + u[size_t(r)] * u[size_t(r)];
    const float rho = std::sqrt(rho2);
    const float sg = at(k, kk, kk) >= 0.0f ? 1.0f : -1.0f;  // sign of the ORIGINAL K[k][k]
    u[size_t(kk)] = u[size_t(kk)] + sg * rho;
    float rho2b = 0.0f;
    for (int r = 0; r < n; ++r) rho2b = rho2b + u[size_t(r)] * u[size_t(r)];
    const float rhob = std::sqrt(rho2b);
    for (int r = 0; r < n; ++r) u[size_t(r)] = u[size_t(r)] / rhob;
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) at(h, r, c) = (-2.0f * u[size_t(r)]) * u[size_t(c)];
    for (int r = 0; r < n; ++r) at(h, r, r) = at(h, r, r) + 1.0f;
    matmul25(h.data(), z.data(), n, tmp.data());
    z = tmp;
    matmul25(h.data(), p.data(), n, tmp.data());
    p = tmp;
  }
  Matrix25 rmat;
  matmul25(p.data(), k.data(), n, rmat.data());  // R = P K with the original K
  std::vector<float> t(size_t(n) * nb);
  matmul25(p.data(), y.data(), nb, t.data());
  x.assign(size_t(n) * nb, 0.0f);
  for (int r = n - 1; r >= 0; --r) {
    const float diag = at(rmat, r, r);
    if (double(std::fabs(diag)) < kEps) return false;
    for (size_t b = 0; b < nb; ++b) {
      float acc = t[size_t(r) * nb + b];
      for (int c = r + 1; c < n; ++c) acc = acc - (x[size_t(c) * nb + b] * at(rmat, r, c));
      x[size_t(r) * nb + b] = acc / diag;
    }
  }
  return true;
}

}  // namespace vqx::speed
