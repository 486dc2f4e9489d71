#pragma once
// SpEED-chroma for one frame: est_params on each preprocessed image (speed.md 8) and the plane
// and frame combination (9, 10). The stages themselves live in speed_preprocess.h,
// speed_covariance.h, speed_solver.h and speed_entropy.h.
#include <string>

#include "metrics/speed_core/speed_covariance.h"
#include "metrics/speed_core/speed_entropy.h"
#include "metrics/speed_core/speed_kernels.h"
#include "metrics/speed_core/speed_params.h"
#include "metrics/speed_core/speed_preprocess.h"

namespace vqx::speed {

// Why an image failed (8.9), for the warning.
enum class Failure : uint8_t { kNone, kSingular, kBackSubstitution };

struct StatsScratch {
  std::vector<double> deviations;
  std::vector<float> y, x;
};

struct ImageEstimate {
  ImageStats stats;
  Failure failure = Failure::kNone;
  int qr_steps = 0;
  bool step_limit_hit = false;  // upstream warns and keeps the current diagonal
};

// est_params (8) on the top-left tw x th of E, with the covariance kernel of `kernels`.
ImageEstimate estimate_params(const Image& e, const Geometry& g, float sigma, StatsScratch& scratch,
                              const SpeedKernels& kernels);

// The part of est_params after the covariance (8.4-8.9), given K: eigenvalues, the regularity
// test, the QR solve, variances and entropies. estimate_params() ends with this call; the CUDA
// twin calls it on the device-computed K and E. `e` needs only its top-left tw x th samples.
ImageEstimate estimate_from_covariance(const Matrix25& k, const Image& e, const Geometry& g,
                                       float sigma, StatsScratch& scratch);

const char* describe(Failure f);

}  // namespace vqx::speed
