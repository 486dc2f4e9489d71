#pragma once
// libvmaf's common-test-condition presets, `--aom_ctc VERSION` and `--nflx_ctc VERSION`: each adds
// libvmaf's models and features to those given so far, in its order (docs/ctc_presets.md).
#include <string>
#include <vector>

namespace vqx::cli {

// The models (--model strings) and features (--feature strings) of a run, in argument order.
struct ModelsAndFeatures {
  std::vector<std::string> models;
  std::vector<std::string> features;
};

// Applies `--aom_ctc version` (v1.0 .. v7.0). Throws UsageError for another version.
void apply_aom_ctc(const std::string& version, ModelsAndFeatures& run);
// Applies `--nflx_ctc version` (v1.0). Throws UsageError for another version.
void apply_nflx_ctc(const std::string& version, ModelsAndFeatures& run);

}  // namespace vqx::cli
