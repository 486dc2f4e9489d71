#include "metrics/speed_core/speed_pipeline.h"

#include "metrics/speed_core/speed_covariance.h"
#include "metrics/speed_core/speed_solver.h"

namespace vqx::speed {

ImageEstimate estimate_params(const Image& e, const Geometry& g, float sigma, StatsScratch& s,
                              const SpeedKernels& kernels) {
  const auto mu = offset_means(e, g);
  offset_deviations(e, g, mu, s.deviations);
  Matrix25 k;
  kernels.covariance(s.deviations, g, k);
  return estimate_from_covariance(k, e, g, sigma, s);
}

ImageEstimate estimate_from_covariance(const Matrix25& k, const Image& e, const Geometry& g,
                                       float sigma, StatsScratch& s) {
  ImageEstimate out;
  const Eigenvalues ev = symmetric_eigenvalues(k);
  out.qr_steps = ev.qr_steps;
  out.step_limit_hit = ev.step_limit_hit;
  block_vectors(e, g, s.y);
  if (is_singular(ev)) {
    out.failure = Failure::kSingular;
  } else if (!householder_qr_solve(k, s.y, g.nb, s.x)) {
    out.failure = Failure::kBackSubstitution;
  }
  if (out.failure != Failure::kNone) s.x.assign(size_t(kDim) * g.nb, 0.0f);  // 8.9: X = 0
  block_variances(s.x, s.y, g.nb, out.stats.var);
  block_entropies(ev, out.stats.var, sigma, out.stats.ent);
  out.stats.failed = out.failure != Failure::kNone;
  return out;
}

const char* describe(Failure f) {
  switch (f) {
    case Failure::kNone:
      return "no failure";
    case Failure::kSingular:
      return "covariance matrix is singular";
    case Failure::kBackSubstitution:
      return "a pivot below 1e-6 in the QR back substitution";
  }
  return "?";
}

}  // namespace vqx::speed
