#include "ctc_presets.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"

namespace vqx::cli {
namespace {

// libvmaf's feature name of a --feature string: the text before the first '='.
std::string feature_name(const std::string& feature) { return feature.substr(0, feature.find('=')); }

// AV1 CTC v1.0, which v2.0 repeats: VMAF and VMAF NEG, PSNR with its whole-clip APSNR, CIEDE2000,
// SSIM and MS-SSIM in dB, PSNR-HVS.
void aom_v1(ModelsAndFeatures& run) {
  run.models.push_back("version=vmaf_v0.6.1:name=vmaf");
  run.models.push_back("version=vmaf_v0.6.1neg:name=vmaf_neg");
  for (const char* f : {"psnr=reduced_hbd_peak=true:enable_apsnr=true:min_sse=0.5", "ciede",
                        "float_ssim=enable_db=true:clip_db=true",
                        "float_ms_ssim=enable_db=true:clip_db=true", "psnr_hvs"})
    run.features.push_back(f);
}

}  // namespace

void apply_aom_ctc(const std::string& version, ModelsAndFeatures& run) {
  if (version == "proposed") throw UsageError("`--aom_ctc proposed` is deprecated.");
  const std::vector<std::string> versions = {"v1.0", "v2.0", "v3.0", "v4.0",
                                             "v5.0", "v6.0", "v7.0"};
  auto it = std::find(versions.begin(), versions.end(), version);
  if (it == versions.end())
    throw UsageError(fmt::format("bad aom_ctc version \"{}\" (expected v1.0 to v7.0)", version));
  const size_t v = size_t(it - versions.begin()) + 1;
  aom_v1(run);
  if (v >= 3) run.features.push_back("cambi");
  // v6.0 also lets libvmaf read inputs of different bit depths; vqx refuses such a pair either
  // way (libvmaf then reads the lower-depth file as samples of the higher depth).
  if (v >= 7) {
    // libvmaf replaces the first float_ssim given so far, the user's own included.
    const std::string ssim = "float_ssim=scale=1:enable_db=true:clip_db=true";
    auto first = std::find_if(run.features.begin(), run.features.end(),
                              [](const std::string& f) { return feature_name(f) == "float_ssim"; });
    *first = ssim;
  }
}

void apply_nflx_ctc(const std::string& version, ModelsAndFeatures& run) {
  if (version != "v1.0")
    throw UsageError(fmt::format("bad nflx_ctc version \"{}\" (expected v1.0)", version));
  run.models.push_back("version=vmaf_4k_v0.6.1:name=vmaf");
  run.models.push_back("version=vmaf_4k_v0.6.1neg:name=vmaf_neg");
  for (const char* f : {"psnr=enable_chroma=true:enable_apsnr=true",
                        "float_ssim=enable_db=true:clip_db=true", "cambi"})
    run.features.push_back(f);
}

}  // namespace vqx::cli
