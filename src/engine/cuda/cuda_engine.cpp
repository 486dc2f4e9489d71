// The CUDA backend's run: the metrics and their device state (metric_instances.h), the schedule
// (frame_pipeline.h: slots, frames in flight, one host wait per frame), the step that brings each
// frame pair to the device (frame_upload.h) and, with --profile, the stage timings (profiler.h).
// Memory (pinned, device, graphs) is allocated once, before the first frame; graphs on first use.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>

#include "core/error.h"
#include "engine/cpu_pass.h"
#include "engine/cuda/cuda_check.h"
#include "engine/cuda/device_context.h"
#include "engine/cuda/frame_pipeline.h"
#include "engine/cuda/frame_upload.h"
#include "engine/cuda/metric_instances.h"
#include "engine/cuda/profiler.h"
#include "engine/cuda_backend.h"
#include "engine/final_frames.h"

namespace vqx {

bool cuda_device_available(int device) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return device >= 0 && device < count;
}

std::string cuda_device_name(int device) {
  cudaDeviceProp properties{};
  if (!cuda_device_available(device) ||
      cudaGetDeviceProperties(&properties, device) != cudaSuccess) {
    cudaGetLastError();
    return {};
  }
  return properties.name;
}

namespace {

// The requests that run on the CPU, as written, for messages.
std::string cpu_features(const std::vector<MetricRequest>& requests) {
  return fmt::format("{}", fmt::join(requests_without_cuda_twin(requests), "', '"));
}

// Gives the CPU metrics their copy of the frame pair just read into `slot`.
void hand_to_cpu(CpuPass& pass, const cuda::InputsUpload& upload, size_t slot, uint64_t frame,
                 const std::vector<MetricRequest>& requests) {
  const Picture* ref = upload.host_picture(slot, 0);
  const Picture* dis = upload.host_picture(slot, 1);
  if (!ref || !dis)
    throw RuntimeFailure(fmt::format(
        "feature '{}' has no CUDA twin and scores host frames, and this run's frames are in device "
        "memory (NVDEC, or device arrays); decode on the CPU or pass host arrays",
        cpu_features(requests)));
  FramePair& pair = pass.acquire();
  std::memcpy(pair.ref.bytes(), ref->bytes(), pair.ref.size_bytes());
  std::memcpy(pair.dis.bytes(), dis->bytes(), pair.dis.size_bytes());
  pass.submit(pair, frame);
}

}  // namespace

std::unique_ptr<RunReport> run_cuda(FrameSource& reference, FrameSource& distorted,
                                    const std::vector<MetricRequest>& requests,
                                    const RunSettings& settings) {
  using Clock = std::chrono::steady_clock;
  cuda::DeviceContext device(settings.gpu);
  auto report = std::make_unique<RunReport>();
  report->backend = "cuda";
  const PictureFormat format = reference.format();
  report->format = format;
  ResultTable& table = report->table;
  table.set_subsample(settings.subsample);

  const auto schedule = settings.profile ? cuda::Schedule::kSerial : cuda::Schedule::kSideBySide;
  const CudaMetricContext context{format, &device};
  cuda::MetricSet metrics;
  metrics.table = &table;
  std::vector<CpuInstance> cpu_instances;
  // Columns in request order, whichever side computes them: that order is libvmaf's output order.
  for (const auto& request : requests) {
    if (request.metric->make_cuda)
      cuda::add_metric(metrics, request);
    else
      cpu_instances.push_back(make_cpu_instance(request, table));
  }
  const PictureFormat& dis_format = distorted.format();
  if (!cpu_instances.empty() &&
      (dis_format.width != format.width || dis_format.height != format.height))
    throw RuntimeFailure(fmt::format(
        "feature '{}' has no CUDA twin and scores host frames, which this run scales on the "
        "device; scale on the host (io/scaler.h) for such a run",
        cpu_features(requests)));
  cuda::init_metrics(metrics, context, settings.profile);
  const unsigned wanted_frames =
      cuda::choose_frames_in_flight(metrics, format, schedule, settings.gpu_frames);
  // A device with too little free memory for that many frames at once runs fewer (the results do
  // not depend on it) and says so; one frame that does not fit is the error.
  unsigned frames_in_flight = wanted_frames;
  std::optional<cuda::Profiler> profiler;
  std::unique_ptr<cuda::FramePipeline> pipeline_holder;
  for (;; --frames_in_flight) {
    try {
      cuda::add_replicas(metrics, context, frames_in_flight,
                         schedule == cuda::Schedule::kSideBySide);
      if (settings.profile) profiler.emplace(metrics, cuda::slot_count_for(frames_in_flight));
      pipeline_holder = std::make_unique<cuda::FramePipeline>(
          device, metrics, format, schedule, frames_in_flight, profiler ? &*profiler : nullptr);
      break;
    } catch (const cuda::DeviceMemoryExhausted&) {
      pipeline_holder.reset();
      cuda::drop_replicas(metrics);
      if (frames_in_flight == 1) throw;
    }
  }
  if (frames_in_flight < wanted_frames && settings.warn)
    settings.warn(fmt::format(
        "CUDA {}: not enough free device memory for {} frames in flight; running {} at once",
        device.describe(), wanted_frames, frames_in_flight));
  cuda::FramePipeline& pipeline = *pipeline_holder;
  // init() may have queued work (e.g. clearing state) on the legacy stream, which the engine's
  // non-blocking streams do not wait for. Once per run, before the first frame.
  cuda::check(cudaDeviceSynchronize(), "metric initialisation");

  const size_t slot_count = pipeline.slot_count();

  skip_frames(reference, settings.skip_ref);
  skip_frames(distorted, settings.skip_dist);
  cuda::InputsUpload upload(device, reference, distorted, slot_count, settings.scale,
                           settings.warn);
  uint64_t final_lag = cpu_final_lag(cpu_instances);
  for (auto& inst : metrics.metrics) final_lag = std::max(final_lag, inst.primary().final_lag());
  // The finals outlive the CPU pass, whose workers report to them.
  FinalFrames finals(final_lag, final_frame_listener(settings, table), cpu_instances.empty() ? 1 : 2);
  std::optional<CpuPass> cpu_pass;
  if (!cpu_instances.empty())
    cpu_pass.emplace(std::move(cpu_instances), format, cuda_run_cpu_threads(settings),
                     settings.memory_limit, table, [&finals](uint64_t f) { finals.handled(f); });
  if (cpu_pass && settings.warn)
    if (auto notice = cpu_pass->memory_notice()) settings.warn(*notice);
  const auto complete = [&](uint64_t f) {
    pipeline.complete(f);
    finals.handled(f);
  };

  const auto start = Clock::now();
  uint64_t frame = 0;
  try {
    while ((settings.frame_cnt == 0 || frame < settings.frame_cnt) &&
           !(cpu_pass && cpu_pass->failed())) {
      if (frame >= slot_count) complete(frame - slot_count);
      const auto read_start = Clock::now();
      const size_t slot = pipeline.slot_of(frame);
      if (!upload.read(slot, frame)) break;
      if (profiler)
        profiler->add_read_ms(
            std::chrono::duration<double, std::milli>(Clock::now() - read_start).count());
      const uint64_t index = frame++;
      if (settings.progress) settings.progress(frame);
      if (settings.frame_read) {
        const Picture* ref = upload.host_picture(slot, 0);
        const Picture* dis = upload.host_picture(slot, 1);
        if (ref && dis) settings.frame_read(index, *ref, *dis, table);
      }
      if (cpu_pass) hand_to_cpu(*cpu_pass, upload, slot, index, requests);
      pipeline.enqueue(index, table.frame_selected(index), upload);
    }
    for (uint64_t f = frame > slot_count ? frame - slot_count : 0; f < frame; ++f) complete(f);
  } catch (...) {
    cudaDeviceSynchronize();  // let in-flight copies finish before their buffers go away
    cudaGetLastError();
    throw;
  }
  if (frame == 0) throw InputError("no frames to score: the inputs hold no frame after skipping");
  table.set_frame_count(frame);
  pipeline.finish();
  if (cpu_pass) cpu_pass->finish();
  finals.finish(frame);
  const double wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  report->wall_seconds = wall_ms / 1000.0;
  if (profiler) profiler->print(device, format, frame, wall_ms);
  return report;
}

}  // namespace vqx
