#pragma once
// The order in which both backends write integer_adm's outputs (feature_names() order).
#include <cstdint>

#include "engine/metric.h"
#include "metrics/integer_adm/adm_math.h"

namespace vqx::integer_adm {

// Writes adm2, aim, adm3, adm_scale0..3 and, with `debug`, the per-scale num/den extras.
void write_adm_outputs(FeatureWriter& out, uint64_t frame,
                       const std::array<AdmScaleValues, kScales>& scales, const AdmFrameScores& f,
                       bool debug);

}  // namespace vqx::integer_adm
