// ssimulacra2 per frame at 1080p (band1080) and 4K (uhd4k), 1 and 2 threads. Reference figure
// (shared/golden/README.md): the lusoris fork takes 336 ms of CPU per 1080p frame and 1715 ms per
// 4K frame on the project's 2-core machine.
#include <benchmark/benchmark.h>

#include "bench_support.h"

namespace vqx::bench {
namespace {

void BM_Ssimulacra2(benchmark::State& state, const char* pair, PictureFormat fallback) {
  auto frames = load_frames(pair, 4, fallback);
  for (auto _ : state) run_once(frames, {"ssimulacra2"}, unsigned(state.range(0)));
  report_frames(state, frames);
}

BENCHMARK_CAPTURE(BM_Ssimulacra2, 1080p, "band1080", format_1080p())
    ->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();
BENCHMARK_CAPTURE(BM_Ssimulacra2, 4k, "uhd4k", format_4k())
    ->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();

}  // namespace
}  // namespace vqx::bench

BENCHMARK_MAIN();
