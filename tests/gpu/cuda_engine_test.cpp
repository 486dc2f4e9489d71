// The CUDA engine: psnr's twin on synthetic inputs of every layout and depth, frame selection
// through the pipeline, device state for temporal metrics, --profile, and clear errors.
#include <fmt/format.h>

#include <tuple>

#include "engine/cuda/cuda_check.h"
#include "engine/cuda/cuda_metric.h"
#include "engine/cuda/device_context.h"
#include "core/error.h"
#include "gpu/gpu_support.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

PictureFormat make_format(uint32_t w, uint32_t h, ChromaSubsampling s, uint8_t depth) {
  PictureFormat f;
  f.width = w;
  f.height = h;
  f.subsampling = s;
  f.bit_depth = depth;
  return f;
}

void expect_same_tables(const RunReport& cpu, const RunReport& gpu, const std::string& label) {
  ASSERT_EQ(cpu.table.feature_names(), gpu.table.feature_names()) << label;
  ASSERT_EQ(cpu.table.frame_count(), gpu.table.frame_count()) << label;
  for (size_t c = 0; c < cpu.table.feature_names().size(); ++c)
    for (uint64_t f = 0; f < cpu.table.frame_count(); ++f) {
      auto a = cpu.table.get(f, c), b = gpu.table.get(f, c);
      ASSERT_EQ(a.has_value(), b.has_value()) << label << " frame " << f;
      if (a) {
        EXPECT_TRUE(same_bits(*a, *b)) << fmt::format("{} {} frame {}: cpu {:.17g} cuda {:.17g}", label,
                                                      cpu.table.feature_names()[c], f, *a, *b);
      }
    }
  ASSERT_EQ(cpu.table.aggregates().size(), gpu.table.aggregates().size()) << label;
  for (size_t i = 0; i < cpu.table.aggregates().size(); ++i)
    EXPECT_TRUE(same_bits(cpu.table.aggregates()[i].second, gpu.table.aggregates()[i].second))
        << label << " " << cpu.table.aggregates()[i].first;
}

class PsnrCudaFormats : public ::testing::TestWithParam<PictureFormat> {};

// Odd sizes put plane starts off 16-byte alignment (the kernel's scalar head and tail); tiny
// planes have no vector part at all.
TEST_P(PsnrCudaFormats, BitIdenticalToCpu) {
  VQX_REQUIRE_CUDA();
  const PictureFormat& f = GetParam();
  auto ref = random_pictures(f, 5, 1), dis = random_pictures(f, 5, 2);
  for (const char* config : {"psnr=enable_mse=true:enable_apsnr=true", "psnr=enable_chroma=false"}) {
    auto cpu = run_on_pictures(ref, dis, {config}, cpu_settings());
    auto gpu = run_on_pictures(ref, dis, {config}, cuda_settings());
    expect_same_tables(*cpu, *gpu, f.describe() + " " + config);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Layouts, PsnrCudaFormats,
    ::testing::Values(make_format(1, 1, ChromaSubsampling::k420, 8),
                      make_format(3, 5, ChromaSubsampling::k444, 8),
                      make_format(17, 9, ChromaSubsampling::k420, 8),
                      make_format(853, 481, ChromaSubsampling::k444, 8),
                      make_format(64, 64, ChromaSubsampling::k422, 8),
                      make_format(255, 257, ChromaSubsampling::k420, 8),
                      make_format(33, 17, ChromaSubsampling::k420, 10),
                      make_format(640, 361, ChromaSubsampling::k422, 12),
                      make_format(129, 65, ChromaSubsampling::k400, 10),
                      make_format(31, 31, ChromaSubsampling::k444, 16),
                      make_format(1920, 1080, ChromaSubsampling::k420, 16)),
    [](const ::testing::TestParamInfo<PictureFormat>& info) {
      return fmt::format("w{}h{}s{}d{}", info.param.width, info.param.height,
                         int(info.param.subsampling), int(info.param.bit_depth));
    });

// Largest possible 16-bit differences: per-sample squares near 2^32 need 64-bit sums.
TEST(PsnrCuda, ExtremeSixteenBitDifferencesAreExact) {
  VQX_REQUIRE_CUDA();
  PictureFormat f = make_format(1920, 1080, ChromaSubsampling::k444, 16);
  std::vector<Picture> ref, dis;
  ref.emplace_back(f);
  dis.emplace_back(f);
  std::fill_n(ref[0].plane<uint16_t>(0), size_t{3} * 1920 * 1080, uint16_t{0});
  std::fill_n(dis[0].plane<uint16_t>(0), size_t{3} * 1920 * 1080, uint16_t{65535});
  auto gpu = run_on_pictures(ref, dis, {"psnr=enable_mse=true"}, cuda_settings());
  auto cpu = run_on_pictures(ref, dis, {"psnr=enable_mse=true"}, cpu_settings());
  expect_same_tables(*cpu, *gpu, "extreme 16-bit");
  EXPECT_EQ(column(*gpu, "mse_y")[0], 65535.0 * 65535.0);
}

TEST(PsnrCuda, IdenticalFramesHitTheCap) {
  VQX_REQUIRE_CUDA();
  auto pics = random_pictures(make_format(320, 240, ChromaSubsampling::k420, 8), 2, 7);
  auto gpu = run_on_pictures(pics, pics, {"psnr"}, cuda_settings());
  EXPECT_EQ(column(*gpu, "psnr_y"), (std::vector<double>{60.0, 60.0}));
}

// A temporal probe: each frame reports the previous frame's first luma sample, kept in device
// memory between frames (no host copy of it), and the end of clip reports the last one through
// the flush step. Its CPU twin does the same on the host.
class ProbeCpu final : public CpuMetric {
 public:
  std::vector<std::string> feature_names() const override { return {"probe_prev"}; }
  void init(const MetricContext&) override {}
  bool temporal() const override { return true; }
  void extract(const Picture& ref, const Picture&, uint64_t frame, FeatureWriter& out) override {
    out.put(frame, 0, prev_);
    prev_ = ref.bytes()[0];
  }
  void flush(FeatureWriter& out) override { out.put_aggregate("probe_last", prev_); }

 private:
  double prev_ = -1;
};

class ProbeCuda final : public CudaMetric {
 public:
  std::vector<std::string> feature_names() const override { return {"probe_prev"}; }
  void init(const CudaMetricContext& context) override {
    state_ = cuda::DeviceBuffer(*context.device, sizeof(uint32_t), "probe state");
    cuda::check(cudaMemset(state_.get(), 0xff, sizeof(uint32_t)), "probe init");
  }
  size_t result_bytes() const override { return sizeof(uint32_t); }
  bool temporal() const override { return true; }
  void enqueue(const CudaFrame& frame, uint64_t, cudaStream_t stream, void* result,
               StageMarks& marks) override {
    marks.stage(stream, 0);
    cuda::check(cudaMemcpyAsync(result, state_.get(), 4, cudaMemcpyDeviceToDevice, stream), "probe");
    cuda::check(cudaMemsetAsync(state_.get(), 0, 4, stream), "probe");
    cuda::check(cudaMemcpyAsync(state_.get(), frame.ref, 1, cudaMemcpyDeviceToDevice, stream), "probe");
  }
  void collect(const void* result, uint64_t frame, FeatureWriter& out) override {
    uint32_t v = *static_cast<const uint32_t*>(result);
    out.put(frame, 0, v == 0xffffffffu ? -1.0 : double(v));
  }
  size_t flush_bytes() const override { return sizeof(uint32_t); }
  void enqueue_flush(cudaStream_t stream, void* result) override {
    cuda::check(cudaMemcpyAsync(result, state_.get(), 4, cudaMemcpyDeviceToDevice, stream), "probe");
  }
  void finish(const void* result, FeatureWriter& out) override {
    out.put_aggregate("probe_last", double(*static_cast<const uint32_t*>(result)));
  }

 private:
  cuda::DeviceBuffer state_;
};

const MetricDescriptor& probe_descriptor() {
  static const MetricDescriptor d{
      "probe", "test probe", {}, [](const OptionValues&) { return std::make_unique<ProbeCpu>(); },
      [](const OptionValues&) { return std::make_unique<ProbeCuda>(); }};
  return d;
}

TEST(CudaEngine, TemporalMetricKeepsDeviceStateInOrderAndFlushes) {
  VQX_REQUIRE_CUDA();
  PictureFormat f = make_format(64, 32, ChromaSubsampling::k420, 8);
  auto ref = random_pictures(f, 11, 3), dis = random_pictures(f, 11, 4);
  std::vector<MetricRequest> requests = {MetricRequest{&probe_descriptor(), {}, "probe"},
                                         parse_metric_request("psnr")};
  for (uint64_t subsample : {1, 3}) {
    RunSettings cpu_s = cpu_settings(), gpu_s = cuda_settings();
    cpu_s.subsample = gpu_s.subsample = subsample;
    class Reader final : public FrameSource {
     public:
      explicit Reader(const std::vector<Picture>& p) : FrameSource("memory"), p_(p) {}
      const PictureFormat& format() const override { return p_[0].format(); }
      bool read(Picture& out) override {
        if (frames_read_ >= p_.size()) return false;
        std::memcpy(out.bytes(), p_[frames_read_++].bytes(), out.size_bytes());
        return true;
      }

     private:
      const std::vector<Picture>& p_;
    };
    Reader r1(ref), d1(dis), r2(ref), d2(dis);
    auto cpu = run_metrics(r1, d1, requests, cpu_s);
    auto gpu = run_metrics(r2, d2, requests, gpu_s);
    expect_same_tables(*cpu, *gpu, fmt::format("probe subsample {}", subsample));
    auto prev = column(*gpu, "probe_prev");
    EXPECT_EQ(prev[0], -1.0);
    for (size_t i = 1; i < prev.size(); ++i) EXPECT_EQ(prev[i], double(ref[i - 1].bytes()[0]));
    ASSERT_EQ(gpu->table.aggregates().size(), 1u);
    EXPECT_EQ(gpu->table.aggregates()[0].second, double(ref.back().bytes()[0]));
  }
}

TEST(CudaEngine, ProfilePrintsStagesTransfersAndPeakMemory) {
  VQX_REQUIRE_CUDA();
  auto ref = random_pictures(make_format(640, 360, ChromaSubsampling::k420, 8), 6, 5);
  auto dis = random_pictures(make_format(640, 360, ChromaSubsampling::k420, 8), 6, 6);
  RunSettings s = cuda_settings();
  s.profile = true;
  ::testing::internal::CaptureStderr();
  auto profiled = run_on_pictures(ref, dis, {"psnr"}, s);
  std::string text = ::testing::internal::GetCapturedStderr();
  auto plain = run_on_pictures(ref, dis, {"psnr"}, cuda_settings());
  expect_same_tables(*plain, *profiled, "profiled");
  for (const char* needle : {"upload H2D", "psnr: sse", "psnr: clear", "readback D2H",
                             "host read", "peak device memory", "MiB"})
    EXPECT_NE(text.find(needle), std::string::npos) << needle << " missing from:\n" << text;
}

// Every CUDA metric in one run: side by side on their own streams from graphs (the default), one
// after another with eager launches (the serial schedule --profile runs), side by side again, and
// with 1 or 3 frames of each non-temporal metric in flight must give the same bits, frame
// selection and the temporal metric (motion) included; the exact twins must also equal the CPU.
TEST(CudaEngine, MetricsSideBySideGiveTheSameBitsAsOneAfterAnother) {
  VQX_REQUIRE_CUDA();
  const std::vector<std::string> all = {"psnr",          "vif",        "adm",
                                        "motion",        "cambi",      "speed_chroma",
                                        "ssimulacra2",   "float_ms_ssim", "float_ssim"};
  const std::vector<std::string> exact = {"psnr",  "vif",          "adm",          "motion",
                                          "cambi", "speed_chroma", "float_ssim"};
  for (auto [w, h, depth] : {std::tuple{256u, 192u, uint8_t(8)}, std::tuple{333u, 201u, uint8_t(10)}}) {
    auto f = make_format(w, h, ChromaSubsampling::k420, depth);
    auto ref = random_pictures(f, 7, 21), dis = random_pictures(f, 7, 22);
    for (uint64_t subsample : {1, 2}) {
      RunSettings s = cuda_settings();
      s.subsample = subsample;
      const std::string label = fmt::format("{}x{} {}-bit subsample {}", w, h, depth, subsample);
      auto side_by_side = run_on_pictures(ref, dis, all, s);
      RunSettings serial = s;
      serial.profile = true;
      ::testing::internal::CaptureStderr();
      auto in_turn = run_on_pictures(ref, dis, all, serial);
      const std::string profile = ::testing::internal::GetCapturedStderr();
      EXPECT_NE(profile.find("vqx profile"), std::string::npos) << label << ": not the serial run";
      auto again = run_on_pictures(ref, dis, all, s);
      expect_same_tables(*in_turn, *side_by_side, label + " side by side vs in turn");
      expect_same_tables(*side_by_side, *again, label + " repeated");
      for (unsigned frames : {1u, 3u}) {
        RunSettings f_s = s;
        f_s.gpu_frames = frames;
        expect_same_tables(*in_turn, *run_on_pictures(ref, dis, all, f_s),
                           fmt::format("{} --gpu_frames {}", label, frames));
      }
      RunSettings c = cpu_settings();
      c.subsample = subsample;
      expect_same_tables(*run_on_pictures(ref, dis, exact, c), *run_on_pictures(ref, dis, exact, s),
                         label + " exact twins vs cpu");
    }
  }
}

TEST(CudaEngine, AutoPicksCudaWhenEveryMetricHasATwin) {
  VQX_REQUIRE_CUDA();
  auto pics = random_pictures(make_format(32, 32, ChromaSubsampling::k420, 8), 1, 9);
  RunSettings s;
  s.backend = Backend::kAuto;
  std::string line;
  s.backend_chosen = [&](const BackendChoice& c) { line = c.description; };
  EXPECT_EQ(run_on_pictures(pics, pics, {"psnr"}, s)->backend, "cuda");
  EXPECT_EQ(line, fmt::format("cuda ({}, device 0)", cuda_device_name(0)));
}

TEST(CudaEngine, MissingDeviceIsAClearError) {
  VQX_REQUIRE_CUDA();
  EXPECT_FALSE(cuda_device_available(99));
  auto pics = random_pictures(make_format(32, 32, ChromaSubsampling::k420, 8), 1, 9);
  RunSettings s = cuda_settings();
  s.gpu = 99;
  try {
    run_on_pictures(pics, pics, {"psnr"}, s);
    FAIL() << "no error for --gpu 99";
  } catch (const RuntimeFailure& e) {
    EXPECT_NE(std::string(e.what()).find("--gpu 99"), std::string::npos) << e.what();
  }
}

TEST(CudaEngine, AllocationFailureIsARuntimeFailureAndLeavesTheDeviceUsable) {
  VQX_REQUIRE_CUDA();
  cuda::DeviceContext device(0);
  try {
    device.allocate(size_t{1} << 50, "an impossible buffer");
    FAIL() << "a 1 PiB allocation succeeded";
  } catch (const RuntimeFailure& e) {
    EXPECT_NE(std::string(e.what()).find("an impossible buffer"), std::string::npos) << e.what();
  }
  EXPECT_EQ(device.bytes_in_use(), 0u);
  {
    cuda::DeviceBuffer a(device, 1000, "a"), b(device, 3000, "b");
    EXPECT_EQ(device.bytes_in_use(), 4000u);
  }
  EXPECT_EQ(device.bytes_in_use(), 0u);
  EXPECT_EQ(device.peak_bytes(), 4000u);
  auto pics = random_pictures(make_format(32, 32, ChromaSubsampling::k420, 8), 1, 9);
  EXPECT_EQ(run_on_pictures(pics, pics, {"psnr"}, cuda_settings())->backend, "cuda");
}

}  // namespace
}  // namespace vqx::test
