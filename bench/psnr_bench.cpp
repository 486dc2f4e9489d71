// psnr per frame at 1080p and 4K; a floor for I/O-free engine overhead.
#include <benchmark/benchmark.h>

#include "bench_support.h"

namespace vqx::bench {
namespace {

void BM_Psnr(benchmark::State& state, const char* pair, PictureFormat fallback) {
  auto frames = load_frames(pair, 4, fallback);
  for (auto _ : state) run_once(frames, {"psnr"}, unsigned(state.range(0)));
  report_frames(state, frames);
}

BENCHMARK_CAPTURE(BM_Psnr, 1080p, "band1080", format_1080p())->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Psnr, 4k, "uhd4k", format_4k())->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace vqx::bench

BENCHMARK_MAIN();
