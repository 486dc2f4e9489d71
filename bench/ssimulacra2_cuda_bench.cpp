// ssimulacra2 on CUDA: device milliseconds per frame (the metric's CUDA graph replayed on one
// uploaded pair after a warm-up, timed with events) at 1080p (band1080) and 4K (uhd4k), for the
// tiled horizontal pass and the plain row walk, with and without the scales on side streams.
// Targets (issue 7): <= 0.25 ms at 1080p and <= 1.0 ms at 4K on one H200.
#include <benchmark/benchmark.h>

#include "bench_support.h"

#ifdef VQX_HAVE_CUDA
#include "engine/cuda_backend.h"
#include "metrics/ssimulacra2/cuda/ssimulacra2_cuda.h"

namespace vqx::bench {
namespace {

void BM_Ssimulacra2Device(benchmark::State& state, const char* pair, PictureFormat fallback,
                          bool row_walk, bool concurrent) {
  if (!cuda_device_available(0)) {
    state.SkipWithError("no CUDA device");
    return;
  }
  auto frames = load_frames(pair, 1, fallback);
  const ssimulacra2::YuvMatrix matrix = ssimulacra2::make_yuv_matrix(0);
  ssimulacra2::cuda::PipelineOptions options;
  options.row_walk = row_walk;
  options.concurrent = concurrent;
  ssimulacra2::cuda::DeviceTiming t;
  for (auto _ : state) {
    t = ssimulacra2::cuda::time_device_frames(frames.ref.at(0), frames.dis.at(0), &matrix, options,
                                              200);
    state.SetIterationTime(t.ms_per_frame / 1e3);
  }
  state.counters["peak_MiB"] = double(t.peak_bytes) / (1 << 20);
  state.counters["concurrent"] = t.concurrent ? 1 : 0;
  state.counters["score"] = t.score;
}

#define VQX_SS2_DEVICE(name, pair, format, walk, concurrent)                                     \
  BENCHMARK_CAPTURE(BM_Ssimulacra2Device, name, pair, format, walk, concurrent)                  \
      ->Iterations(3)->UseManualTime()->Unit(benchmark::kMillisecond)

VQX_SS2_DEVICE(1080p_tiled, "band1080", format_1080p(), false, true);
VQX_SS2_DEVICE(1080p_tiled_sequential, "band1080", format_1080p(), false, false);
VQX_SS2_DEVICE(1080p_rowwalk_sequential, "band1080", format_1080p(), true, false);
VQX_SS2_DEVICE(4k_tiled, "uhd4k", format_4k(), false, true);
VQX_SS2_DEVICE(4k_rowwalk, "uhd4k", format_4k(), true, true);

}  // namespace
}  // namespace vqx::bench
#endif

BENCHMARK_MAIN();
