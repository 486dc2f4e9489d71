// ssimulacra2 on CUDA: device milliseconds per frame (the metric's CUDA graph replayed on one
// uploaded pair after a warm-up, timed with events) at 1080p (band1080) and 4K (uhd4k), for the
// default kernels and the variants kept beside them, with and without the scales on side streams.
// Targets (issue 7): <= 0.25 ms at 1080p and <= 1.0 ms at 4K on one H200.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "bench_support.h"

#ifdef VQX_HAVE_CUDA
#include "engine/cuda_backend.h"
#include "metrics/ssimulacra2/cuda/ssimulacra2_cuda.h"

namespace vqx::bench {
namespace {

enum Variant {
  kDefault = 0,
  kScalarRows = 2,     // the horizontal pass without float4
  kChain = 4,          // scales 1.. on side streams in one set of planes (4K's schedule)
  kLowRegs = 32,       // vertical/terms kernel capped at 80 registers
  kFastTerms = 128,    // terms with the inlined division, branch-free (session 13)
  kPlainTerms = 512,   // the terms kernel before the fast terms
  kBatch2 = 2048,      // fast terms two pixels at a time
  kSplitXyb = 4096,    // the downsample before the XYB, in its own kernel
  kInFlight2 = 8192,   // two frames in flight (two replicas of the buffers, two streams)
  kInFlight3 = 16384,  // three
  kFastXyb = 1 << 23,  // the XYB kernel with fewer instructions, same bits
  kPlainXyb = 1 << 25, // the XYB kernel before session 14 (the fast one is the default)
  kRowMajor = 1 << 28, // row-major XYB planes and poles2 (the default before session 15)
};
// Session 14's vertical kernel, the software-pipelined one (the default), in the bits above 30.
constexpr long long kFast14 = 1ll << 36, kLeanP = 1ll << 37;

void BM_Ssimulacra2Device(benchmark::State& state, const char* pair, PictureFormat fallback,
                          long long variant, bool concurrent) {
  if (!cuda_device_available(0)) {
    state.SkipWithError("no CUDA device");
    return;
  }
  auto frames = load_frames(pair, 1, fallback);
  const ssimulacra2::YuvMatrix matrix = ssimulacra2::make_yuv_matrix(0);
  ssimulacra2::cuda::PipelineOptions options;
  options.scalar_rows = (variant & kScalarRows) != 0;
  options.force_chain = (variant & kChain) != 0;
  options.vblur_low_regs = (variant & kLowRegs) != 0;
  if (variant & kFastTerms) options.fast_terms = true;
  if (variant & kPlainTerms) options.fast_terms = false;
  if (variant & kBatch2) options.terms_batch = 2;
  if (variant & kSplitXyb) options.split_xyb = true;
  if (variant & kFastXyb) options.fast_xyb = true;
  if (variant & kPlainXyb) options.fast_xyb = false;
  if (variant & kRowMajor) options.transposed_xyb = false;
  // The rows of the kernels before session 15 keep them (whatever the default).
  if (variant & (kLowRegs | kFastTerms | kPlainTerms | kBatch2 | kFast14)) options.vblur_pipe = false;
  if (variant & kLeanP) options.vblur_pipe = true;
  options.concurrent = concurrent;
  ssimulacra2::cuda::DeviceTiming t;
  for (auto _ : state) {
    const int in_flight = (variant & kInFlight3) ? 3 : (variant & kInFlight2) ? 2 : 1;
    t = ssimulacra2::cuda::time_device_frames(frames.ref.at(0), frames.dis.at(0), &matrix, options,
                                              200, in_flight);
    if (t.replicas_differ) state.SkipWithError("replicas differ");
    state.SetIterationTime(t.ms_per_frame / 1e3);
  }
  state.counters["peak_MiB"] = double(t.peak_bytes) / (1 << 20);
  state.counters["concurrent"] = t.concurrent ? 1 : 0;
  state.counters["score"] = t.score;
}

#define VQX_SS2_DEVICE(name, pair, format, walk, concurrent)                                     \
  BENCHMARK_CAPTURE(BM_Ssimulacra2Device, name, pair, format, walk, concurrent)                  \
      ->Iterations(2)->UseManualTime()->Unit(benchmark::kMillisecond)

// Default schedule: scales 1.. concurrent at 1080p, chained at 4K. The rows time the default
// (transposed XYB planes, blur_rows_t, leanp) beside the kept variants and the plainest kernels
// ("before": row-major planes and poles2, plain terms, plain XYB); x2: frames in flight on
// replicas.
VQX_SS2_DEVICE(1080p, "band1080", format_1080p(), kDefault, true);
VQX_SS2_DEVICE(1080p_rowmajor, "band1080", format_1080p(), kRowMajor, true);
VQX_SS2_DEVICE(1080p_rowmajor_x2, "band1080", format_1080p(), kRowMajor | kInFlight2, true);
VQX_SS2_DEVICE(1080p_plainxyb, "band1080", format_1080p(), kPlainXyb, true);
VQX_SS2_DEVICE(1080p_before, "band1080", format_1080p(), kRowMajor | kPlainTerms | kPlainXyb, true);
VQX_SS2_DEVICE(1080p_default_x2, "band1080", format_1080p(), kInFlight2, true);
VQX_SS2_DEVICE(1080p_plainxyb_x2, "band1080", format_1080p(), kPlainXyb | kInFlight2, true);
VQX_SS2_DEVICE(1080p_default_sequential, "band1080", format_1080p(), kDefault, false);
VQX_SS2_DEVICE(4k, "uhd4k", format_4k(), kDefault, true);
VQX_SS2_DEVICE(4k_rowmajor, "uhd4k", format_4k(), kRowMajor, true);
VQX_SS2_DEVICE(4k_default_x2, "uhd4k", format_4k(), kInFlight2, true);
VQX_SS2_DEVICE(4k_rowmajor_sequential, "uhd4k", format_4k(), kRowMajor, false);
VQX_SS2_DEVICE(1080p_rowmajor_sequential, "band1080", format_1080p(), kRowMajor, false);
VQX_SS2_DEVICE(4k_plainxyb, "uhd4k", format_4k(), kPlainXyb, true);
VQX_SS2_DEVICE(4k_before, "uhd4k", format_4k(), kRowMajor | kPlainTerms | kPlainXyb, true);
VQX_SS2_DEVICE(4k_default_sequential, "uhd4k", format_4k(), kDefault, false);
VQX_SS2_DEVICE(4k_plainxyb_sequential, "uhd4k", format_4k(), kPlainXyb, false);
// Session 15: session 14's vertical/terms kernel (fast14) beside the default (leanp); with the
// transposed XYB planes unless _rowmajor.
VQX_SS2_DEVICE(1080p_fast14, "band1080", format_1080p(), kFast14, true);
VQX_SS2_DEVICE(4k_fast14, "uhd4k", format_4k(), kFast14, true);
VQX_SS2_DEVICE(4k_fast14_sequential, "uhd4k", format_4k(), kFast14, false);
VQX_SS2_DEVICE(1080p_fast14_sequential, "band1080", format_1080p(), kFast14, false);
VQX_SS2_DEVICE(1080p_fast14_x2, "band1080", format_1080p(), kFast14 | kInFlight2, true);
VQX_SS2_DEVICE(1080p_rowmajor_fast14, "band1080", format_1080p(), kRowMajor | kFast14, true);
VQX_SS2_DEVICE(4k_rowmajor_fast14, "uhd4k", format_4k(), kRowMajor | kFast14, true);

// The strip schedule (session 14): rows per strip (0 = whole planes), ring depth, the scale
// schedule (0 = the metric's choice, 1 = chain, 2 = scales in sequence, 3 = concurrent) and
// frames in flight; strips apply to planes of at least min_height rows.
void BM_Ss2Strips(benchmark::State& state, const char* pair, PictureFormat fallback, int rows,
                  int depth, int schedule, int in_flight, int min_height, bool xyb = false) {
  if (!cuda_device_available(0)) {
    state.SkipWithError("no CUDA device");
    return;
  }
  auto frames = load_frames(pair, 1, fallback);
  const ssimulacra2::YuvMatrix matrix = ssimulacra2::make_yuv_matrix(0);
  ssimulacra2::cuda::PipelineOptions options;
  options.strip_rows = rows;
  options.strip_depth = depth;
  options.strip_min_height = min_height;
  options.force_chain = schedule == 1;
  options.concurrent = schedule != 2;
  options.force_concurrent = schedule == 3;
  options.strip_xyb = xyb;
  ssimulacra2::cuda::DeviceTiming t;
  for (auto _ : state) {
    t = ssimulacra2::cuda::time_device_frames(frames.ref.at(0), frames.dis.at(0), &matrix, options,
                                              200, in_flight);
    if (t.replicas_differ) state.SkipWithError("replicas differ");
    state.SetIterationTime(t.ms_per_frame / 1e3);
  }
  state.counters["peak_MiB"] = double(t.peak_bytes) / (1 << 20);
  state.counters["concurrent"] = t.concurrent ? 1 : 0;
  state.counters["score"] = t.score;
}

// The timeline of one frame (the metric's graph with timing events around each kernel), printed
// once per configuration: "trace <name> <kernel> s<scale> [strip] <start> <end>" in ms.
void BM_Ss2Trace(benchmark::State& state, const char* label, const char* pair,
                 PictureFormat fallback, int rows, int depth, int schedule, bool xyb) {
  if (!cuda_device_available(0)) {
    state.SkipWithError("no CUDA device");
    return;
  }
  auto frames = load_frames(pair, 1, fallback);
  const ssimulacra2::YuvMatrix matrix = ssimulacra2::make_yuv_matrix(0);
  ssimulacra2::cuda::PipelineOptions options;
  options.strip_rows = rows;
  options.strip_depth = depth;
  options.force_chain = schedule == 1;
  options.concurrent = schedule != 2;
  options.force_concurrent = schedule == 3;
  options.strip_min_height = 1024;
  options.strip_xyb = xyb;
  std::vector<ssimulacra2::cuda::TraceEvent> trace;
  for (auto _ : state) {
    trace = ssimulacra2::cuda::trace_device_frame(frames.ref.at(0), frames.dis.at(0), &matrix, options);
    float end = 0.0f;
    for (const auto& e : trace) end = std::max(end, e.end_ms);
    state.SetIterationTime(end / 1e3);
  }
  for (const auto& e : trace)
    std::printf("trace %s %s s%d %s %.3f %.3f\n", label, e.what.c_str(), e.scale,
                e.strip >= 0 ? std::to_string(e.strip).c_str() : "-", e.start_ms, e.end_ms);
}

#define VQX_SS2_TRACE(name, pair, format, rows, depth, schedule, xyb)                           \
  BENCHMARK_CAPTURE(BM_Ss2Trace, name, #name, pair, format, rows, depth, schedule, xyb)       \
      ->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond)

VQX_SS2_TRACE(trace_4k_default, "uhd4k", format_4k(), 0, 1, 0, false);
VQX_SS2_TRACE(trace_4k_conc, "uhd4k", format_4k(), 0, 1, 3, false);
VQX_SS2_TRACE(trace_1080p_default, "band1080", format_1080p(), 0, 1, 0, false);
VQX_SS2_TRACE(trace_4k_r256_d9_xyb_chain, "uhd4k", format_4k(), 256, 9, 1, true);

#define VQX_SS2_STRIPS(name, pair, format, rows, depth, schedule, in_flight, min_height, ...)   \
  BENCHMARK_CAPTURE(BM_Ss2Strips, name, pair, format, rows, depth, schedule, in_flight,       \
                    min_height, ##__VA_ARGS__)                                               \
      ->Iterations(2)->UseManualTime()->Unit(benchmark::kMillisecond)

VQX_SS2_STRIPS(strips_1080p_full, "band1080", format_1080p(), 0, 1, 0, 1, 1024);
VQX_SS2_STRIPS(strips_1080p_full_x2, "band1080", format_1080p(), 0, 1, 0, 2, 1024);
VQX_SS2_STRIPS(strips_1080p_r256_d2, "band1080", format_1080p(), 256, 2, 0, 1, 1024);
VQX_SS2_STRIPS(strips_1080p_r544_d1, "band1080", format_1080p(), 544, 1, 0, 1, 1024);
VQX_SS2_STRIPS(strips_1080p_r128_d8, "band1080", format_1080p(), 128, 8, 0, 1, 1024);
VQX_SS2_STRIPS(strips_4k_full, "uhd4k", format_4k(), 0, 1, 0, 1, 1024);
VQX_SS2_STRIPS(strips_4k_full_x2, "uhd4k", format_4k(), 0, 1, 0, 2, 1024);
VQX_SS2_STRIPS(strips_4k_r256_d2, "uhd4k", format_4k(), 256, 2, 0, 1, 1024);
VQX_SS2_STRIPS(strips_4k_r256_d2_x2, "uhd4k", format_4k(), 256, 2, 0, 2, 1024);
VQX_SS2_STRIPS(strips_4k_r256_d2_chain, "uhd4k", format_4k(), 256, 2, 1, 1, 1024);
VQX_SS2_STRIPS(strips_4k_r256_d2_conc, "uhd4k", format_4k(), 256, 2, 3, 1, 1024);
VQX_SS2_STRIPS(strips_4k_r128_d3, "uhd4k", format_4k(), 128, 3, 0, 1, 1024);
VQX_SS2_STRIPS(strips_4k_r512_d1, "uhd4k", format_4k(), 512, 1, 0, 1, 1024);
VQX_SS2_STRIPS(strips_4k_r1088_d1, "uhd4k", format_4k(), 1088, 1, 0, 1, 1024);
VQX_SS2_STRIPS(strips_4k_r256_d8_conc, "uhd4k", format_4k(), 256, 8, 3, 1, 1024);
VQX_SS2_STRIPS(strips_1080p_r256_d2_xyb, "band1080", format_1080p(), 256, 2, 0, 1, 1024, true);
VQX_SS2_STRIPS(strips_4k_r256_d2_xyb, "uhd4k", format_4k(), 256, 2, 0, 1, 1024, true);
VQX_SS2_STRIPS(strips_4k_r256_d8_conc_xyb, "uhd4k", format_4k(), 256, 8, 3, 1, 1024, true);
// Strip configurations whose ring (800 rows) keeps the
// metric within the engine's two-frames budget at 4K, single frame and two frames in flight.
VQX_SS2_STRIPS(strips_4k_full_conc, "uhd4k", format_4k(), 0, 1, 3, 1, 1024, false);
VQX_SS2_STRIPS(strips_4k_r768_d1_x2, "uhd4k", format_4k(), 768, 1, 0, 2, 1440);
VQX_SS2_STRIPS(strips_4k_r384_d2_x2, "uhd4k", format_4k(), 384, 2, 0, 2, 1440);
VQX_SS2_STRIPS(strips_4k_r768_d1, "uhd4k", format_4k(), 768, 1, 0, 1, 1440);
// Every strip's H in flight at once (ring = whole planes), the XYB by strips ahead: V of the
// first strips overlaps H of the last (critical path XYB -> one H walk -> the last strip's V).
VQX_SS2_STRIPS(strips_4k_r256_d9_xyb_chain, "uhd4k", format_4k(), 256, 9, 1, 1, 1024, true);
VQX_SS2_STRIPS(strips_4k_r256_d9_chain, "uhd4k", format_4k(), 256, 9, 1, 1, 1024, false);
VQX_SS2_STRIPS(strips_1080p_r128_d9_xyb, "band1080", format_1080p(), 128, 9, 0, 1, 1024, true);

}  // namespace
}  // namespace vqx::bench
#endif

BENCHMARK_MAIN();
