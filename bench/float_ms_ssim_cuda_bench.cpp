// float_ms_ssim on CUDA: device milliseconds per frame of each kernel variant (sc::SpeedVariants)
// on one uploaded pair (band1080 / uhd4k frame 0): per stage with events around eager launches
// (pyramid, windows, sum trees), and the whole frame replayed as a CUDA graph. Every variant gives
// the same planes (tests/gpu/float_ms_ssim_cuda_test); the score counter shows the sums agree.
// Target (issue 8 item 4): <= 0.1 ms at 1080p and <= 0.3 ms at 4K on one H200.
#include <benchmark/benchmark.h>

#include "bench_support.h"

#ifdef VQX_HAVE_CUDA
#include <cuda_runtime.h>

#include <array>
#include <stdexcept>

#include "engine/cuda_backend.h"
#include "metrics/float_ms_ssim/cuda/ssim_cuda.h"
#include "metrics/float_ms_ssim/ssim_stages.h"

namespace vqx::bench {
namespace {

namespace sc = ssim::cuda;
using ssim::kScales;
using ssim::Size;

void ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

struct Pipeline {
  std::array<Size, kScales> sizes{};
  std::array<float*, kScales> ref{}, dis{};
  std::array<sc::PartialSum*, kScales> partials{};
  void* raw_ref = nullptr;
  void* raw_dis = nullptr;
  double* sums = nullptr;
  PictureFormat format;

  Pipeline(const Picture& r, const Picture& d) : format(r.format()) {
    ok(cudaMalloc(&raw_ref, r.size_bytes()), "malloc");
    ok(cudaMalloc(&raw_dis, d.size_bytes()), "malloc");
    ok(cudaMemcpy(raw_ref, r.bytes(), r.size_bytes(), cudaMemcpyHostToDevice), "upload");
    ok(cudaMemcpy(raw_dis, d.bytes(), d.size_bytes(), cudaMemcpyHostToDevice), "upload");
    sizes[0] = {int(format.width), int(format.height)};
    for (int k = 1; k < kScales; ++k) sizes[k] = ssim::half_size(sizes[k - 1]);
    for (int k = 0; k < kScales; ++k) {
      if (k > 0) {
        ok(cudaMalloc(&ref[k], sizes[k].pixels() * 4), "malloc");
        ok(cudaMalloc(&dis[k], sizes[k].pixels() * 4), "malloc");
      }
      ok(cudaMalloc(&partials[k], sc::partial_count(sizes[k]) * sc::kSumQuantities * sizeof(sc::PartialSum)),
         "malloc");
    }
    ok(cudaMalloc(&sums, kScales * sc::kSumQuantities * sizeof(double)), "malloc");
  }
  ~Pipeline() {
    for (int k = 0; k < kScales; ++k) {
      cudaFree(ref[k]);
      cudaFree(dis[k]);
      cudaFree(partials[k]);
    }
    cudaFree(raw_ref);
    cudaFree(raw_dis);
    cudaFree(sums);
    if (side) {
      cudaStreamDestroy(side);
      cudaEventDestroy(fork_event);
      cudaEventDestroy(join_event);
    }
  }

  cudaStream_t side = nullptr;
  cudaEvent_t fork_event = nullptr, join_event = nullptr;

  // The metric's enqueue (float_ms_ssim_cuda.cpp), with events between the stages when given.
  void enqueue(cudaStream_t s, cudaEvent_t* marks, bool fork) {
    std::array<sc::ScaleJob, kScales> jobs{};
    jobs[0].ref = sc::luma_plane(raw_ref, format);
    jobs[0].dis = sc::luma_plane(raw_dis, format);
    if (marks) ok(cudaEventRecord(marks[0], s), "event");
    if (fork) {  // VQX_SSIM_FORK=1's schedule
      if (!side) {
        ok(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking), "stream");
        ok(cudaEventCreateWithFlags(&fork_event, cudaEventDisableTiming), "event");
        ok(cudaEventCreateWithFlags(&join_event, cudaEventDisableTiming), "event");
      }
      ok(cudaEventRecord(fork_event, s), "fork");
      ok(cudaStreamWaitEvent(side, fork_event, 0), "fork");
      for (int k = 1; k < kScales; ++k) {
        sc::enqueue_decimate(jobs[k - 1].ref, jobs[k - 1].dis, ref[k], dis[k], side);
        jobs[k].ref = {ref[k], sc::SampleType::kF32, 8, sizes[k]};
        jobs[k].dis = {dis[k], sc::SampleType::kF32, 8, sizes[k]};
      }
      sc::enqueue_windows(jobs.data() + 1, kScales - 1, partials.data() + 1, side);
      ok(cudaEventRecord(join_event, side), "join");
      sc::enqueue_windows(jobs.data(), 1, partials.data(), s);
      if (marks) ok(cudaEventRecord(marks[1], s), "event");
      ok(cudaStreamWaitEvent(s, join_event, 0), "join");
      if (marks) ok(cudaEventRecord(marks[2], s), "event");
      sc::enqueue_reduce(sizes.data(), kScales, partials.data(), sums, s);
      if (marks) ok(cudaEventRecord(marks[3], s), "event");
      return;
    }
    for (int k = 1; k < kScales; ++k) {
      sc::enqueue_decimate(jobs[k - 1].ref, jobs[k - 1].dis, ref[k], dis[k], s);
      jobs[k].ref = {ref[k], sc::SampleType::kF32, 8, sizes[k]};
      jobs[k].dis = {dis[k], sc::SampleType::kF32, 8, sizes[k]};
    }
    if (marks) ok(cudaEventRecord(marks[1], s), "event");
    sc::enqueue_windows(jobs.data(), kScales, partials.data(), s);
    if (marks) ok(cudaEventRecord(marks[2], s), "event");
    sc::enqueue_reduce(sizes.data(), kScales, partials.data(), sums, s);
    if (marks) ok(cudaEventRecord(marks[3], s), "event");
  }
};

void BM_MsSsimDevice(benchmark::State& state, const char* pair, PictureFormat fallback, int window,
                     int decimate, int reduce, bool fork) {
  if (!cuda_device_available(0)) {
    state.SkipWithError("no CUDA device");
    return;
  }
  auto frames = load_frames(pair, 1, fallback);
  sc::prepare_device();
  const sc::SpeedVariants saved = sc::speed_variants();
  sc::set_speed_variants({window, decimate, reduce});
  Pipeline p(frames.ref.at(0), frames.dis.at(0));
  cudaStream_t s;
  ok(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
  cudaEvent_t marks[4];
  for (auto& e : marks) ok(cudaEventCreate(&e), "event");
  constexpr int kRuns = 40, kReplays = 100;
  double stage_ms[3] = {0, 0, 0}, graph_ms = 0;
  for (auto _ : state) {
    for (int i = 0; i < 3; ++i) p.enqueue(s, nullptr, fork);  // warm-up
    stage_ms[0] = stage_ms[1] = stage_ms[2] = 0;
    for (int i = 0; i < kRuns; ++i) {
      p.enqueue(s, marks, fork);
      ok(cudaEventSynchronize(marks[3]), "sync");
      for (int k = 0; k < 3; ++k) {
        float ms = 0;
        ok(cudaEventElapsedTime(&ms, marks[k], marks[k + 1]), "elapsed");
        stage_ms[k] += ms / kRuns;
      }
    }
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    ok(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "capture");
    p.enqueue(s, nullptr, fork);
    ok(cudaStreamEndCapture(s, &graph), "capture");
    ok(cudaGraphInstantiate(&exec, graph, 0), "instantiate");
    for (int i = 0; i < 5; ++i) ok(cudaGraphLaunch(exec, s), "launch");
    ok(cudaEventRecord(marks[0], s), "event");
    for (int i = 0; i < kReplays; ++i) ok(cudaGraphLaunch(exec, s), "launch");
    ok(cudaEventRecord(marks[1], s), "event");
    ok(cudaEventSynchronize(marks[1]), "sync");
    float ms = 0;
    ok(cudaEventElapsedTime(&ms, marks[0], marks[1]), "elapsed");
    graph_ms = ms / kReplays;
    state.SetIterationTime(graph_ms / 1e3);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
  }
  double sums[kScales * sc::kSumQuantities];
  ok(cudaMemcpy(sums, p.sums, sizeof(sums), cudaMemcpyDeviceToHost), "download");
  std::array<ssim::ScaleMeans, kScales> means{};
  for (int k = 0; k < kScales; ++k) {
    ssim::ScaleSums m;
    m.l = sums[k * 4];
    m.c = sums[k * 4 + 1];
    m.s = sums[k * 4 + 2];
    m.ssim = sums[k * 4 + 3];
    means[size_t(k)] = m.means(ssim::map_size(p.sizes[k]));
  }
  state.counters["pyramid_ms"] = stage_ms[0];
  state.counters["windows_ms"] = stage_ms[1];
  state.counters["trees_ms"] = stage_ms[2];
  state.counters["graph_ms"] = graph_ms;
  bool infinite = false;
  state.counters["score"] = ssim::combine_scales(means, &infinite);
  for (auto& e : marks) cudaEventDestroy(e);
  cudaStreamDestroy(s);
  sc::set_speed_variants(saved);
}

// Counters: pyramid_ms, windows_ms, trees_ms (eager, events between stages; with fork: scale-0
// windows || pyramid + scales 1-4, join wait, trees), graph_ms (the frame as a graph, replayed).
#define VQX_MSSSIM_DEVICE(name, pair, format, w, d, r, fork)                 \
  BENCHMARK_CAPTURE(BM_MsSsimDevice, name, pair, format, w, d, r, fork)      \
      ->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond)

#define VQX_MSSSIM_BOTH(name, w, d, r, fork)                                          \
  VQX_MSSSIM_DEVICE(1080p_##name, "band1080", format_1080p(), w, d, r, fork);          \
  VQX_MSSSIM_DEVICE(4k_##name, "uhd4k", format_4k(), w, d, r, fork)

// The kept variants (session 16's pruning, docs/float_ms_ssim.md): window 44 (default) / 38,
// decimation 32 (default) / 26 / 28, reduce 1 (default) / 0; with the fork (the metric's
// schedule) and without (windows_ms = the window kernel alone).
VQX_MSSSIM_BOTH(w54d34r1f, 54, 34, 1, true);  // the defaults (session 18)
VQX_MSSSIM_BOTH(w44d34r1f, 44, 34, 1, true);  // session 16's window kernel
VQX_MSSSIM_BOTH(w54d32r1f, 54, 32, 1, true);  // session 16's level-1 kernel
VQX_MSSSIM_BOTH(w38d34r1f, 38, 34, 1, true);  // session 15's window kernel
VQX_MSSSIM_BOTH(w54d26r1f, 54, 26, 1, true);  // session 14's decimation
VQX_MSSSIM_BOTH(w54d28r1f, 54, 28, 1, true);  // decimate_rows_kernel at every size
VQX_MSSSIM_BOTH(w54d34r0f, 54, 34, 0, true);  // 256-thread trees
VQX_MSSSIM_BOTH(w54d34r1, 54, 34, 1, false);
VQX_MSSSIM_BOTH(w44d34r1, 44, 34, 1, false);
VQX_MSSSIM_BOTH(w54d34r1f_again, 54, 34, 1, true);  // drift check

}  // namespace
}  // namespace vqx::bench
#endif
BENCHMARK_MAIN();
