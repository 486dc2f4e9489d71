// float_ms_ssim on CUDA, stage by stage: device milliseconds per frame of the product's kernels on
// one uploaded pair (band1080 / uhd4k frame 0), each stage launched eagerly on one stream with
// events around it: the pyramid (4 decimations), the windows, terms and tile sums of the 5 scales
// (one launch), the sum trees. The whole metric as the engine schedules it (side stream, scale 0
// in bands, frames in flight) is cuda_throughput_bench's; these counters say where its time goes.
// The score counter shows the sums are the metric's.
#include <benchmark/benchmark.h>

#include "bench_support.h"

#ifdef VQX_HAVE_CUDA
#include <cuda_runtime.h>

#include <array>

#include "engine/cuda/cuda_check.h"
#include "engine/cuda/device_context.h"
#include "engine/cuda_backend.h"
#include "metrics/ssim_core/cuda/ssim_cuda.h"
#include "metrics/ssim_core/ssim_stages.h"

namespace vqx::bench {
namespace {

namespace sc = ssim::cuda;
using cuda::check;
using ssim::kScales;
using ssim::Size;

struct Pipeline {
  cuda::DeviceContext& device;
  PictureFormat format;
  std::array<Size, kScales> sizes{};
  cuda::DeviceBuffer raw_ref, raw_dis, sums;
  std::array<cuda::DeviceBuffer, kScales> ref, dis, partials;
  std::array<sc::PartialSum*, kScales> partial_ptrs{};

  Pipeline(cuda::DeviceContext& d, const Picture& r, const Picture& s)
      : device(d), format(r.format()) {
    raw_ref = cuda::DeviceBuffer(device, r.size_bytes(), "bench");
    raw_dis = cuda::DeviceBuffer(device, s.size_bytes(), "bench");
    check(cudaMemcpy(raw_ref.get(), r.bytes(), r.size_bytes(), cudaMemcpyHostToDevice), "upload");
    check(cudaMemcpy(raw_dis.get(), s.bytes(), s.size_bytes(), cudaMemcpyHostToDevice), "upload");
    sizes[0] = {int(format.width), int(format.height)};
    for (int k = 1; k < kScales; ++k) sizes[k] = ssim::half_size(sizes[k - 1]);
    for (int k = 0; k < kScales; ++k) {
      if (k > 0) {
        ref[k] = cuda::DeviceBuffer(device, sizes[k].pixels() * sizeof(float), "bench");
        dis[k] = cuda::DeviceBuffer(device, sizes[k].pixels() * sizeof(float), "bench");
      }
      partials[k] = cuda::DeviceBuffer(
          device, sc::partial_count(sizes[k]) * sc::kSumQuantities * sizeof(sc::PartialSum),
          "bench");
      partial_ptrs[k] = partials[k].get<sc::PartialSum>();
    }
    sums = cuda::DeviceBuffer(device, kScales * sc::kSumQuantities * sizeof(double), "bench");
  }

  // The stages in order on one stream, an event before each and after the last.
  void enqueue(cudaStream_t s, const std::array<cudaEvent_t, 4>& marks) {
    std::array<sc::ScaleJob, kScales> jobs{};
    jobs[0].ref = sc::luma_plane(raw_ref.get(), format);
    jobs[0].dis = sc::luma_plane(raw_dis.get(), format);
    check(cudaEventRecord(marks[0], s), "event");
    for (int k = 1; k < kScales; ++k) {
      sc::enqueue_decimate(jobs[k - 1].ref, jobs[k - 1].dis, ref[k].get<float>(),
                           dis[k].get<float>(), s);
      jobs[k].ref = {ref[k].get(), sc::SampleType::kF32, 8, sizes[k]};
      jobs[k].dis = {dis[k].get(), sc::SampleType::kF32, 8, sizes[k]};
    }
    check(cudaEventRecord(marks[1], s), "event");
    sc::enqueue_windows(jobs.data(), kScales, partial_ptrs.data(), s);
    check(cudaEventRecord(marks[2], s), "event");
    sc::enqueue_reduce(sizes.data(), kScales, partial_ptrs.data(), sums.get<double>(), s);
    check(cudaEventRecord(marks[3], s), "event");
  }

  double score() const {
    double host[kScales * sc::kSumQuantities];
    check(cudaMemcpy(host, sums.get(), sizeof(host), cudaMemcpyDeviceToHost), "download");
    std::array<ssim::ScaleMeans, kScales> means{};
    for (int k = 0; k < kScales; ++k) {
      ssim::ScaleSums m;
      m.l = host[k * sc::kSumQuantities];
      m.c = host[k * sc::kSumQuantities + 1];
      m.s = host[k * sc::kSumQuantities + 2];
      m.ssim = host[k * sc::kSumQuantities + 3];
      means[size_t(k)] = m.means(ssim::map_size(sizes[k]));
    }
    bool infinite = false;
    return ssim::combine_scales(means, &infinite);
  }
};

void BM_MsSsimStages(benchmark::State& state, const char* pair, PictureFormat fallback) {
  if (!cuda_device_available(0)) {
    state.SkipWithError("no CUDA device");
    return;
  }
  auto frames = load_frames(pair, 1, fallback);
  cuda::DeviceContext device(0);
  sc::prepare_device();
  Pipeline p(device, frames.ref.at(0), frames.dis.at(0));
  cuda::Stream stream;
  std::array<cuda::Event, 4> events;
  const std::array<cudaEvent_t, 4> marks = {events[0].get(), events[1].get(), events[2].get(),
                                            events[3].get()};
  constexpr int kWarmUp = 3, kRuns = 40;
  double stage_ms[3] = {0, 0, 0};
  for (auto _ : state) {
    for (int i = 0; i < kWarmUp; ++i) p.enqueue(stream.get(), marks);
    stage_ms[0] = stage_ms[1] = stage_ms[2] = 0;
    for (int i = 0; i < kRuns; ++i) {
      p.enqueue(stream.get(), marks);
      check(cudaEventSynchronize(marks[3]), "sync");
      for (size_t k = 0; k < 3; ++k)
        stage_ms[k] += double(cuda::elapsed_ms(events[k], events[k + 1])) / kRuns;
    }
    state.SetIterationTime((stage_ms[0] + stage_ms[1] + stage_ms[2]) / 1e3);
  }
  state.counters["pyramid_ms"] = stage_ms[0];
  state.counters["windows_ms"] = stage_ms[1];
  state.counters["trees_ms"] = stage_ms[2];
  state.counters["score"] = p.score();
}

BENCHMARK_CAPTURE(BM_MsSsimStages, 1080p, "band1080", format_1080p())
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MsSsimStages, 4k, "uhd4k", format_4k())
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace vqx::bench
#endif
BENCHMARK_MAIN();
