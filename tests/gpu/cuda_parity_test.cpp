// CUDA <-> CPU parity for every metric that has both backends, on every fixture pair, per frame,
// under each metric's contract (shared/spec/README.md, "Numerical contracts").
//
// A new CUDA twin adds ONE row to kParityTable: its descriptor name, the option sets to run and
// its tolerance (0 = bit-identical). EveryTwinHasARow fails until it does.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpu/gpu_support.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

struct ParityRow {
  std::string metric;
  std::vector<std::string> configs;  // --feature texts, each compared on its own
  double tolerance;                  // max |cuda - cpu| per value; 0 = same bits
};

const std::vector<ParityRow> kParityTable = {
    {"psnr",
     {"psnr", "psnr=enable_mse=true:enable_apsnr=true", "psnr=reduced_hbd_peak=true:min_sse=0.5"},
     0.0},
    // Contract (spec README, CAMBI row): bit-identical whenever each scale's top-K sum < 2^29,
    // otherwise the device's exactly rounded mean may differ from the CPU's sequential f64 sum
    // by |diff| <= 1e-12. tests/gpu/cambi_cuda_test.cpp pins exactly which frames may differ.
    {"cambi",
     {"cambi", "cambi=full_ref=true", "cambi=window_size=33:topk=0.2",
      "cambi=eotf=pq:max_log_contrast=3"},
     1e-12},
    // Every per-pixel plane is bit-identical; the 108 sums come from a fixed double-double tree
    // instead of the CPU's raster-order adds (shared/spec/ssimulacra2.md 15.3: gate 1e-10).
    {"ssimulacra2", {"ssimulacra2", "ssimulacra2=yuv_matrix=1"}, 1e-10},
    {"vif", {"vif", "vif=vif_enhn_gain_limit=1.0:debug=true"}, 0.0},
    {"adm",
     {"adm=debug=true", "adm=adm_csf_mode=2:adm_enhn_gain_limit=1.0:adm_skip_aim=true"},
     0.0},
    {"motion",
     {"motion=debug=true",
      "motion=motion_five_frame_window=true:motion_moving_average=true:motion_blend_factor=0.5",
      "motion=motion_force_zero=true"},
     0.0},
    // Per-pixel stages bit-identical; the sums come from a fixed tree, so a mean may move by one
    // f32 ulp where the CPU's sequential rounding straddles (shared/spec/ms_ssim.md 10). The strict
    // per-mean contract is in float_ms_ssim_cuda_test.cpp; this row bounds every output.
    {"float_ms_ssim", {"float_ms_ssim=enable_lcs=true"}, 1e-7},
    // dB of a score near 1 amplifies a 1e-7 change by 10/ln(10)/(1 - score).
    {"float_ms_ssim", {"float_ms_ssim=enable_db=true:clip_db=true"}, 1e-3},
    {"float_ssim", {"float_ssim=enable_lcs=true", "float_ssim=scale=1"}, 1e-7},
    // Preprocessing and K on the device, bit-identical; the f32 solver is the CPU's own code on
    // the host (spec README, VMAF row; speed.md 15). The three VMAF v1 configurations.
    // Block terms with the CPU's own code, plane sums in the CPU's order: the same bits.
    {"psnr_hvs", {"psnr_hvs"}, 0.0},
    // Per-pixel dE00 on the device where its enclosures of glibc's libm decide the CPU's f32
    // values, on the host with glibc elsewhere; the raster-order f64 sum on the host: same bits.
    {"ciede", {"ciede"}, 0.0},
    {"speed_chroma",
     {"speed_chroma=speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:speed_max_val=45",
      "speed_chroma=speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:speed_max_val=45:"
      "speed_prescale=0.6:speed_prescale_method=bilinear",
      "speed_chroma=speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:speed_max_val=45:"
      "speed_prescale=0.5:speed_prescale_method=bilinear"},
     0.0},
};

struct ParityCase {
  ParityRow row;
  std::string config;
  std::string pair;
};

std::vector<ParityCase> all_cases() {
  std::vector<ParityCase> cases;
  for (const auto& row : kParityTable)
    for (const auto& config : row.configs)
      for (const auto& pair : kAllPairs) cases.push_back({row, config, pair});
  return cases;
}

// Compares every column and aggregate; prints one summary line per column for the run log.
void expect_parity(const RunReport& cpu, const RunReport& gpu, double tolerance,
                   const std::string& label) {
  ASSERT_EQ(cpu.table.feature_names(), gpu.table.feature_names()) << label;
  ASSERT_EQ(cpu.table.frame_count(), gpu.table.frame_count()) << label;
  for (size_t c = 0; c < cpu.table.feature_names().size(); ++c) {
    const std::string& name = cpu.table.feature_names()[c];
    size_t identical = 0, compared = 0, failures = 0;
    double max_diff = 0;
    for (uint64_t f = 0; f < cpu.table.frame_count(); ++f) {
      auto a = cpu.table.get(f, c), b = gpu.table.get(f, c);
      ASSERT_EQ(a.has_value(), b.has_value()) << label << " " << name << " frame " << f;
      if (!a) continue;
      ++compared;
      double diff = std::fabs(*a - *b);
      bool ok;
      if (same_bits(*a, *b)) {
        ++identical;
        ok = true;
      } else {
        max_diff = std::max(max_diff, std::isnan(diff) ? INFINITY : diff);
        ok = tolerance > 0 && diff <= tolerance;
      }
      if (!ok && failures++ < 5)
        ADD_FAILURE() << fmt::format("{} {} frame {}: cpu {:.17g}, cuda {:.17g}", label, name, f, *a, *b);
    }
    std::printf("parity %-50s %-8s %3zu/%3zu identical, max |diff| %.3g\n", label.c_str(),
                name.c_str(), identical, compared, max_diff);
  }
  ASSERT_EQ(cpu.table.aggregates().size(), gpu.table.aggregates().size()) << label;
  for (size_t i = 0; i < cpu.table.aggregates().size(); ++i) {
    const auto& [name, a] = cpu.table.aggregates()[i];
    const auto& [gname, b] = gpu.table.aggregates()[i];
    EXPECT_EQ(name, gname) << label;
    if (tolerance == 0) EXPECT_TRUE(same_bits(a, b)) << fmt::format("{} {}: cpu {:.17g}, cuda {:.17g}", label, name, a, b);
    else EXPECT_LE(std::fabs(a - b), tolerance) << label << " " << name;
  }
}

TEST(CudaParity, EveryTwinHasARow) {
  for (const MetricDescriptor* d : metric_registry()) {
    if (!d->make_cuda) continue;
    bool found = std::any_of(kParityTable.begin(), kParityTable.end(),
                             [&](const ParityRow& r) { return r.metric == d->name; });
    EXPECT_TRUE(found) << d->name << " has a CUDA twin but no row in kParityTable";
  }
}

class CudaParity : public ::testing::TestWithParam<ParityCase> {};

TEST_P(CudaParity, EveryFrame) {
  VQX_REQUIRE_CUDA();
  const ParityCase& c = GetParam();
  VQX_REQUIRE_FIXTURE(c.pair, dir);
  auto cpu = run_on_pair(c.pair, {c.config}, cpu_settings());
  auto gpu = run_on_pair(c.pair, {c.config}, cuda_settings());
  EXPECT_EQ(gpu->backend, "cuda");
  expect_parity(*cpu, *gpu, c.row.tolerance, c.pair + " " + c.config);
}

// --subsample, --frame_cnt and --frame_skip change which frames run where: still identical.
TEST_P(CudaParity, SubsampledAndSkipped) {
  VQX_REQUIRE_CUDA();
  const ParityCase& c = GetParam();
  if (c.pair != "n576") GTEST_SKIP() << "frame selection is checked on n576 only";
  VQX_REQUIRE_FIXTURE(c.pair, dir);
  RunSettings cpu_s = cpu_settings(), gpu_s = cuda_settings();
  for (RunSettings* s : {&cpu_s, &gpu_s}) {
    s->subsample = 3;
    s->frame_cnt = 20;
    s->skip_ref = 2;
    s->skip_dist = 1;
  }
  auto cpu = run_on_pair(c.pair, {c.config}, cpu_s);
  auto gpu = run_on_pair(c.pair, {c.config}, gpu_s);
  expect_parity(*cpu, *gpu, c.row.tolerance, "subsampled " + c.pair + " " + c.config);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CudaParity, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<ParityCase>& info) {
                           std::string name = fmt::format("{}_{}_{}", info.param.row.metric,
                                                          info.index, info.param.pair);
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

}  // namespace
}  // namespace vqx::test
