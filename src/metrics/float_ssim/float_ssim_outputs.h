#pragma once
// float_ssim's output names and how a frame's means become outputs, shared by both backends.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/metric.h"
#include "metrics/ssim_core/ssim_stages.h"

namespace vqx::ssim {

std::vector<std::string> float_ssim_feature_names(bool enable_lcs);
void write_float_ssim_outputs(FeatureWriter& out, uint64_t frame, const ScaleMeans& means,
                              bool enable_db, double max_db, bool enable_lcs);

}  // namespace vqx::ssim
