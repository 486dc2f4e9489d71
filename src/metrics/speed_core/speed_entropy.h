#pragma once
// SpEED block variances, entropies, plane score and the u/v/uv combination (speed.md 8.7-10).
#include <cstdint>
#include <vector>

#include "metrics/speed_core/speed_solver.h"

namespace vqx::speed {

// log2(2 pi e) as upstream's compiler folds it (speed.md 8.8).
inline constexpr double kLog2TwoPiE = 0x1.06073a671183dp+2;

// var[b] = S_b: the 25 terms (X[r][b] Y[r][b]) / 25 folded starting at the first (8.7).
void block_variances(const std::vector<float>& x, const std::vector<float>& y, size_t nb,
                     std::vector<float>& var);

// ent[b]: f32 accumulator, each log2(lambda'_k var + sigma) + C added in f64, k in index order
// (8.8). Negative eigenvalues count as 0.
void block_entropies(const Eigenvalues& ev, const std::vector<float>& var, float sigma,
                     std::vector<float>& ent);

// Per-image result of est_params (8): entropies, variances, failure flag.
struct ImageStats {
  std::vector<float> ent, var;
  bool failed = false;
};

// B0 = RN32(25 (log2((1 + phi) sigma) + C)) (9.1).
float entropy_threshold(float sigma, float nn_floor);

// Plane score of 9.2 for weighting mode wvm (0..6), before the failure rule of 9.3.
float plane_score(const ImageStats& ref, const ImageStats& dis, float threshold, int wvm);

// 9.3: 0 when exactly one image failed, else plane_score.
struct PlaneResult {
  float score = 0.0f;
  bool failed = false;
};
PlaneResult plane_result(const ImageStats& ref, const ImageStats& dis, float threshold, int wvm);

// 10: u, v, uv clipped at max_val (f64, '<'; NaN gives max_val).
struct ChromaScores {
  double u, v, uv;
};
ChromaScores combine_planes(const PlaneResult& u, const PlaneResult& v, double max_val);

}  // namespace vqx::speed
