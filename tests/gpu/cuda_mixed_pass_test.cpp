// A CUDA run whose request includes metrics without a CUDA twin: those run on the CPU beside the
// device in the same pass, over a copy of the host frames. The run must equal a CPU-only run value
// for value and column for column (libvmaf's output order), announce every frame once, in order,
// with all of its values, and refuse frames it cannot hand to the CPU.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/error.h"
#include "gpu/gpu_support.h"
#include "io/readers.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

PictureFormat make_format(uint32_t w, uint32_t h, uint8_t depth) {
  PictureFormat f;
  f.width = w;
  f.height = h;
  f.subsampling = ChromaSubsampling::k420;
  f.bit_depth = depth;
  return f;
}

// CUDA and CPU-only metrics interleaved, temporal ones on both sides.
const std::vector<std::string> kMixed = {"float_psnr", "psnr", "float_moment", "float_ssim=enable_db=true",
                                         "float_motion", "motion", "float_ansnr"};

std::unique_ptr<RunReport> run(const std::vector<Picture>& ref, const std::vector<Picture>& dis,
                               RunSettings s, std::vector<uint64_t>* announced = nullptr) {
  if (announced)
    s.frame_final = [announced](uint64_t frame, const ResultTable& table) {
      for (size_t c = 0; c < table.feature_names().size(); ++c) {
        if (!table.frame_selected(frame)) continue;
        EXPECT_TRUE(table.get(frame, c).has_value())
            << table.feature_names()[c] << " missing when frame " << frame << " is final";
      }
      announced->push_back(frame);
    };
  return run_on_pictures(ref, dis, kMixed, s);
}

void expect_same(const RunReport& cpu, const RunReport& mixed, const std::string& label) {
  ASSERT_EQ(cpu.table.feature_names(), mixed.table.feature_names()) << label;
  EXPECT_EQ(cpu.table.output_order(), mixed.table.output_order()) << label;
  ASSERT_EQ(cpu.table.frame_count(), mixed.table.frame_count()) << label;
  for (size_t c = 0; c < cpu.table.feature_names().size(); ++c)
    for (uint64_t f = 0; f < cpu.table.frame_count(); ++f) {
      const auto a = cpu.table.get(f, c), b = mixed.table.get(f, c);
      ASSERT_EQ(a.has_value(), b.has_value()) << label << " " << cpu.table.feature_names()[c];
      if (!a) continue;
      EXPECT_TRUE(same_bits(*a, *b)) << fmt::format("{} {} frame {}: cpu {:.17g} mixed {:.17g}",
                                                    label, cpu.table.feature_names()[c], f, *a, *b);
    }
  ASSERT_EQ(cpu.table.aggregates().size(), mixed.table.aggregates().size()) << label;
  for (size_t i = 0; i < cpu.table.aggregates().size(); ++i) {
    EXPECT_EQ(cpu.table.aggregates()[i].first, mixed.table.aggregates()[i].first) << label;
    EXPECT_TRUE(same_bits(cpu.table.aggregates()[i].second, mixed.table.aggregates()[i].second))
        << label << " " << cpu.table.aggregates()[i].first;
  }
}

TEST(CudaMixedPass, AutoRunsOnTheDeviceAndNamesTheCpuFeatures) {
  VQX_REQUIRE_CUDA();
  std::vector<MetricRequest> requests;
  for (const auto& f : kMixed) requests.push_back(parse_metric_request(f));
  RunSettings s;
  s.backend = Backend::kAuto;
  s.threads = 3;
  const BackendChoice choice = choose_backend(requests, s);
  EXPECT_EQ(choice.backend, Backend::kCuda);
  EXPECT_EQ(choice.cpu_features,
            (std::vector<std::string>{"float_psnr", "float_moment", "float_motion", "float_ansnr"}));
  EXPECT_EQ(choice.description,
            fmt::format("cuda ({}, device 0; 'float_psnr', 'float_moment', 'float_motion', "
                        "'float_ansnr' "
                        "on 3 CPU threads)",
                        cuda_device_name(0)));
  s.backend = Backend::kCuda;
  EXPECT_EQ(choose_backend(requests, s).description, choice.description);
}

TEST(CudaMixedPass, EqualsTheCpuRunInValuesOrderAndAggregates) {
  VQX_REQUIRE_CUDA();
  for (uint8_t depth : {uint8_t(8), uint8_t(10)})
    for (uint64_t subsample : {1u, 3u})
      for (unsigned threads : {0u, 4u}) {
        const PictureFormat f = make_format(96, 70, depth);
        const auto ref = random_pictures(f, 7, 11 + depth), dis = random_pictures(f, 7, 29 + depth);
        const std::string label = fmt::format("{} subsample {} threads {}", f.describe(),
                                              subsample, threads);
        RunSettings c = cpu_settings();
        c.subsample = subsample;
        RunSettings m = cuda_settings();
        m.subsample = subsample;
        m.threads = threads;
        std::vector<uint64_t> announced;
        const auto mixed = run(ref, dis, m, &announced);
        EXPECT_EQ(mixed->backend, "cuda") << label;
        expect_same(*run(ref, dis, c), *mixed, label);
        EXPECT_EQ(announced, (std::vector<uint64_t>{0, 1, 2, 3, 4, 5, 6})) << label;
      }
}

// The CPU side's frames in flight are bounded by the memory limit too, and a run says so when it
// holds fewer than the CPU threads; the values stay the CPU run's.
TEST(CudaMixedPass, TheMemoryLimitBoundsTheCpuSideAndSaysSo) {
  VQX_REQUIRE_CUDA();
  const PictureFormat f = make_format(96, 70, 8);
  const auto ref = random_pictures(f, 7, 41), dis = random_pictures(f, 7, 43);
  RunSettings m = cuda_settings();
  m.threads = 8;
  // The CPU side (float_moment, float_ansnr, float_psnr: 28 bytes a pixel) takes about 200 KiB a
  // frame with its pictures: 640 KiB holds 2 or 3 frames, fewer than the 8 threads.
  m.memory_limit = 640 << 10;
  std::vector<std::string> notices;
  m.warn = [&](const std::string& text) { notices.push_back(text); };
  const auto mixed = run(ref, dis, m);
  // The device side may say that the limit bounds its own frames too; one notice is the CPU's.
  const auto cpu_notice = std::find_if(notices.begin(), notices.end(), [](const std::string& n) {
    return n.find(" frames in flight for 8 threads") != std::string::npos;
  });
  ASSERT_NE(cpu_notice, notices.end()) << fmt::format("{}", fmt::join(notices, " | "));
  EXPECT_NE(cpu_notice->find("the memory limit of 640 KiB (--memory_limit) holds "),
            std::string::npos)
      << *cpu_notice;
  expect_same(*run(ref, dis, cpu_settings()), *mixed, "under 640 KiB");
}

TEST(CudaMixedPass, ACpuMetricsFailureFailsTheRun) {
  VQX_REQUIRE_CUDA();
  PictureFormat gray = make_format(64, 48, 8);
  gray.subsampling = ChromaSubsampling::k400;  // motion_add_uv needs chroma
  const auto pics = random_pictures(gray, 2, 5);
  try {
    run_on_pictures(pics, pics, {"psnr", "float_motion=motion_add_uv=true"}, cuda_settings());
    FAIL() << "float_motion added the chroma of 4:0:0 input";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("motion_add_uv needs chroma"), std::string::npos)
        << e.what();
  }
}

TEST(CudaMixedPass, RefusesDistortedFramesThatTheDeviceWouldScale) {
  VQX_REQUIRE_CUDA();
  const auto ref = random_pictures(make_format(64, 48, 8), 2, 5);
  const auto dis = random_pictures(make_format(32, 24, 8), 2, 6);
  auto r = open_memory(ref, "reference");
  auto d = open_memory(dis, "distorted");
  const std::vector<MetricRequest> requests = {parse_metric_request("psnr"),
                                               parse_metric_request("float_moment")};
  RunSettings s = cuda_settings();
  s.scale = ScaleMode{};
  try {
    run_metrics(*r, *d, requests, s);
    FAIL() << "a device-scaled run handed unscaled frames to the CPU";
  } catch (const RuntimeFailure& e) {
    EXPECT_NE(std::string(e.what()).find("'float_moment' has no CUDA twin"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace vqx::test
