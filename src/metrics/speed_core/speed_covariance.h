#pragma once
// SpEED block covariance statistics (speed.md 8.1-8.3 and the right-hand side of 8.6).
// Input is the preprocessed image E (ow x oh); only its top-left tw x th part is read.
#include <array>
#include <cstdint>
#include <vector>

#include "metrics/speed_core/speed_params.h"
#include "metrics/speed_core/speed_preprocess.h"

namespace vqx::speed {

inline constexpr int kDim = 25;                   // 5x5 neighbourhood -> 25 dimensions
using Matrix25 = std::array<float, kDim * kDim>;  // row-major f32

// mu_q: f32 fold from +0 of the offset-q sub-window in raster order, divided by (f32)N (8.2).
std::array<float, kDim> offset_means(const Image& e, const Geometry& g);

// f64 deviations dx_q(i, j) = (f64)E[oy+i][ox+j] - (f64)mu_q, 25 arrays of mh x mw (8.3).
// `out` is resized to 25 * N.
void offset_deviations(const Image& e, const Geometry& g, const std::array<float, kDim>& mu,
                       std::vector<double>& out);

// K[q][q'] = RN32(Sigma / N) with Sigma grouped as upstream's AVX2 kernel (8.3): per row, blocks
// of 8 samples into 8 FMA lanes, then one block of 4 into lanes 0-3, then an unfused tail;
// lanes combined as ((((A0+A4)+(A1+A5))+(A2+A6))+(A3+A7))+Tail.
// The plain twin (std::fma, any CPU); the entry of the plain table (speed_kernels.h).
void covariance_plain(const std::vector<double>& dev, const Geometry& g, Matrix25& k);

// Y (25 x nb, row-major): Y[5 ry + rx][b] = E[5 by + ry][5 bx + rx], b = by nbx + bx (8.6).
void block_vectors(const Image& e, const Geometry& g, std::vector<float>& y);

}  // namespace vqx::speed
