// Integer vif, adm and motion against libvmaf's per-frame values (netflix-p17, %.17g) on every
// fixture: the v0.6.1 / 4k v0.6.1 keys, and the option-suffixed adm/motion keys of all eight
// vmaf_v1.0.16 models.
#include "support/fixtures.h"

namespace vqx::test {
namespace {

bool is_ours(const std::string& key) { return key.find("integer_") != std::string::npos; }

// Compares every integer-feature key of the golden `config` with `report`.
void compare(const RunReport& report, const std::string& pair, const std::string& config,
             size_t min_keys) {
  Golden golden = load_golden(pair, "netflix-p17", config);
  size_t compared = 0;
  for (const auto& [key, values] : golden.frames) {
    if (!is_ours(key)) continue;
    expect_bit_exact(column(report, key), values, pair + " " + config + " " + key);
    ++compared;
  }
  EXPECT_GE(compared, min_keys) << config;
}

class VmafFeaturesGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(VmafFeaturesGolden, V061EveryFrameBitExact) {
  VQX_REQUIRE_FIXTURE(GetParam(), dir);
  RunSettings settings;
  settings.threads = 2;
  auto report = run_on_pair(GetParam(), {"vif", "adm", "motion"}, settings);
  compare(*report, GetParam(), "vmaf_v0.6.1", 14);
  compare(*report, GetParam(), "vmaf_4k_v0.6.1", 14);
}

struct V1Config {
  const char* model;
  const char* adm_extra;  // viewing condition
  bool hfr;
};
const V1Config kV1[] = {
    {"3d0h", "", false},
    {"5d0h", ":adm_norm_view_dist=5", false},
    {"1d5h_2160", ":adm_norm_view_dist=1.5:adm_ref_display_height=2160", false},
    {"3d0h_2160", ":adm_ref_display_height=2160", false},
};

TEST_P(VmafFeaturesGolden, V1AdmAndMotionEveryFrameBitExact) {
  VQX_REQUIRE_FIXTURE(GetParam(), dir);
  RunSettings settings;
  settings.threads = 2;
  const std::string adm =
      "adm=adm_csf_mode=2:adm_dlm_weight=0.7:adm_enhn_gain_limit=1:adm_noise_weight=0.02:"
      "adm_min_val=0.5";
  for (const V1Config& c : kV1) {
    // One run gives the adm keys of the model and of its HFR twin, plus both motion variants.
    auto report = run_on_pair(
        GetParam(),
        {adm + c.adm_extra, "motion=motion_max_val=18",
         "motion=motion_max_val=18:motion_five_frame_window=true:motion_moving_average=true"},
        settings);
    compare(*report, GetParam(), std::string("vmaf_v1.0.16_") + c.model, 10);
    compare(*report, GetParam(), std::string("vmaf_v1.0.16_hfr_") + c.model, 10);
  }
}

INSTANTIATE_TEST_SUITE_P(AllPairs, VmafFeaturesGolden, ::testing::ValuesIn(kAllPairs));

}  // namespace
}  // namespace vqx::test
