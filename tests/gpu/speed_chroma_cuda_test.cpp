// The CUDA twin of speed_chroma (src/metrics/speed_chroma/cuda) against the CPU twin and the
// libvmaf goldens, bit for bit (shared/spec/README.md, VMAF row; speed.md 15):
//  - host-side, no device needed: the shared per-sample/per-entry functions the kernels run
//    (speed_chroma_kernels.h) against the CPU's stage functions (preprocess_plane_staged,
//    offset_means, covariance_plain) on fixture frames and synthetic pictures of every layout,
//    bit depth and prescale mode;
//  - on the device: the three v1 configurations on every fixture against the CPU and the goldens
//    (including the n576 prescale cases where every image is singular), synthetic edge inputs
//    and option sets, repeated runs, the same refusals;
//  - the eight vmaf_v1.0.16_* models end to end with --backend cuda (cambi, adm, motion and
//    speed_chroma all on the device), every feature and the VMAF score equal to the goldens.
#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "core/error.h"
#include "gpu/gpu_support.h"
#include "io/readers.h"
#include "metrics/speed_chroma/cuda/speed_chroma_kernels.h"
#include "metrics/speed_chroma/speed_chroma.h"
#include "metrics/speed_core/speed_covariance.h"
#include "metrics/speed_core/speed_preprocess.h"
#include "metrics/vmaf/model.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

namespace twin = speed::cuda_twin;

const std::vector<std::string> kGoldenConfigs = {"speed_chroma_v1", "speed_chroma_v1_ps0.6",
                                                 "speed_chroma_v1_ps0.5"};
const char* kV1 = "speed_chroma=speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:"
                  "speed_max_val=45";

std::string config_text(const std::string& golden_config) {
  if (golden_config == "speed_chroma_v1_ps0.6")
    return std::string(kV1) + ":speed_prescale=0.6:speed_prescale_method=bilinear";
  if (golden_config == "speed_chroma_v1_ps0.5")
    return std::string(kV1) + ":speed_prescale=0.5:speed_prescale_method=bilinear";
  return kV1;
}

bool same_floats(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// ---------------------------------------------------------------------------------------------
// Host twin of the device path: the kernels' functions called on the CPU, with host tables.

struct HostTwin {
  speed::Geometry g;
  twin::KernelParams p{};
  speed::BilinearAxis bx, by;
  std::vector<uint32_t> nx, ny;

  HostTwin(const PictureFormat& f, double prescale, speed::PrescaleMethod method, float ks = 1.0f) {
    speed::SpeedParams sp;
    sp.prescale = prescale;
    sp.method = method;
    sp.kernel_scale = ks;
    g = speed::checked_geometry(f, sp);
    const speed::SpeedFilters filters = speed::make_filters(ks);
    p.w = g.w, p.h = g.h, p.sw = g.sw, p.sh = g.sh, p.ow = g.ow, p.oh = g.oh;
    p.tw = g.tw, p.th = g.th, p.mw = g.mw, p.mh = g.mh, p.n = g.n;
    p.bytes_per_sample = f.bytes_per_sample();
    p.bit_depth = f.bit_depth;
    p.divisor = float(1u << (f.bit_depth - 8));
    p.antialias_n = uint32_t(filters.antialias.size());
    p.mean_n = uint32_t(filters.mean.size());
    for (size_t k = 0; k < filters.antialias.size(); ++k) p.antialias[k] = filters.antialias[k];
    for (size_t k = 0; k < filters.mean.size(); ++k) p.mean[k] = filters.mean[k];
    for (unsigned c = 0; c < 2; ++c) {
      p.plane_offset[c] = f.plane_offset(1 + c);
      p.plane_stride[c] = f.plane_width(1 + c);
    }
    const bool identity = !g.prescale_active || (g.sw == g.w && g.sh == g.h);
    if (identity) {
      p.mode = twin::kIdentity;
    } else if (method == speed::PrescaleMethod::kBilinear) {
      p.mode = twin::kBilinear;
      bx = speed::make_bilinear_axis(g.w, g.sw);
      by = speed::make_bilinear_axis(g.h, g.sh);
      p.bx_i1 = bx.i1.data(), p.bx_i2 = bx.i2.data(), p.bx_frac = bx.frac.data();
      p.by_i1 = by.i1.data(), p.by_i2 = by.i2.data(), p.by_frac = by.frac.data();
    } else {
      p.mode = twin::kNearest;
      nx = speed::make_nearest_axis(g.w, g.sw);
      ny = speed::make_nearest_axis(g.h, g.sh);
      p.nx = nx.data(), p.ny = ny.data();
    }
  }

  // E (tw x th) of plane 1 or 2, as the decimate and residual kernels compute it.
  std::vector<float> residual(const Picture& pic, unsigned plane) const {
    std::vector<float> d(size_t(g.ow) * g.oh);
    for (uint32_t i = 0; i < g.oh; ++i)
      for (uint32_t j = 0; j < g.ow; ++j)
        d[size_t(i) * g.ow + j] = twin::decimated_sample(p, pic.bytes(), plane - 1, i, j);
    std::vector<float> e(size_t(g.tw) * g.th);
    for (uint32_t i = 0; i < g.th; ++i)
      for (uint32_t j = 0; j < g.tw; ++j)
        e[size_t(i) * g.tw + j] = twin::residual_sample(p, d.data(), i, j);
    return e;
  }
};

// The kernels' arithmetic equals the CPU's stages on one picture, both chroma planes.
void expect_twin_matches_cpu(const Picture& pic, double prescale, speed::PrescaleMethod method,
                             float ks, const std::string& label) {
  HostTwin t(pic.format(), prescale, method, ks);
  const speed::SpeedFilters filters = speed::make_filters(ks);
  for (unsigned plane = 1; plane <= 2; ++plane) {
    const std::string what = fmt::format("{} plane {}", label, plane);
    speed::Image cpu_e;
    speed::preprocess_plane_staged(pic, plane, t.g, method, filters, cpu_e);
    // E: the CPU's full ow x oh, cropped to tw x th (all that later stages read).
    std::vector<float> cpu_crop(size_t(t.g.tw) * t.g.th);
    for (uint32_t i = 0; i < t.g.th; ++i)
      for (uint32_t j = 0; j < t.g.tw; ++j) cpu_crop[size_t(i) * t.g.tw + j] = cpu_e.at(i, j);
    const std::vector<float> e = t.residual(pic, plane);
    ASSERT_TRUE(same_floats(cpu_crop, e)) << what << ": E differs";
    // Means and K.
    const auto mu = speed::offset_means(cpu_e, t.g);
    std::vector<double> dev;
    speed::offset_deviations(cpu_e, t.g, mu, dev);
    speed::Matrix25 k;
    speed::covariance_plain(dev, t.g, k);
    float twin_mu[25];
    for (uint32_t q = 0; q < 25; ++q) {
      twin_mu[q] = twin::offset_mean(t.p, e.data(), q);
      ASSERT_EQ(std::memcmp(&twin_mu[q], &mu[q], 4), 0) << what << ": mu_" << q;
    }
    for (uint32_t index = 0; index < twin::kPairs; ++index) {
      uint32_t q, qp;
      twin::pair_of(index, q, qp);
      ASSERT_LE(qp, q);
      const float v = twin::covariance_entry(t.p, e.data(), twin_mu, q, qp);
      ASSERT_EQ(std::memcmp(&v, &k[q * 25 + qp], 4), 0) << what << ": K[" << q << "][" << qp << "]";
    }
  }
}

TEST(SpeedChromaCudaTwin, PairIndexCoversTheLowerTriangleInOrder) {
  uint32_t expect_q = 0, expect_qp = 0;
  for (uint32_t index = 0; index < twin::kPairs; ++index) {
    uint32_t q, qp;
    twin::pair_of(index, q, qp);
    EXPECT_EQ(q, expect_q);
    EXPECT_EQ(qp, expect_qp);
    if (++expect_qp > expect_q) ++expect_q, expect_qp = 0;
  }
  EXPECT_EQ(expect_q, 25u);
}

TEST(SpeedChromaCudaTwin, FixtureFramesMatchCpuStages) {
  struct Mode {
    double ps;
    speed::PrescaleMethod method;
  };
  const Mode modes[] = {{1.0, speed::PrescaleMethod::kNearest},
                        {0.6, speed::PrescaleMethod::kBilinear},
                        {0.5, speed::PrescaleMethod::kBilinear}};
  for (const auto& pair : kAllPairs) {
    auto dir = fixture_dir(pair);
    if (!dir) {
      if (fixtures_required()) FAIL() << "fixture " << pair << " is missing";
      GTEST_SKIP() << "fixtures not available (set VQX_FIXTURES)";
    }
    for (const char* side : {"ref", "dis"}) {
      auto reader = open_y4m(*dir + "/" + side + ".y4m", side);
      Picture pic(reader->format());
      ASSERT_TRUE(reader->read(pic));
      for (const Mode& m : modes) {
        const double ps = m.ps;
        // n576 at ps 0.5/0.6 and every other pair: all geometries of speed.md 4 are legal.
        expect_twin_matches_cpu(pic, ps, m.method, 1.0f, fmt::format("{} {} ps {}", pair, side, ps));
      }
    }
  }
}

struct SyntheticTwin {
  uint32_t w, h;
  ChromaSubsampling s;
  uint8_t bits;
  double ps;
  speed::PrescaleMethod method;
  float ks;
};

class SpeedChromaCudaTwinSynthetic : public ::testing::TestWithParam<SyntheticTwin> {};

TEST_P(SpeedChromaCudaTwinSynthetic, MatchesCpuStages) {
  const SyntheticTwin& c = GetParam();
  const PictureFormat f = make_format(c.w, c.h, c.s, c.bits);
  for (const Picture& pic : random_pictures(f, 1, c.w * 7 + c.h)) {
    expect_twin_matches_cpu(pic, c.ps, c.method, c.ks, "random " + f.describe());
  }
  for (const Picture& pic : make_pictures(f, {3})) {
    expect_twin_matches_cpu(pic, c.ps, c.method, c.ks, "ramp " + f.describe());
  }
}

constexpr auto kBil = speed::PrescaleMethod::kBilinear;
constexpr auto kNear = speed::PrescaleMethod::kNearest;
INSTANTIATE_TEST_SUITE_P(
    Layouts, SpeedChromaCudaTwinSynthetic,
    ::testing::Values(SyntheticTwin{160, 160, ChromaSubsampling::k420, 8, 1.0, kNear, 1.0f},
                      SyntheticTwin{161, 163, ChromaSubsampling::k420, 8, 1.0, kNear, 1.0f},
                      SyntheticTwin{333, 321, ChromaSubsampling::k420, 10, 0.6, kBil, 1.0f},
                      SyntheticTwin{400, 170, ChromaSubsampling::k422, 10, 1.0, kNear, 1.0f},
                      SyntheticTwin{213, 199, ChromaSubsampling::k444, 12, 0.5, kBil, 1.0f},
                      SyntheticTwin{170, 181, ChromaSubsampling::k444, 16, 1.0, kNear, 1.0f},
                      SyntheticTwin{200, 190, ChromaSubsampling::k444, 8, 1.5, kBil, 1.0f},
                      SyntheticTwin{430, 350, ChromaSubsampling::k420, 8, 0.6, kNear, 1.0f},
                      SyntheticTwin{320, 240, ChromaSubsampling::k444, 8, 1.0, kNear, 0.5f},
                      SyntheticTwin{330, 250, ChromaSubsampling::k444, 8, 1.0, kNear, 2.0f}),
    [](const auto& info) { return fmt::format("case{}", info.index); });

// ---------------------------------------------------------------------------------------------
// On the device.

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

class SpeedChromaCudaFixtures : public ::testing::TestWithParam<std::string> {};

// The three v1 configurations: every output of every frame equals the CPU and the golden.
TEST_P(SpeedChromaCudaFixtures, GoldenConfigsBitIdentical) {
  VQX_REQUIRE_CUDA();
  const std::string& pair = GetParam();
  VQX_REQUIRE_FIXTURE(pair, dir);
  for (const auto& config : kGoldenConfigs) {
    auto cpu = run_on_pair(pair, {config_text(config)}, cpu_settings());
    auto gpu = run_on_pair(pair, {config_text(config)}, cuda_settings());
    EXPECT_EQ(gpu->backend, "cuda");
    expect_identical(*cpu, *gpu, pair + " " + config);
    const Golden golden = load_golden(pair, "netflix-p17", config);
    size_t checked = 0;
    for (const auto& [name, values] : golden.frames) {
      if (name.rfind("speed_chroma", 0) != 0) continue;
      expect_bit_exact(column(*gpu, name), values, pair + " cuda " + name);
      ++checked;
    }
    EXPECT_EQ(checked, 3u) << pair << " " << config;
  }
}

// Same bits on every run (no floating-point reduction depends on timing or grid shape).
TEST_P(SpeedChromaCudaFixtures, RepeatedRunsIdentical) {
  VQX_REQUIRE_CUDA();
  const std::string& pair = GetParam();
  if (pair != "band1080" && pair != "uhd4k") GTEST_SKIP() << "checked on band1080 and uhd4k";
  VQX_REQUIRE_FIXTURE(pair, dir);
  const std::vector<std::string> features = {config_text("speed_chroma_v1"),
                                             config_text("speed_chroma_v1_ps0.6")};
  auto first = run_on_pair(pair, features, cuda_settings());
  for (int run = 0; run < 3; ++run) {
    auto again = run_on_pair(pair, features, cuda_settings());
    expect_identical(*first, *again, fmt::format("{} repeat {}", pair, run + 1));
  }
}

INSTANTIATE_TEST_SUITE_P(Pairs, SpeedChromaCudaFixtures, ::testing::ValuesIn(kAllPairs));

// Synthetic inputs: layouts, bit depths, the resamplers, kernel scales and weighting modes.
TEST(SpeedChromaCuda, SyntheticOptionsBitIdentical) {
  VQX_REQUIRE_CUDA();
  const std::vector<std::string> configs = {
      "speed_chroma",
      std::string(kV1),
      std::string(kV1) + ":speed_prescale=1.5:speed_prescale_method=bilinear",
      std::string(kV1) + ":speed_prescale=0.75:speed_prescale_method=bilinear",
      std::string(kV1) + ":speed_prescale=0.6",
      std::string(kV1) + ":speed_kernelscale=0.5",
      std::string(kV1) + ":speed_kernelscale=2",
      "speed_chroma=speed_weight_var_mode=1",
      "speed_chroma=speed_weight_var_mode=3:speed_nn_floor=0.3",
      "speed_chroma=speed_weight_var_mode=6:speed_max_val=10",
  };
  struct Input {
    uint32_t w, h;
    ChromaSubsampling s;
    uint8_t bits;
    bool random;
  };
  const Input inputs[] = {{320, 240, ChromaSubsampling::k420, 8, false},
                          {321, 243, ChromaSubsampling::k420, 8, true},
                          {400, 250, ChromaSubsampling::k422, 10, false},
                          {333, 211, ChromaSubsampling::k444, 12, false},
                          {260, 190, ChromaSubsampling::k444, 16, true}};
  for (const Input& in : inputs) {
    const PictureFormat f = make_format(in.w, in.h, in.s, in.bits);
    std::vector<Picture> ref, dis;
    if (in.random) {
      ref = random_pictures(f, 3, 5 + in.w);
      dis = random_pictures(f, 3, 9 + in.h);
    } else {
      ref = make_pictures(f, {1, 2, 3});
      dis = make_pictures(f, {4, 5, 6});
    }
    for (const auto& config : configs) {
      std::unique_ptr<RunReport> cpu, gpu;
      try {
        cpu = run_on_pictures(ref, dis, {config}, cpu_settings());
      } catch (const InputError&) {
        EXPECT_THROW(run_on_pictures(ref, dis, {config}, cuda_settings()), InputError)
            << f.describe() << " " << config;
        continue;
      }
      gpu = run_on_pictures(ref, dis, {config}, cuda_settings());
      expect_identical(*cpu, *gpu, fmt::format("{} {}", f.describe(), config));
    }
  }
}

// The inputs and options the CPU refuses, refused alike.
TEST(SpeedChromaCuda, SameRefusals) {
  VQX_REQUIRE_CUDA();
  struct Bad {
    PictureFormat format;
    std::string config;
  };
  const std::vector<Bad> bad_inputs = {
      {make_format(158, 200, ChromaSubsampling::k420, 8), kV1},  // chroma 79 wide: too small
      {make_format(320, 240, ChromaSubsampling::k400, 8), kV1},  // no chroma
      {make_format(300, 300, ChromaSubsampling::k420, 8),
       std::string(kV1) + ":speed_prescale=0.5:speed_prescale_method=bilinear"},  // 75 after 0.5
      {make_format(1000, 200, ChromaSubsampling::k444, 8),
       std::string(kV1) + ":speed_prescale=1.0005"},  // inactive prescale that changes the size
  };
  for (const Bad& b : bad_inputs) {
    auto pics = make_pictures(b.format, {1, 2});
    EXPECT_THROW(run_on_pictures(pics, pics, {b.config}, cpu_settings()), InputError)
        << b.format.describe() << " " << b.config;
    EXPECT_THROW(run_on_pictures(pics, pics, {b.config}, cuda_settings()), InputError)
        << b.format.describe() << " " << b.config;
  }
  auto good = make_pictures(make_format(320, 240, ChromaSubsampling::k420, 8), {1, 2});
  for (const char* config : {"speed_chroma=speed_kernelscale=0.9",
                             "speed_chroma=speed_prescale=0.5:speed_prescale_method=bicubic"}) {
    EXPECT_THROW(run_on_pictures(good, good, {config}, cpu_settings()), UsageError) << config;
    EXPECT_THROW(run_on_pictures(good, good, {config}, cuda_settings()), UsageError) << config;
  }
}

// ---------------------------------------------------------------------------------------------
// The eight VMAF v1 models end to end on the GPU: cambi, adm, motion and speed_chroma all run on
// the device (one run per pair for all eight models), and every golden column and the VMAF score
// of each model equal libvmaf's, hence the CPU's.
const std::vector<std::string> kV1Models = {
    "vmaf_v1.0.16_3d0h",     "vmaf_v1.0.16_5d0h",     "vmaf_v1.0.16_1d5h_2160",
    "vmaf_v1.0.16_3d0h_2160", "vmaf_v1.0.16_hfr_3d0h", "vmaf_v1.0.16_hfr_5d0h",
    "vmaf_v1.0.16_hfr_1d5h_2160", "vmaf_v1.0.16_hfr_3d0h_2160"};

// Every extractor the eight v1 models request has a CUDA twin (checked without a device).
TEST(VmafV1Cuda, EveryRequestedExtractorHasACudaTwin) {
  std::vector<std::string> args;
  for (const auto& m : kV1Models) args.push_back("version=" + m + ":name=" + m);
  auto requests = vmaf::model_metric_requests(vmaf::load_models(args));
  EXPECT_GE(requests.size(), 4u);
  for (const auto& r : requests) {
    EXPECT_NE(r.metric->make_cuda, nullptr) << r.spec_text;
    std::printf("v1 request: %s\n", r.spec_text.c_str());
  }
}

class VmafV1Cuda : public ::testing::TestWithParam<std::string> {};

TEST_P(VmafV1Cuda, AllEightModelsEqualGoldens) {
  VQX_REQUIRE_CUDA();
  const std::string& pair = GetParam();
  VQX_REQUIRE_FIXTURE(pair, dir);
  std::vector<std::string> args;
  for (const auto& m : kV1Models) args.push_back("version=" + m + ":name=" + m);
  auto models = vmaf::load_models(args);
  auto requests = vmaf::model_metric_requests(models);
  auto ref = open_y4m(dir + "/ref.y4m", "reference");
  auto dis = open_y4m(dir + "/dis.y4m", "distorted");
  auto report = run_metrics(*ref, *dis, requests, cuda_settings());
  ASSERT_EQ(report->backend, "cuda");
  for (const auto& model : models) vmaf::apply_model(model, report->table);
  for (const auto& m : kV1Models) {
    const Golden golden = load_golden(pair, "netflix-p17", m);
    size_t checked = 0;
    for (const auto& [name, values] : golden.frames) {
      const std::string column_name = name == "vmaf" ? m : name;
      if (!report->table.find_feature(column_name)) continue;
      expect_bit_exact(column(*report, column_name), values,
                       fmt::format("{} cuda {} {}", pair, m, column_name));
      ++checked;
    }
    EXPECT_EQ(checked, golden.frames.size()) << pair << " " << m << ": every golden column";
    auto pooled = pool(column(*report, m));
    const auto& g = golden.pooled.at("vmaf");
    EXPECT_EQ(pooled.mean, g.at("mean")) << pair << " " << m;
    EXPECT_EQ(pooled.harmonic_mean, g.at("harmonic_mean")) << pair << " " << m;
    std::printf("v1 cuda %-9s %-28s %zu columns bit-exact checked, mean %.17g\n", pair.c_str(),
                m.c_str(), checked, pooled.mean);
  }
}

INSTANTIATE_TEST_SUITE_P(Pairs, VmafV1Cuda, ::testing::ValuesIn(kAllPairs));

}  // namespace
}  // namespace vqx::test
