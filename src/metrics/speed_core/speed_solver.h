#pragma once
// The f32 linear algebra of SpEED's est_params (speed.md 8.4-8.6), operation by operation:
// eigenvalues of the 25x25 covariance by Householder tridiagonalisation plus implicit QR steps,
// the regularity test, and upstream's Householder-QR solve of K X = Y.
#include <array>
#include <cstdint>
#include <vector>

#include "metrics/speed_core/speed_covariance.h"

namespace vqx::speed {

struct Tridiagonal {
  std::array<float, kDim> d{};      // diagonal
  std::array<float, kDim - 1> e{};  // sub-diagonal
};

// 8.4.1: Householder reduction of a copy of K to (d, e).
Tridiagonal tridiagonalise(const Matrix25& k);

struct Eigenvalues {
  std::array<float, kDim> lambda{};  // index order, never sorted
  int qr_steps = 0;                  // implicit QR steps taken (limit 500 per image)
  bool step_limit_hit = false;
};
// 8.4.2: implicit symmetric QR steps with Wilkinson shift on (d, e).
Eigenvalues qr_eigenvalues(Tridiagonal t);
// 8.4 in full.
Eigenvalues symmetric_eigenvalues(const Matrix25& k);

// Givens pair (c, s) of 8.4.2 (reciprocal square root in f64, rounded once to f32).
void givens(float x, float z, float& c, float& s);

// 8.5: singular when any eigenvalue is below 1e-6 (compared in f64).
bool is_singular(const Eigenvalues& ev);

// MM(M, N) of 8.6 for a 25 x 25 M and a 25 x cols N (row-major): f32 fold from +0 over t.
void matmul25(const float* m, const float* n, size_t cols, float* out);

// 8.6: solves K X = Y (Y and X are 25 x nb, row-major) with upstream's Householder QR variant.
// Returns false when a diagonal |R[r][r]| < 1e-6 is met during back substitution (X is then
// undefined; the caller zeroes it, 8.9).
bool householder_qr_solve(const Matrix25& k, const std::vector<float>& y, size_t nb,
                          std::vector<float>& x);

}  // namespace vqx::speed
