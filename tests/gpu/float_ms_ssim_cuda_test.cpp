// The CUDA twins of float_ms_ssim and float_ssim as metrics (shared/spec/ms_ssim.md section 10):
// - the spec's golden vectors through the engine, bit-exact; the options and the size rules as the
//   CPU's; the metric's schedule gives the one-stream stage pipeline's bits;
// - on every fixture frame: the 15 (float_ssim: 4) f32 means identical to the CPU, or a named
//   one-ulp difference of a single mean (the CPU's sequential rounding straddling an f32
//   boundary), the score within 1e-7 and identical whenever the means are; max |diff| printed;
// - the same bits on repeated runs.
// The stages one by one: ssim_cuda_stages_test.cpp, ssim_cuda_windows_test.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <tuple>
#include <utility>

#include "core/error.h"
#include "gpu/gpu_support.h"
#include "gpu/ssim_cuda_support.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

// ---- Whole metrics -----------------------------------------------------------------------------

// Spec section 11 (the generator of tests/unit/float_ms_ssim_metric_test.cpp).
std::pair<Picture, Picture> spec_pair(uint32_t w, uint32_t h, uint8_t bpc) {
  PictureFormat f;
  f.width = w;
  f.height = h;
  f.bit_depth = bpc;
  f.subsampling = ChromaSubsampling::k420;
  Picture ref(f), dis(f);
  uint32_t state = 2463534242u;
  auto rnd = [&] {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  };
  const int sh = bpc - 8;
  const int64_t max = (int64_t{1} << bpc) - 1;
  auto set = [&](Picture& p, unsigned plane, size_t i, int64_t v) {
    if (bpc > 8)
      p.plane<uint16_t>(plane)[i] = uint16_t(v);
    else
      p.plane<uint8_t>(plane)[i] = uint8_t(v);
  };
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      const int64_t v = int64_t(((3 * x + 2 * y) + ((x ^ y) & 15)) % 200 + 24) << sh;
      int64_t d = v + (int64_t(rnd() % 9) - 4) * (int64_t{1} << sh);
      if (((x / 8) + (y / 8)) % 5 == 0) d = (d >> (sh + 3)) << (sh + 3);
      d = std::clamp<int64_t>(d, 0, max);
      set(ref, 0, size_t(y) * w + x, v);
      set(dis, 0, size_t(y) * w + x, d);
    }
  for (unsigned p = 1; p < f.plane_count(); ++p)
    for (size_t i = 0; i < size_t(f.plane_width(p)) * f.plane_height(p); ++i) {
      set(ref, p, i, int64_t{128} << sh);
      set(dis, p, i, int64_t{128} << sh);
    }
  return {std::move(ref), std::move(dis)};
}

std::unique_ptr<RunReport> run_one(const std::pair<Picture, Picture>& pair,
                                   const std::string& feature, const RunSettings& settings) {
  std::vector<Picture> r, d;
  r.emplace_back(pair.first.format());
  d.emplace_back(pair.second.format());
  std::memcpy(r[0].bytes(), pair.first.bytes(), pair.first.size_bytes());
  std::memcpy(d[0].bytes(), pair.second.bytes(), pair.second.size_bytes());
  return run_on_pictures(r, d, {feature}, settings);
}

TEST(FloatMsSsimCuda, SpecGoldenVectorsBitExact) {
  VQX_REQUIRE_CUDA();
  struct Vector {
    uint32_t w, h;
    uint8_t bpc;
    double score;
  };
  for (const Vector& v :
       {Vector{176, 176, 8, 0.9953594375060858}, Vector{256, 192, 8, 0.99552853131579622},
        Vector{576, 324, 8, 0.99537055936314012}, Vector{300, 200, 10, 0.9954188853371837}}) {
    const auto pair = spec_pair(v.w, v.h, v.bpc);
    auto gpu = run_one(pair, "float_ms_ssim", cuda_settings());
    EXPECT_TRUE(same_bits(column(*gpu, "float_ms_ssim").at(0), v.score))
        << fmt::format("{}x{} {}-bit: cuda {:.17g}, spec {:.17g}", v.w, v.h, int(v.bpc),
                       column(*gpu, "float_ms_ssim").at(0), v.score);
  }
}

TEST(FloatMsSsimCuda, SpecPerScaleMeansAt576x324) {
  VQX_REQUIRE_CUDA();
  const double expected[5][3] = {
      {0.99987238645553589, 0.99596917629241943, 0.95701926946640015},
      {0.99993842840194702, 0.99927914142608643, 0.99331670999526978},
      {0.9999728798866272, 0.99986797571182251, 0.99909919500350952},
      {0.99998295307159424, 0.99998795986175537, 0.99983501434326172},
      {0.99998414516448975, 0.99999761581420898, 0.99988257884979248},
  };
  auto gpu = run_one(spec_pair(576, 324, 8), "float_ms_ssim=enable_lcs=true", cuda_settings());
  const char* terms[3] = {"l", "c", "s"};
  for (int k = 0; k < 5; ++k)
    for (int t = 0; t < 3; ++t) {
      const std::string name = fmt::format("float_ms_ssim_{}_scale{}", terms[t], k);
      EXPECT_TRUE(same_bits(column(*gpu, name).at(0), expected[k][t])) << name;
    }
}

TEST(FloatMsSsimCuda, OptionsMatchTheCpu) {
  VQX_REQUIRE_CUDA();
  const auto pair = spec_pair(256, 192, 8);
  auto same = spec_pair(256, 192, 8);
  std::memcpy(same.second.bytes(), same.first.bytes(), same.first.size_bytes());
  for (const char* feature :
       {"float_ms_ssim=enable_db=true", "float_ms_ssim=enable_db=true:clip_db=true",
        "float_ssim=enable_lcs=true:enable_db=true:clip_db=true", "float_ssim=scale=2",
        "float_ssim=scale=1"})
    for (const std::pair<Picture, Picture>* p : {&pair, &std::as_const(same)}) {
      auto cpu = run_one(*p, feature, cpu_settings());
      auto gpu = run_one(*p, feature, cuda_settings());
      ASSERT_EQ(cpu->table.feature_names(), gpu->table.feature_names()) << feature;
      for (const auto& name : cpu->table.feature_names())
        EXPECT_TRUE(same_bits(column(*cpu, name).at(0), column(*gpu, name).at(0)))
            << feature << " " << name
            << fmt::format(": cpu {:.17g} cuda {:.17g}", column(*cpu, name).at(0),
                           column(*gpu, name).at(0));
    }
  // Identical inputs: exactly 1, and +inf dB without clip_db.
  auto gpu = run_one(same, "float_ms_ssim", cuda_settings());
  EXPECT_EQ(column(*gpu, "float_ms_ssim").at(0), 1.0);
}

TEST(FloatMsSsimCuda, SizeRulesAsTheCpu) {
  VQX_REQUIRE_CUDA();
  EXPECT_NO_THROW(run_one(spec_pair(176, 176, 8), "float_ms_ssim", cuda_settings()));
  EXPECT_THROW(run_one(spec_pair(175, 176, 8), "float_ms_ssim", cuda_settings()), InputError);
  EXPECT_THROW(run_one(spec_pair(176, 175, 8), "float_ms_ssim", cuda_settings()), InputError);
  EXPECT_THROW(run_one(spec_pair(108, 200, 8), "float_ssim=scale=10", cuda_settings()), InputError);
}

// The metric's schedule (a side stream for the pyramid and scales 1-4, scale 0 in bands, the sum
// trees split between the streams) gives the sums of the stages run one after the other on one
// stream (the pyramid, the windows of all five scales in one launch, all trees in one launch),
// hence the same outputs bit for bit.
TEST(FloatMsSsimCuda, ScheduleGivesTheOneStreamPipelinesBits) {
  VQX_REQUIRE_CUDA();
  Device dev;
  for (auto [w, h, bpc] :
       {std::tuple{576u, 324u, uint8_t(8)}, std::tuple{300u, 200u, uint8_t(10)},
        std::tuple{176u, 176u, uint8_t(8)}, std::tuple{1280u, 720u, uint8_t(8)}}) {
    const auto pair = spec_pair(w, h, bpc);
    auto got = run_one(pair, "float_ms_ssim=enable_lcs=true", cuda_settings());
    // The one-stream pipeline on the same pictures.
    const PictureFormat& f = pair.first.format();
    cuda::DeviceBuffer raw_r = upload_picture(dev, pair.first),
                       raw_d = upload_picture(dev, pair.second);
    std::array<Size, ssim::kScales> sizes{};
    std::array<sc::ScaleJob, ssim::kScales> jobs{};
    std::vector<cuda::DeviceBuffer> keep;
    std::array<sc::PartialSum*, ssim::kScales> partials{};
    sizes[0] = {int(w), int(h)};
    jobs[0].ref = sc::luma_plane(raw_r.get(), f);
    jobs[0].dis = sc::luma_plane(raw_d.get(), f);
    for (int k = 0; k < ssim::kScales; ++k) {
      if (k > 0) {
        sizes[k] = ssim::half_size(sizes[k - 1]);
        keep.push_back(dev.filled(sizes[k].pixels() * 4));
        keep.push_back(dev.filled(sizes[k].pixels() * 4));
        float* lr = keep[keep.size() - 2].get<float>();
        float* ld = keep.back().get<float>();
        sc::enqueue_decimate(jobs[k - 1].ref, jobs[k - 1].dis, lr, ld, dev.stream.get());
        jobs[k].ref = {lr, sc::SampleType::kF32, 8, sizes[k]};
        jobs[k].dis = {ld, sc::SampleType::kF32, 8, sizes[k]};
      }
      keep.push_back(
          dev.filled(sc::partial_count(sizes[k]) * sc::kSumQuantities * sizeof(sc::PartialSum)));
      partials[k] = keep.back().get<sc::PartialSum>();
    }
    cuda::DeviceBuffer sums = dev.filled(ssim::kScales * sc::kSumQuantities * sizeof(double));
    sc::enqueue_windows(jobs.data(), ssim::kScales, partials.data(), dev.stream.get());
    sc::enqueue_reduce(sizes.data(), ssim::kScales, partials.data(), sums.get<double>(),
                       dev.stream.get());
    const auto host = dev.download<double>(sums, ssim::kScales * sc::kSumQuantities);
    std::array<ssim::ScaleMeans, ssim::kScales> means{};
    for (int k = 0; k < ssim::kScales; ++k) {
      ssim::ScaleSums m;
      m.l = host[size_t(k) * sc::kSumQuantities];
      m.c = host[size_t(k) * sc::kSumQuantities + 1];
      m.s = host[size_t(k) * sc::kSumQuantities + 2];
      m.ssim = host[size_t(k) * sc::kSumQuantities + 3];
      means[size_t(k)] = m.means(ssim::map_size(sizes[k]));
    }
    bool infinite = false;
    const std::string what = fmt::format("{}x{} {}-bit", w, h, int(bpc));
    EXPECT_TRUE(
        same_bits(column(*got, "float_ms_ssim").at(0), ssim::combine_scales(means, &infinite)))
        << what;
    const char* terms[3] = {"l", "c", "s"};
    for (int k = 0; k < ssim::kScales; ++k)
      for (int t = 0; t < 3; ++t) {
        const ssim::ScaleMeans& m = means[size_t(k)];
        const double expected = double(t == 0 ? m.l : t == 1 ? m.c : m.s);
        const std::string name = fmt::format("float_ms_ssim_{}_scale{}", terms[t], k);
        EXPECT_TRUE(same_bits(column(*got, name).at(0), expected)) << fmt::format(
            "{} {}: {:.17g} vs {:.17g}", what, name, column(*got, name).at(0), expected);
      }
  }
}

// The contract on every fixture frame (spec 10): the f32 means identical to the CPU's, or a single
// mean one ulp away (named in the log); the score identical when the means are, else within 1e-7.
void expect_means_contract(const std::string& pair, const std::string& feature,
                           const std::vector<std::string>& means, const std::string& score) {
  auto cpu = run_on_pair(pair, {feature}, cpu_settings());
  auto gpu = run_on_pair(pair, {feature}, cuda_settings());
  const auto cs = column(*cpu, score), gs = column(*gpu, score);
  ASSERT_EQ(cs.size(), gs.size());
  size_t identical = 0, straddles = 0;
  double max_diff = 0;
  for (size_t f = 0; f < cs.size(); ++f) {
    int differing = 0;
    for (const auto& name : means) {
      const double a = column(*cpu, name)[f], b = column(*gpu, name)[f];
      if (same_bits(a, b)) continue;
      ++differing;
      ++straddles;
      EXPECT_EQ(std::nextafter(float(a), float(b)), float(b))
          << pair << " frame " << f << " " << name;
      std::printf("straddle %s %s frame %zu %s: cpu %.17g cuda %.17g (one f32 ulp)\n", pair.c_str(),
                  feature.c_str(), f, name.c_str(), a, b);
    }
    EXPECT_LE(differing, 1) << pair << " frame " << f << ": more than one mean differs";
    const double diff = std::fabs(cs[f] - gs[f]);
    max_diff = std::max(max_diff, diff);
    if (differing == 0)
      EXPECT_TRUE(same_bits(cs[f], gs[f]))
          << fmt::format("{} frame {}: cpu {:.17g} cuda {:.17g}", pair, f, cs[f], gs[f]);
    else
      EXPECT_LE(diff, 1e-7) << pair << " frame " << f;
    identical += same_bits(cs[f], gs[f]);
  }
  std::printf("contract %-8s %-32s %zu/%zu scores identical, %zu one-ulp means, max |diff| %.3g\n",
              pair.c_str(), feature.c_str(), identical, cs.size(), straddles, max_diff);
}

class FixtureContract : public ::testing::TestWithParam<std::string> {};

TEST_P(FixtureContract, FloatMsSsimMeansAndScore) {
  VQX_REQUIRE_CUDA();
  VQX_REQUIRE_FIXTURE(GetParam(), dir);
  std::vector<std::string> means;
  for (const char* term : {"l", "c", "s"})
    for (int k = 0; k < 5; ++k) means.push_back(fmt::format("float_ms_ssim_{}_scale{}", term, k));
  expect_means_contract(GetParam(), "float_ms_ssim=enable_lcs=true", means, "float_ms_ssim");
}

TEST_P(FixtureContract, FloatSsimMeansAndScore) {
  VQX_REQUIRE_CUDA();
  VQX_REQUIRE_FIXTURE(GetParam(), dir);
  // float_ssim is itself a mean: all four outputs are compared as means.
  const std::vector<std::string> means = {"float_ssim", "float_ssim_l", "float_ssim_c",
                                          "float_ssim_s"};
  expect_means_contract(GetParam(), "float_ssim=enable_lcs=true", means, "float_ssim");
  expect_means_contract(GetParam(), "float_ssim=enable_lcs=true:scale=1", means, "float_ssim");
}

// Without enable_lcs the scales whose l mean has exponent 0 take the lean terms (c and s only,
// ScaleJob::cs_only): the score is the enable_lcs run's bit for bit, and within the contract of
// the CPU's default run (identical when no mean straddles).
TEST_P(FixtureContract, FloatMsSsimDefaultOptionsSameScore) {
  VQX_REQUIRE_CUDA();
  VQX_REQUIRE_FIXTURE(GetParam(), dir);
  auto lcs = run_on_pair(GetParam(), {"float_ms_ssim=enable_lcs=true"}, cuda_settings());
  auto lean = run_on_pair(GetParam(), {"float_ms_ssim"}, cuda_settings());
  auto cpu = run_on_pair(GetParam(), {"float_ms_ssim"}, cpu_settings());
  const auto a = column(*lcs, "float_ms_ssim"), b = column(*lean, "float_ms_ssim"),
             c = column(*cpu, "float_ms_ssim");
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ(c.size(), b.size());
  size_t identical = 0;
  for (size_t f = 0; f < a.size(); ++f) {
    EXPECT_TRUE(same_bits(a[f], b[f])) << fmt::format(
        "{} frame {}: enable_lcs {:.17g} default {:.17g}", GetParam(), f, a[f], b[f]);
    EXPECT_LE(std::fabs(b[f] - c[f]), 1e-7) << GetParam() << " frame " << f;
    identical += same_bits(b[f], c[f]);
  }
  std::printf("lean %-8s float_ms_ssim default: %zu/%zu scores identical to the CPU's\n",
              GetParam().c_str(), identical, b.size());
}

// Same bits on every run (the tree's shape is fixed; no atomics).
TEST_P(FixtureContract, RepeatedRunsGiveTheSameBits) {
  VQX_REQUIRE_CUDA();
  VQX_REQUIRE_FIXTURE(GetParam(), dir);
  const std::vector<std::string> features = {"float_ms_ssim=enable_lcs=true",
                                             "float_ssim=enable_lcs=true"};
  auto first = run_on_pair(GetParam(), features, cuda_settings());
  for (int rep = 0; rep < 2; ++rep) {
    auto again = run_on_pair(GetParam(), features, cuda_settings());
    ASSERT_EQ(first->table.feature_names(), again->table.feature_names());
    size_t compared = 0;
    for (const auto& name : first->table.feature_names()) {
      const auto a = column(*first, name), b = column(*again, name);
      ASSERT_EQ(a.size(), b.size());
      for (size_t f = 0; f < a.size(); ++f, ++compared)
        EXPECT_TRUE(same_bits(a[f], b[f])) << GetParam() << " " << name << " frame " << f;
    }
    std::printf("repeat %-8s run %d: %zu values, all identical to run 0: %s\n", GetParam().c_str(),
                rep + 1, compared, ::testing::Test::HasFailure() ? "no" : "yes");
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixtureContract, ::testing::ValuesIn(kAllPairs));

}  // namespace
}  // namespace vqx::test
