// libvmaf's integer vif + adm + motion (the v0.6.1 feature set) per frame at 1080p and 4K, 1 and 2
// threads; also each extractor alone. The machine is shared, so besides wall time each case
// reports cpu_ms_per_frame: the process CPU time (user + sys, all threads, getrusage) spent in the
// timed loop, per frame. Each iteration builds new extractors, so their reused buffers
// (vmaf_common/workspace_pool.h) are allocated once per 4 frames here. The comparison with
// libvmaf, end to end and side by side, is bench/thread_scaling.py's.
//   --benchmark_filter=v061_all --benchmark_repetitions=3
#include <sys/resource.h>

#include <benchmark/benchmark.h>

#include "bench_support.h"

namespace vqx::bench {
namespace {

double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto sec = [](const timeval& t) { return double(t.tv_sec) + 1e-6 * double(t.tv_usec); };
  return sec(u.ru_utime) + sec(u.ru_stime);
}

void BM_VmafFeatures(benchmark::State& state, const char* pair, PictureFormat fallback,
                     std::vector<std::string> features) {
  auto frames = load_frames(pair, 4, fallback);
  const double cpu_start = process_cpu_seconds();
  for (auto _ : state) run_once(frames, features, unsigned(state.range(0)));
  const double cpu = process_cpu_seconds() - cpu_start;
  report_frames(state, frames);
  state.counters["cpu_ms_per_frame"] =
      1000.0 * cpu / (double(state.iterations()) * double(frames.ref.size()));
}

#define VQX_VMAF_BENCH(name, ...)                                                              \
  BENCHMARK_CAPTURE(BM_VmafFeatures, name##_1080p, "band1080", format_1080p(),                  \
                    std::vector<std::string>{__VA_ARGS__})                                      \
      ->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();                           \
  BENCHMARK_CAPTURE(BM_VmafFeatures, name##_4k, "uhd4k", format_4k(),                           \
                    std::vector<std::string>{__VA_ARGS__})                                      \
      ->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()

VQX_VMAF_BENCH(v061_all, "vif", "adm", "motion");
VQX_VMAF_BENCH(vif, "vif");
VQX_VMAF_BENCH(adm, "adm");
VQX_VMAF_BENCH(motion, "motion");

}  // namespace
}  // namespace vqx::bench

BENCHMARK_MAIN();
