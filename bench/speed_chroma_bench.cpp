// speed_chroma per frame at 1080p and 4K with the VMAF v1 option sets (speed.md 1.3).
// Upstream reference (speed.md 15): about 6 ms of CPU per 1080p frame and 22 ms per 4K frame.
#include <benchmark/benchmark.h>

#include <string>

#include "bench_support.h"

namespace vqx::bench {
namespace {

constexpr const char* kV1 =
    "speed_chroma=speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:speed_max_val=45";

void BM_SpeedChroma(benchmark::State& state, const char* pair, PictureFormat fallback,
                    const char* extra) {
  auto frames = load_frames(pair, 4, fallback);
  const std::string spec = std::string(kV1) + extra;
  for (auto _ : state) run_once(frames, {spec}, unsigned(state.range(0)));
  report_frames(state, frames);
}

BENCHMARK_CAPTURE(BM_SpeedChroma, 1080p_v1, "band1080", format_1080p(), "")
    ->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_SpeedChroma, 1080p_v1_ps0.6, "band1080", format_1080p(),
                  ":speed_prescale=0.6:speed_prescale_method=bilinear")
    ->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_SpeedChroma, 4k_v1, "uhd4k", format_4k(), "")
    ->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_SpeedChroma, 4k_v1_ps0.5, "uhd4k", format_4k(),
                  ":speed_prescale=0.5:speed_prescale_method=bilinear")
    ->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace vqx::bench

BENCHMARK_MAIN();
