// The CUDA twins of integer vif, adm and motion (src/metrics/integer_*/cuda) against the CPU twins
// and the libvmaf goldens, bit for bit (shared/spec/README.md, VMAF row):
//  - synthetic planes at edge sizes (the 33 minimum, odd, D1 widths), 8/10/12/16-bit and every
//    chroma layout, full-range random noise (the wrapping paths) and smooth ramps;
//  - the three features together (one result block per frame) on every fixture, and the
//    v0.6.1 / 4k v0.6.1 scores computed from the CUDA features, against the goldens;
//  - the same bits on repeated runs; the same inputs refused.
#include <fmt/format.h>

#include <cmath>

#include "core/error.h"
#include "gpu/gpu_support.h"
#include "metrics/vmaf/model.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

const std::vector<std::string> kConfigs = {
    "vif=debug=true",
    "vif=vif_enhn_gain_limit=1.0:vif_skip_scale0=true:debug=true",
    "adm=debug=true",
    "adm=debug=true:adm_simd_compat=none:adm_enhn_gain_limit=1.0",
    "adm=debug=true:adm_simd_compat=avx512:adm_csf_mode=2:adm_skip_scale0=true",
    "motion=debug=true",
    "motion=debug=true:motion_five_frame_window=true:motion_moving_average=true",
};

// Every column and frame bit-identical; names and frame counts equal.
void expect_identical(const RunReport& cpu, const RunReport& gpu, const std::string& label) {
  ASSERT_EQ(cpu.table.feature_names(), gpu.table.feature_names()) << label;
  ASSERT_EQ(cpu.table.frame_count(), gpu.table.frame_count()) << label;
  for (size_t c = 0; c < cpu.table.feature_names().size(); ++c) {
    int failures = 0;
    for (uint64_t f = 0; f < cpu.table.frame_count(); ++f) {
      auto a = cpu.table.get(f, c), b = gpu.table.get(f, c);
      ASSERT_EQ(a.has_value(), b.has_value()) << label;
      if (a && !same_bits(*a, *b) && failures++ < 3)
        ADD_FAILURE() << fmt::format("{} {} frame {}: cpu {:.17g}, cuda {:.17g}", label,
                                     cpu.table.feature_names()[c], f, *a, *b);
    }
  }
}

struct Synthetic {
  uint32_t w, h;
  ChromaSubsampling subsampling;
  uint8_t bit_depth;
  bool random;  // full-range noise, else ramp plus small noise
};

class VmafFeaturesCudaSynthetic : public ::testing::TestWithParam<Synthetic> {};

TEST_P(VmafFeaturesCudaSynthetic, AllConfigsBitIdentical) {
  VQX_REQUIRE_CUDA();
  const Synthetic& s = GetParam();
  PictureFormat format = make_format(s.w, s.h, s.subsampling, s.bit_depth);
  std::vector<Picture> ref, dis;
  if (s.random) {
    ref = random_pictures(format, 4, 11 + s.w);
    dis = random_pictures(format, 4, 97 + s.h);
  } else {
    ref = make_pictures(format, {1, 2, 3, 4});
    dis = make_pictures(format, {5, 6, 7, 8});
  }
  for (const auto& config : kConfigs) {
    auto cpu = run_on_pictures(ref, dis, {config}, cpu_settings());
    auto gpu = run_on_pictures(ref, dis, {config}, cuda_settings());
    EXPECT_EQ(gpu->backend, "cuda");
    expect_identical(*cpu, *gpu, fmt::format("{}x{} {}-bit {} {}", s.w, s.h, s.bit_depth,
                                             s.random ? "random" : "ramp", config));
  }
}

INSTANTIATE_TEST_SUITE_P(
    EdgeSizes, VmafFeaturesCudaSynthetic,
    ::testing::Values(Synthetic{33, 33, ChromaSubsampling::k444, 8, true},
                      Synthetic{33, 33, ChromaSubsampling::k444, 8, false},
                      Synthetic{34, 36, ChromaSubsampling::k420, 8, true},
                      Synthetic{100, 34, ChromaSubsampling::k420, 8, false},
                      Synthetic{141, 67, ChromaSubsampling::k444, 10, true},
                      Synthetic{256, 129, ChromaSubsampling::k422, 10, false},
                      Synthetic{255, 97, ChromaSubsampling::k400, 12, true},
                      Synthetic{190, 120, ChromaSubsampling::k420, 12, false},
                      Synthetic{64, 48, ChromaSubsampling::k444, 16, true},
                      Synthetic{161, 90, ChromaSubsampling::k420, 16, false},
                      Synthetic{1000, 40, ChromaSubsampling::k420, 8, false},
                      Synthetic{719, 403, ChromaSubsampling::k444, 8, true}),
    [](const auto& info) {
      const Synthetic& s = info.param;
      return fmt::format("w{}_h{}_{}bit_{}", s.w, s.h, s.bit_depth, s.random ? "random" : "ramp");
    });

// The v0.6.1 feature set in one run (one result block per frame for the three twins, plus psnr)
// on every fixture, bit-identical to the CPU.
class VmafFeaturesCudaFixtures : public ::testing::TestWithParam<std::string> {};

TEST_P(VmafFeaturesCudaFixtures, TogetherBitIdentical) {
  VQX_REQUIRE_CUDA();
  const std::string& pair = GetParam();
  VQX_REQUIRE_FIXTURE(pair, dir);
  const std::vector<std::string> features = {"vif=debug=true", "adm=debug=true",
                                             "motion=debug=true", "psnr"};
  auto cpu = run_on_pair(pair, features, cpu_settings());
  auto gpu = run_on_pair(pair, features, cuda_settings());
  EXPECT_EQ(gpu->backend, "cuda");
  expect_identical(*cpu, *gpu, pair + " together");
}

// VMAF from the CUDA features: every feature column and the score equal libvmaf's goldens.
TEST_P(VmafFeaturesCudaFixtures, ModelScoresEqualGoldens) {
  VQX_REQUIRE_CUDA();
  const std::string& pair = GetParam();
  VQX_REQUIRE_FIXTURE(pair, dir);
  for (const std::string version : {"vmaf_v0.6.1", "vmaf_4k_v0.6.1"}) {
    vmaf::LoadedModel model = vmaf::load_model(vmaf::parse_model_request("version=" + version));
    Golden golden = load_golden(pair, "netflix-p17", version);
    auto gpu = run_on_pair(pair, model.feature_requests(), cuda_settings());
    for (const auto& name : model.feature_columns())
      expect_bit_exact(column(*gpu, name), golden.frames.at(name), pair + " cuda " + name);
    vmaf::apply_model(model, gpu->table);
    expect_bit_exact(column(*gpu, "vmaf"), golden.frames.at("vmaf"), pair + " cuda " + version);
  }
}

// Same bits on every run (integer atomics only; no float reduction depends on timing).
TEST_P(VmafFeaturesCudaFixtures, RepeatedRunsIdentical) {
  VQX_REQUIRE_CUDA();
  const std::string& pair = GetParam();
  if (pair != "n576" && pair != "uhd4k") GTEST_SKIP() << "checked on n576 and uhd4k";
  VQX_REQUIRE_FIXTURE(pair, dir);
  const std::vector<std::string> features = {"vif=debug=true", "adm=debug=true",
                                             "motion=debug=true"};
  auto first = run_on_pair(pair, features, cuda_settings());
  for (int run = 0; run < 3; ++run) {
    auto again = run_on_pair(pair, features, cuda_settings());
    expect_identical(*first, *again, fmt::format("{} repeat {}", pair, run + 1));
  }
}

INSTANTIATE_TEST_SUITE_P(Pairs, VmafFeaturesCudaFixtures, ::testing::ValuesIn(kAllPairs));

// The inputs and options the CPU refuses, refused alike.
TEST(VmafFeaturesCuda, SameRefusals) {
  VQX_REQUIRE_CUDA();
  PictureFormat small = make_format(32, 40, ChromaSubsampling::k420, 8);
  auto pics = make_pictures(small, {1, 2});
  for (const char* f : {"vif", "adm", "motion"}) {
    EXPECT_THROW(run_on_pictures(pics, pics, {f}, cpu_settings()), InputError) << f;
    EXPECT_THROW(run_on_pictures(pics, pics, {f}, cuda_settings()), InputError) << f;
  }
  PictureFormat ok = make_format(64, 64, ChromaSubsampling::k420, 8);
  auto good = make_pictures(ok, {1, 2});
  for (const char* f : {"adm=adm_csf_mode=1", "adm=adm_norm_view_dist=1.0",
                        "adm=adm_csf_mode=2:adm_ref_display_height=1000"}) {
    EXPECT_THROW(run_on_pictures(good, good, {f}, cpu_settings()), UsageError) << f;
    EXPECT_THROW(run_on_pictures(good, good, {f}, cuda_settings()), UsageError) << f;
  }
}

}  // namespace
}  // namespace vqx::test
