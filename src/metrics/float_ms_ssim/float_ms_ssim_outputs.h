#pragma once
// float_ms_ssim's output names (the score, then l/c/s of each scale), shared by both backends.
#include <string>
#include <vector>

namespace vqx::ssim {

std::vector<std::string> float_ms_ssim_feature_names(bool enable_lcs);

}  // namespace vqx::ssim
