// libvmaf 3.2.0's remaining features against its per-frame values (netflix-p17, %.17g), every
// frame of every fixture, bit for bit.
#include <fmt/format.h>

#include <cctype>
#include <cstring>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "support/fixtures.h"

namespace vqx::test {
namespace {

struct FeatureGolden {
  std::string feature;  // --feature text
  std::string config;   // golden file, shared/golden/<pair>/netflix-p17/<config>.json
  std::vector<std::string> outputs;
  bool needs_reference_rcpss = false;  // see reference_rcpss()
};

// float_adm divides with x86's RCPSS estimate, as libvmaf's x86-64 build does, and RCPSS is the
// CPU's own approximation (docs/float_adm.md). Its goldens hold on CPUs whose RCPSS gives the
// golden machine's bits (AMD EPYC, family 19h): an FNV-1a hash of RCPSS over every mantissa of
// [1, 2), recorded there.
bool reference_rcpss() {
#if defined(__SSE2__)
  uint64_t hash = 1469598103934665603ull;
  for (uint32_t m = 0; m < (1u << 23); ++m) {
    const uint32_t bits = 0x3f800000u | m;
    float x, r;
    std::memcpy(&x, &bits, 4);
    r = _mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(x)));
    uint32_t out;
    std::memcpy(&out, &r, 4);
    hash = (hash ^ out) * 1099511628211ull;
  }
  return hash == 0xb5de670652cb0383ull;
#else
  return false;
#endif
}

const std::vector<FeatureGolden> kFeatures = {
    {"ciede", "ciede", {"ciede2000"}},
    {"psnr_hvs", "psnr_hvs", {"psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs"}},
    {"float_psnr", "float_psnr", {"float_psnr"}},
    {"float_ansnr", "float_ansnr", {"float_ansnr", "float_anpsnr"}},
    {"float_moment",
     "float_moment",
     {"float_moment_ref1st", "float_moment_dis1st", "float_moment_ref2nd", "float_moment_dis2nd"}},
    // libvmaf computes the float features beside VMAF v0.6.1 here; their values do not depend on
    // it.
    {"float_vif", "vmaf_v0.6.1_full", {"vif_scale0", "vif_scale1", "vif_scale2", "vif_scale3"}},
    {"float_adm",
     "vmaf_v0.6.1_full",
     {"adm2", "aim", "adm3", "adm_scale0", "adm_scale1", "adm_scale2", "adm_scale3"},
     true},
    {"float_motion", "vmaf_v0.6.1_full", {"motion", "motion2", "motion3"}},
    {"speed_temporal", "speed_temporal", {"speed_temporal"}},
    // The option sets of the --aom_ctc presets.
    {"psnr=reduced_hbd_peak=true:enable_apsnr=true:min_sse=0.5",
     "psnr_aomctc",
     {"psnr_y", "psnr_cb", "psnr_cr"}},
    {"float_ssim=enable_db=true:clip_db=true", "float_ssim_db", {"float_ssim"}},
};

struct GoldenCase {
  FeatureGolden feature;
  std::string pair;
};

void PrintTo(const GoldenCase& c, std::ostream* os) {
  *os << c.feature.feature << " on " << c.pair;
}

std::vector<GoldenCase> all_cases() {
  std::vector<GoldenCase> cases;
  for (const auto& f : kFeatures)
    for (const auto& pair : kAllPairs) cases.push_back({f, pair});
  return cases;
}

class LibvmafFeatureGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(LibvmafFeatureGolden, EveryFrameBitExact) {
  const GoldenCase& c = GetParam();
  VQX_REQUIRE_FIXTURE(c.pair, dir);
  if (c.feature.needs_reference_rcpss && !reference_rcpss())
    GTEST_SKIP() << "this CPU's RCPSS differs from the golden machine's; libvmaf's "
                 << c.feature.feature << " values are CPU-specific there (docs/float_adm.md)";
  RunSettings settings;
  settings.threads = 2;
  auto report = run_on_pair(c.pair, {c.feature.feature}, settings);
  Golden golden = load_golden(c.pair, "netflix-p17", c.feature.config);
  for (const auto& name : c.feature.outputs)
    expect_bit_exact(column(*report, name), golden.frames.at(name), c.pair + " " + name);
}

INSTANTIATE_TEST_SUITE_P(AllPairs, LibvmafFeatureGolden, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<GoldenCase>& info) {
                           std::string name =
                               fmt::format("{}_{}", info.param.feature.feature, info.param.pair);
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

}  // namespace
}  // namespace vqx::test
