// float_ms_ssim (and float_ssim) per frame at 1080p and 4K with 1 and 2 worker threads.
// Reference CPU cost per frame on the golden machine (shared/golden/README.md): libvmaf scalar
// float_ms_ssim 488 ms (1080p) / 1902 ms (4K); lusoris AVX2 156 / 588 ms; libvmaf float_ssim 38 /
// 133.
#include <benchmark/benchmark.h>

#include <ctime>

#include "bench_support.h"
#include "metrics/float_ms_ssim/float_ms_ssim.h"

namespace vqx::bench {
namespace {

// Engine runs; besides wall time, "cpu_ms_per_frame" is the CPU time of the whole process (all
// threads, std::clock) per frame: the figure the reference table gives.
void run_engine(benchmark::State& state, const char* pair, PictureFormat fallback,
                const char* feature) {
  auto frames = load_frames(pair, 4, fallback);
  const std::clock_t start = std::clock();
  for (auto _ : state) run_once(frames, {feature}, unsigned(state.range(0)));
  const double cpu_ms = 1000.0 * double(std::clock() - start) / CLOCKS_PER_SEC;
  state.counters["cpu_ms_per_frame"] = cpu_ms / double(state.iterations() * frames.ref.size());
  report_frames(state, frames);
}

void BM_FloatMsSsim(benchmark::State& state, const char* pair, PictureFormat fallback) {
  run_engine(state, pair, fallback, "float_ms_ssim");
}

void BM_FloatSsim(benchmark::State& state, const char* pair, PictureFormat fallback) {
  run_engine(state, pair, fallback, "float_ssim");
}

// The computation alone in the calling thread (no engine, no I/O): its CPU time is the per-frame
// CPU cost, which stays meaningful on a loaded machine. Arg: 0 = the plain kernel table, 1 = this
// host's.
void BM_FloatMsSsimCompute(benchmark::State& state, const char* pair, PictureFormat fallback) {
  auto frames = load_frames(pair, 2, fallback);
  ssim::MsSsimScratch scratch;
  const ssim::SsimKernels kernels =
      state.range(0) ? ssim::ssim_kernels() : ssim::make_ssim_kernels(CpuFeatures{});
  for (auto _ : state)
    for (size_t i = 0; i < frames.ref.size(); ++i)
      benchmark::DoNotOptimize(
          ssim::compute_ms_ssim(frames.ref[i], frames.dis[i], scratch, nullptr, kernels));
  state.SetLabel(state.range(0) ? "host table: " + host_cpu_features().describe()
                                : std::string("plain table"));
  report_frames(state, frames);
}

// Stages at scale 0 of one frame, in the calling thread: 0 = the 9x9 decimation of both planes,
// 1 = window statistics, terms and sums (ssim_scale).
void BM_FloatMsSsimStage(benchmark::State& state, const char* pair, PictureFormat fallback) {
  auto frames = load_frames(pair, 1, fallback);
  const ssim::Size size{int(frames.ref[0].format().width), int(frames.ref[0].format().height)};
  std::vector<float> r(size.pixels()), d(size.pixels()), half(ssim::half_size(size).pixels());
  ssim::convert_luma(frames.ref[0], r.data());
  ssim::convert_luma(frames.dis[0], d.data());
  const ssim::SsimKernels& kernels = ssim::ssim_kernels();
  for (auto _ : state) {
    if (state.range(0) == 0) {
      ssim::decimate(r.data(), size, half.data(), nullptr, kernels);
      ssim::decimate(d.data(), size, half.data(), nullptr, kernels);
    } else {
      benchmark::DoNotOptimize(ssim::ssim_scale(r.data(), d.data(), size, nullptr, kernels));
    }
  }
  state.SetLabel(state.range(0) == 0 ? "decimate x2" : "ssim_scale");
}

BENCHMARK_CAPTURE(BM_FloatMsSsimStage, 1080p, "band1080", format_1080p())
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FloatMsSsimStage, 4k, "uhd4k", format_4k())
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FloatMsSsimCompute, 1080p, "band1080", format_1080p())
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FloatMsSsimCompute, 4k, "uhd4k", format_4k())
    ->Arg(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FloatMsSsim, 1080p, "band1080", format_1080p())
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_FloatMsSsim, 4k, "uhd4k", format_4k())
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_FloatSsim, 1080p, "band1080", format_1080p())
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_FloatSsim, 4k, "uhd4k", format_4k())
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace vqx::bench

BENCHMARK_MAIN();
