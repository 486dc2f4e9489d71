// Device throughput of the CUDA metrics, the way the engine schedules them: every metric on its
// own stream(s), K replicas of each non-temporal metric taking frames round-robin (--gpu_frames
// K), each (metric, replica) replaying its captured CUDA graph. One frame pair is uploaded once
// and scored `kFrames` times, so file reading and uploads (host and copy-engine work) are left
// out: the figure is device time per frame with K frames in flight, timed with events over the
// whole batch after a warm-up. Single-frame device time per stage is --profile's job.
#include <benchmark/benchmark.h>

#include "bench_support.h"

#ifdef VQX_HAVE_CUDA
#include <cuda_runtime.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/cuda/cuda_check.h"
#include "engine/cuda/cuda_metric.h"
#include "engine/cuda/device_context.h"
#include "engine/cuda_backend.h"

namespace vqx::bench {
namespace {

constexpr int kFrames = 96;

class NoMarks final : public StageMarks {
 public:
  void stage(cudaStream_t, size_t) override {}
};

struct Lane {
  std::unique_ptr<CudaMetric> metric;
  std::unique_ptr<cuda::Stream> stream;
  cuda::DeviceBuffer result;
  cuda::GraphExec graph;
};

// Device ms per frame for `specs` with `replicas` frames in flight per non-temporal metric.
void BM_CudaThroughput(benchmark::State& state, const char* pair, PictureFormat fallback,
                       std::vector<std::string> specs, unsigned replicas) {
  if (!cuda_device_available(0)) {
    state.SkipWithError("no CUDA device");
    return;
  }
  auto frames = load_frames(pair, 1, fallback);
  const Picture& ref = frames.ref.at(0);
  const Picture& dis = frames.dis.at(0);
  cuda::DeviceContext device(0);
  const size_t bytes = ref.size_bytes();
  cuda::DeviceBuffer pair_buffer(device, 2 * bytes, "frame pair");
  cuda::check(cudaMemcpy(pair_buffer.get(), ref.bytes(), bytes, cudaMemcpyHostToDevice), "upload");
  cuda::check(cudaMemcpy(pair_buffer.get<uint8_t>() + bytes, dis.bytes(), bytes,
                         cudaMemcpyHostToDevice),
              "upload");
  CudaFrame frame{pair_buffer.get<uint8_t>(), pair_buffer.get<uint8_t>() + bytes, ref.format()};
  CudaMetricContext context{ref.format(), &device};

  // lanes[m][r]: replica r of metric m, its stream, its result slot and its graph.
  std::vector<std::vector<std::unique_ptr<Lane>>> lanes;
  NoMarks marks;
  for (const auto& spec : specs) {
    MetricRequest request = parse_metric_request(spec);
    std::vector<std::unique_ptr<Lane>> metric_lanes;
    for (unsigned r = 0; r < replicas; ++r) {
      auto lane = std::make_unique<Lane>();
      lane->metric = request.metric->make_cuda(request.options);
      lane->metric->init(context);
      lane->stream = std::make_unique<cuda::Stream>();
      lane->result = cuda::DeviceBuffer(device, lane->metric->result_bytes() + 16, "result");
      const bool temporal = lane->metric->temporal();
      metric_lanes.push_back(std::move(lane));
      if (temporal) break;  // the engine keeps one replica of a temporal metric
    }
    lanes.push_back(std::move(metric_lanes));
  }
  cuda::check(cudaDeviceSynchronize(), "init");
  for (auto& metric_lanes : lanes)
    for (auto& lane : metric_lanes) {
      cudaStream_t s = lane->stream->get();
      if (!lane->metric->graph_safe()) continue;
      lane->graph = cuda::GraphExec::capture(
          s, [&] { lane->metric->enqueue(frame, 0, s, lane->result.get(), marks); });
    }

  cuda::Stream main_stream;
  cuda::Event begin, end, fork(false);
  std::vector<std::unique_ptr<cuda::Event>> joins;
  for (auto& metric_lanes : lanes)
    for (size_t r = 0; r < metric_lanes.size(); ++r) joins.push_back(std::make_unique<cuda::Event>(false));
  auto run_batch = [&](int count) {
    cuda::check(cudaEventRecord(begin.get(), main_stream.get()), "record");
    cuda::check(cudaEventRecord(fork.get(), main_stream.get()), "record");
    for (auto& metric_lanes : lanes)
      for (auto& lane : metric_lanes)
        cuda::check(cudaStreamWaitEvent(lane->stream->get(), fork.get(), 0), "wait");
    for (int f = 0; f < count; ++f)
      for (auto& metric_lanes : lanes) {
        Lane& lane = *metric_lanes[size_t(f) % metric_lanes.size()];
        if (lane.graph)
          lane.graph.launch(lane.stream->get());
        else
          lane.metric->enqueue(frame, uint64_t(f), lane.stream->get(), lane.result.get(), marks);
      }
    size_t j = 0;
    for (auto& metric_lanes : lanes)
      for (auto& lane : metric_lanes) {
        cuda::check(cudaEventRecord(joins[j]->get(), lane->stream->get()), "record");
        cuda::check(cudaStreamWaitEvent(main_stream.get(), joins[j++]->get(), 0), "wait");
      }
    cuda::check(cudaEventRecord(end.get(), main_stream.get()), "record");
    cuda::check(cudaEventSynchronize(end.get()), "sync");
  };
  run_batch(8);  // warm-up
  for (auto _ : state) {
    run_batch(kFrames);
    state.SetIterationTime(double(cuda::elapsed_ms(begin, end)) / kFrames / 1e3);
  }
  state.counters["replicas"] = replicas;
  state.counters["peak_MiB"] = double(device.peak_bytes()) / (1 << 20);
  state.counters["fps"] = benchmark::Counter(kFrames, benchmark::Counter::kIsIterationInvariantRate);
}

const std::vector<std::string> kSs2 = {"ssimulacra2"};
const std::vector<std::string> kMsSsim = {"float_ms_ssim"};
const std::vector<std::string> kCambi = {"cambi"};
const std::vector<std::string> kVmaf = {"vif", "adm", "motion"};
const std::vector<std::string> kTrio = {"ssimulacra2", "float_ms_ssim", "cambi"};
const std::vector<std::string> kAll = {"vif", "adm", "motion", "ssimulacra2", "float_ms_ssim", "cambi"};

#define VQX_THROUGHPUT(name, pair, format, specs)                                                \
  BENCHMARK_CAPTURE(BM_CudaThroughput, name##_k1, pair, format, specs, 1)                        \
      ->Iterations(2)->UseManualTime()->Unit(benchmark::kMillisecond);                           \
  BENCHMARK_CAPTURE(BM_CudaThroughput, name##_k2, pair, format, specs, 2)                        \
      ->Iterations(2)->UseManualTime()->Unit(benchmark::kMillisecond);                           \
  BENCHMARK_CAPTURE(BM_CudaThroughput, name##_k4, pair, format, specs, 4)                        \
      ->Iterations(2)->UseManualTime()->Unit(benchmark::kMillisecond)

VQX_THROUGHPUT(1080p_ssimulacra2, "band1080", format_1080p(), kSs2);
VQX_THROUGHPUT(1080p_float_ms_ssim, "band1080", format_1080p(), kMsSsim);
VQX_THROUGHPUT(1080p_cambi, "band1080", format_1080p(), kCambi);
VQX_THROUGHPUT(1080p_vmaf_features, "band1080", format_1080p(), kVmaf);
VQX_THROUGHPUT(1080p_trio, "band1080", format_1080p(), kTrio);
VQX_THROUGHPUT(1080p_all, "band1080", format_1080p(), kAll);
VQX_THROUGHPUT(4k_ssimulacra2, "uhd4k", format_4k(), kSs2);
VQX_THROUGHPUT(4k_float_ms_ssim, "uhd4k", format_4k(), kMsSsim);
VQX_THROUGHPUT(4k_cambi, "uhd4k", format_4k(), kCambi);
VQX_THROUGHPUT(4k_vmaf_features, "uhd4k", format_4k(), kVmaf);
VQX_THROUGHPUT(4k_trio, "uhd4k", format_4k(), kTrio);
VQX_THROUGHPUT(4k_all, "uhd4k", format_4k(), kAll);

}  // namespace
}  // namespace vqx::bench
#endif

BENCHMARK_MAIN();
