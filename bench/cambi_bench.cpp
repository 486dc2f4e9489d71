// cambi (default options) per frame at 1080p and 4K, 1 and 2 threads. Reference: libvmaf takes
// 49 ms of CPU per 1080p frame and 260 ms per 4K frame on this machine. Arg 0 runs in the calling
// thread, so its CPU column (divided by the 4 frames) is the CPU cost even on a loaded machine.
#include <benchmark/benchmark.h>

#include "bench_support.h"

namespace vqx::bench {
namespace {

void BM_Cambi(benchmark::State& state, const char* pair, PictureFormat fallback) {
  auto frames = load_frames(pair, 4, fallback);
  for (auto _ : state) run_once(frames, {"cambi"}, unsigned(state.range(0)));
  report_frames(state, frames);
}

BENCHMARK_CAPTURE(BM_Cambi, 1080p, "band1080", format_1080p())->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Cambi, 4k, "uhd4k", format_4k())->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace vqx::bench

BENCHMARK_MAIN();
