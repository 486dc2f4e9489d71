// speed_chroma per frame at 1080p and 4K with the VMAF v1 option sets (speed.md 1.3).
// Upstream reference (speed.md 15, golden machine, --threads 2, Y4M reading included): about
// 6 ms of CPU per 1080p frame and 22 ms per 4K frame.
//
// BM_SpeedChroma runs the whole engine (frame copies included) with 1 and 2 worker threads.
// BM_SpeedChromaExtract calls extract() directly and reports process CPU time per frame: the
// per-thread cost of the extractor itself. Its argument is the number of threads working on a
// frame: 1 = the calling thread alone (no workers), 2 = the caller plus one pool worker sharing
// the frame's four images.
#include <benchmark/benchmark.h>

#include <string>

#include "bench_support.h"
#include "engine/metric.h"
#include "core/thread_pool.h"

namespace vqx::bench {
namespace {

constexpr const char* kV1 =
    "speed_chroma=speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:speed_max_val=45";
constexpr const char* kPs06 = ":speed_prescale=0.6:speed_prescale_method=bilinear";
constexpr const char* kPs05 = ":speed_prescale=0.5:speed_prescale_method=bilinear";

void BM_SpeedChroma(benchmark::State& state, const char* pair, PictureFormat fallback,
                    const char* extra) {
  auto frames = load_frames(pair, 4, fallback);
  const std::string spec = std::string(kV1) + extra;
  for (auto _ : state) run_once(frames, {spec}, unsigned(state.range(0)));
  report_frames(state, frames);
}

class NullWriter final : public FeatureWriter {
 public:
  void put(uint64_t, size_t, double value) override { benchmark::DoNotOptimize(value); }
  void put_aggregate(const std::string&, double) override {}
};

void BM_SpeedChromaExtract(benchmark::State& state, const char* pair, PictureFormat fallback,
                           const char* extra) {
  auto frames = load_frames(pair, 4, fallback);
  MetricRequest request = parse_metric_request(std::string(kV1) + extra);
  auto metric = request.metric->make_cpu(request.options);
  ThreadPool pool(unsigned(state.range(0) - 1));
  metric->init(MetricContext{frames.ref[0].format(), &pool});
  NullWriter out;
  for (auto _ : state)
    for (size_t i = 0; i < frames.ref.size(); ++i)
      metric->extract(frames.ref[i], frames.dis[i], i, out);
  report_frames(state, frames);
}

#define VQX_SPEED_BENCH(fn, label, pair, fmt, extra) \
  BENCHMARK_CAPTURE(fn, label, pair, fmt, extra)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)

VQX_SPEED_BENCH(BM_SpeedChroma, 1080p_v1, "band1080", format_1080p(), "")->UseRealTime();
VQX_SPEED_BENCH(BM_SpeedChroma, 4k_v1, "uhd4k", format_4k(), "")->UseRealTime();
VQX_SPEED_BENCH(BM_SpeedChromaExtract, 1080p_v1, "band1080", format_1080p(), "")
    ->MeasureProcessCPUTime();
VQX_SPEED_BENCH(BM_SpeedChromaExtract, 1080p_v1_ps0.6, "band1080", format_1080p(), kPs06)
    ->MeasureProcessCPUTime();
VQX_SPEED_BENCH(BM_SpeedChromaExtract, 4k_v1, "uhd4k", format_4k(), "")->MeasureProcessCPUTime();
VQX_SPEED_BENCH(BM_SpeedChromaExtract, 4k_v1_ps0.5, "uhd4k", format_4k(), kPs05)
    ->MeasureProcessCPUTime();

}  // namespace
}  // namespace vqx::bench

BENCHMARK_MAIN();
