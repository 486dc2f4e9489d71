// The CUDA backend's frame pipeline (shared/spec and issue 6):
//  - the reader fills pinned host buffers (reference and distorted read concurrently);
//  - each pair is copied to the device once, on a copy stream, in native layout;
//  - after an event says the upload is done, every metric enqueues its work on a stream of its own,
//    reading that one device copy, so the metrics of a frame run side by side; a non-temporal
//    metric may also have several replicas (copies of its device state, each on its own stream)
//    so that consecutive frames of it overlap (--gpu_frames; by default as many as fit 1 GiB);
//  - per-frame values land in each metric's slice of the slot's result block, and one
//    device-to-host copy, after every metric of the frame has finished, brings the block back; the
//    host waits once per frame, on the oldest slot, so reading, uploading and computing overlap;
//  - each (slot, metric, replica) captures its work into a CUDA graph the first time and replays it
//    (eager launches only with --profile or a metric that is not graph_safe());
//  - --profile and VQX_CUDA_METRIC_STREAMS=0 run the metrics one after another, one frame at a
//    time, on the compute stream, so each stage's time is its own. Streams never change a bit:
//    every metric's work on a frame is the same launches on the same data in the same order.
// Memory (pinned, device, graphs) is allocated once, before the first frame; graphs on first use.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/column_writer.h"
#include "engine/cuda/cuda_check.h"
#include "engine/cuda/cuda_metric.h"
#include "engine/cuda/device_context.h"
#include "engine/cuda_backend.h"
#include "core/error.h"
#include "core/thread_pool.h"

namespace vqx {
namespace {

using cuda::check;
using Clock = std::chrono::steady_clock;

// At least three slots: frame N is read into one while N-1 uploads/computes and N-2's results come
// back; with several frames of a metric on the device at once, one more slot per extra frame.
constexpr size_t kMinSlots = 3;
constexpr size_t kAlign = 256;
// Frames in flight per metric chosen automatically: as many copies of each non-temporal metric's
// device state as keep the run's device memory under the budget, at most kMaxAutoFrames.
constexpr unsigned kMaxAutoFrames = 4;
constexpr size_t kAutoBudgetBytes = size_t{1} << 30;

size_t align_up(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// One requested metric. Non-temporal metrics may have several replicas (copies of the device
// state, each on its own stream): frame N runs on replica N % replicas, so frames of the same
// metric overlap on the device. Replica 0 is the one collect()/finish() go through, in frame order.
struct Instance {
  std::string name;
  std::vector<std::unique_ptr<CudaMetric>> replicas;
  std::vector<std::unique_ptr<cuda::Stream>> streams;  // one per replica; empty when serial
  std::unique_ptr<ColumnWriter> writer;
  std::vector<std::string> stages;
  size_t offset = 0;       // of its slice in the result block
  size_t device_bytes = 0;  // device memory of one replica
  bool temporal = false, graph_safe = true;
  CudaMetric& primary() { return *replicas[0]; }
  size_t replica_for(uint64_t frame) const { return size_t(frame % replicas.size()); }
};

// Stage events of one metric in one slot: boundary i is where stage i starts, the last one is
// recorded by the engine after enqueue() returns.
struct MetricEvents {
  std::vector<std::unique_ptr<cuda::Event>> boundary;
  std::vector<bool> recorded;
};

class ProfileMarks final : public StageMarks {
 public:
  void bind(MetricEvents* events) { events_ = events; }
  void stage(cudaStream_t stream, size_t index) override {
    if (!events_ || index + 1 >= events_->boundary.size()) return;
    check(cudaEventRecord(events_->boundary[index]->get(), stream), "cudaEventRecord (stage)");
    events_->recorded[index] = true;
  }

 private:
  MetricEvents* events_ = nullptr;
};

class NoMarks final : public StageMarks {
 public:
  void stage(cudaStream_t, size_t) override {}
};

struct Slot {
  cuda::PinnedBuffer host_frames;  // ref then dis, each frame_bytes (aligned)
  cuda::DeviceBuffer device_frames;
  cuda::DeviceBuffer device_results;
  cuda::PinnedBuffer host_results;
  Picture ref, dis;
  CudaFrame frame;
  cuda::Event uploaded, done;
  std::vector<std::vector<cuda::GraphExec>> graphs;  // [metric][replica], captured on first use
  std::vector<std::unique_ptr<cuda::Event>> joined;  // [metric]: its work on this frame is done
  bool pending = false;           // work enqueued, not yet collected
  std::vector<bool> active;       // which metrics ran on the frame in this slot
  // --profile only
  std::unique_ptr<cuda::Event> upload_begin, upload_end, readback_begin, readback_end;
  std::vector<MetricEvents> metric_events;

};

struct ProfileTotals {
  std::vector<std::vector<double>> stage_ms;  // [metric][stage]
  double upload_ms = 0, readback_ms = 0, device_span_ms = 0;
  double read_ms = 0, wait_ms = 0;
  uint64_t device_frames = 0, frames = 0;
};

class PairReader {
 public:
  PairReader(FrameSource& ref, FrameSource& dis) : ref_(ref), dis_(dis), pool_(1) {}
  // Reads both inputs concurrently; returns {have_ref, have_dis}.
  std::pair<bool, bool> read(Picture& ref, Picture& dis) {
    bool have[2] = {false, false};
    pool_.parallel_for(2, 1, [&](size_t begin, size_t) {
      have[begin] = begin == 0 ? ref_.read(ref) : dis_.read(dis);
    });
    return {have[0], have[1]};
  }

 private:
  FrameSource& ref_;
  FrameSource& dis_;
  ThreadPool pool_;
};

void skip_input(FrameSource& reader, uint64_t count) {
  if (count == 0) return;
  uint64_t skipped = reader.skip(count);
  if (skipped < count)
    throw InputError(fmt::format("{}: cannot skip {} frames, it has only {}", reader.name(), count,
                                 skipped));
}

void print_profile(const cuda::DeviceContext& device, const PictureFormat& format,
                   const std::vector<Instance>& instances, const ProfileTotals& t,
                   size_t result_bytes, double wall_ms) {
  double n = double(t.device_frames ? t.device_frames : 1);
  double frames = double(t.frames ? t.frames : 1);
  double pair_bytes = 2.0 * double(format.frame_bytes());
  auto gbps = [&](double ms) { return ms > 0 ? pair_bytes / (ms * 1e6) : 0.0; };
  std::string out = fmt::format(
      "vqx profile: CUDA {}, {}, {} frames ({} on the device); eager launches, CUDA events\n",
      device.describe(), format.describe(), t.frames, t.device_frames);
  out += fmt::format("  {:<40} {:>10} {:>12}\n", "stage", "ms/frame", "");
  out += fmt::format("  {:<40} {:>10.4f} {:>9.2f} GB/s\n",
                     fmt::format("upload H2D ({:.2f} MB/pair)", pair_bytes / 1e6), t.upload_ms / n,
                     gbps(t.upload_ms / n));
  for (size_t m = 0; m < instances.size(); ++m)
    for (size_t s = 0; s < instances[m].stages.size(); ++s)
      out += fmt::format("  {:<40} {:>10.4f}\n",
                         fmt::format("{}: {}", instances[m].name, instances[m].stages[s]),
                         t.stage_ms[m][s] / n);
  out += fmt::format("  {:<40} {:>10.4f}\n", fmt::format("readback D2H ({} B/frame)", result_bytes),
                     t.readback_ms / n);
  out += fmt::format("  {:<40} {:>10.4f}\n", "device span (upload start..readback end)",
                     t.device_span_ms / n);
  out += fmt::format("  {:<40} {:>10.4f} {:>9.2f} GB/s\n", "host read (both inputs, concurrent)",
                     t.read_ms / frames, gbps(t.read_ms / frames));
  out += fmt::format("  {:<40} {:>10.4f}\n", "host wait (one per frame)", t.wait_ms / frames);
  out += fmt::format("  {:<40} {:>10.4f}\n", "wall", wall_ms / frames);
  out += fmt::format("  {:<40} {:>10.2f} MiB\n", "peak device memory",
                     double(device.peak_bytes()) / (1 << 20));
  std::fputs(out.c_str(), stderr);
}

// VQX_CUDA_METRIC_STREAMS=0 runs the metrics of a frame one after another (for measuring what
// running them side by side gains); anything else, or unset, runs them side by side.
bool metric_streams_enabled() {
  const char* value = std::getenv("VQX_CUDA_METRIC_STREAMS");
  return !(value && std::string(value) == "0");
}

}  // namespace

bool cuda_device_available(int device) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return device >= 0 && device < count;
}

std::unique_ptr<RunReport> run_cuda(FrameSource& reference, FrameSource& distorted,
                                    const std::vector<MetricRequest>& requests,
                                    const RunSettings& settings) {
  cuda::DeviceContext device(settings.gpu);
  auto report = std::make_unique<RunReport>();
  report->backend = "cuda";
  const PictureFormat format = reference.format();
  report->format = format;
  ResultTable& table = report->table;
  table.set_subsample(settings.subsample);

  // Metrics run side by side, each on its own stream(s), unless profiling (each stage's time is
  // then its own) or VQX_CUDA_METRIC_STREAMS=0; then one after another on the compute stream.
  const bool serial = settings.profile || !metric_streams_enabled();

  // Metrics: columns, init of the first replica (its device allocations), result slices.
  std::vector<Instance> instances;
  size_t result_bytes = 0, flush_bytes = 0;
  std::vector<size_t> flush_offsets;
  CudaMetricContext context{format, &device};
  for (const auto& req : requests) {
    Instance inst;
    inst.name = req.spec_text;
    inst.replicas.push_back(req.metric->make_cuda(req.options));
    inst.writer = std::make_unique<ColumnWriter>(
        table, add_columns(table, inst.primary().feature_names(), req.spec_text));
    instances.push_back(std::move(inst));
  }
  for (auto& inst : instances) {
    const size_t before = device.bytes_in_use();
    inst.primary().init(context);
    inst.device_bytes = device.bytes_in_use() - before;
    inst.stages = inst.primary().stage_names();
    if (inst.stages.empty()) inst.stages = {"all"};
    inst.offset = result_bytes;
    result_bytes += align_up(inst.primary().result_bytes());
    flush_offsets.push_back(flush_bytes);
    flush_bytes += align_up(inst.primary().flush_bytes());
    inst.temporal = inst.primary().temporal();
    inst.graph_safe = inst.primary().graph_safe() && !settings.profile;
  }

  // Frames in flight per non-temporal metric, and the slots that keep them fed.
  const size_t frame_bytes = format.frame_bytes();
  const size_t frame_stride = align_up(frame_bytes);
  auto slots_for = [](unsigned frames) { return std::max(kMinSlots, size_t(frames) + 2); };
  auto device_bytes_for = [&](unsigned frames) {
    size_t total = slots_for(frames) * (2 * frame_stride + result_bytes);
    for (const auto& inst : instances) total += inst.device_bytes * (inst.temporal ? 1 : frames);
    return total;
  };
  unsigned frames_in_flight = 1;
  if (!serial) {
    if (settings.gpu_frames > 0) {
      frames_in_flight = settings.gpu_frames;
    } else {
      while (frames_in_flight < kMaxAutoFrames &&
             device_bytes_for(frames_in_flight + 1) <= kAutoBudgetBytes)
        ++frames_in_flight;
    }
  }
  for (size_t m = 0; m < instances.size(); ++m) {
    Instance& inst = instances[m];
    const unsigned replicas = inst.temporal ? 1 : frames_in_flight;
    for (unsigned r = 1; r < replicas; ++r) {
      inst.replicas.push_back(requests[m].metric->make_cuda(requests[m].options));
      inst.replicas.back()->init(context);
    }
    if (!serial)
      for (unsigned r = 0; r < replicas; ++r) inst.streams.push_back(std::make_unique<cuda::Stream>());
  }
  // init() may have queued work (e.g. clearing state) on the legacy stream, which the engine's
  // non-blocking streams do not wait for.
  check(cudaDeviceSynchronize(), "metric initialisation");

  // Buffers, once for this geometry.
  const size_t slot_count = slots_for(frames_in_flight);
  cuda::Stream copy_stream, compute_stream;
  std::vector<std::unique_ptr<Slot>> slots;
  for (size_t i = 0; i < slot_count; ++i) {
    auto s = std::make_unique<Slot>();
    s->host_frames = cuda::PinnedBuffer(2 * frame_stride, "frame buffers");
    s->device_frames = cuda::DeviceBuffer(device, 2 * frame_stride, "frame buffers");
    s->device_results = cuda::DeviceBuffer(device, result_bytes, "result block");
    s->host_results = cuda::PinnedBuffer(result_bytes, "result block");
    s->ref = Picture(format, {s->host_frames.get(), frame_bytes});
    s->dis = Picture(format, {s->host_frames.get() + frame_stride, frame_bytes});
    s->frame = CudaFrame{s->device_frames.get<uint8_t>(),
                         s->device_frames.get<uint8_t>() + frame_stride, format};
    s->active.assign(instances.size(), false);
    for (const auto& inst : instances) {
      s->graphs.emplace_back(inst.replicas.size());
      s->joined.push_back(std::make_unique<cuda::Event>(false));
    }
    if (settings.profile) {
      s->upload_begin = std::make_unique<cuda::Event>();
      s->upload_end = std::make_unique<cuda::Event>();
      s->readback_begin = std::make_unique<cuda::Event>();
      s->readback_end = std::make_unique<cuda::Event>();
      for (auto& inst : instances) {
        MetricEvents ev;
        for (size_t b = 0; b <= inst.stages.size(); ++b)
          ev.boundary.push_back(std::make_unique<cuda::Event>());
        ev.recorded.assign(inst.stages.size() + 1, false);
        s->metric_events.push_back(std::move(ev));
      }
    }
    slots.push_back(std::move(s));
  }
  cudaStream_t copy = copy_stream.get(), compute = compute_stream.get();

  // One metric's work on one frame, on `stream`: replayed from the slot's graph for that replica
  // (captured the first time), or launched eagerly (profiling, or not graph_safe()).
  NoMarks no_marks;
  ProfileMarks profile_marks;
  auto enqueue_metric = [&](Slot& s, size_t m, uint64_t index, cudaStream_t stream) {
    Instance& inst = instances[m];
    const size_t r = inst.replica_for(index);
    CudaMetric& metric = *inst.replicas[r];
    void* result = s.device_results.get<uint8_t>() + inst.offset;
    if (settings.profile) {
      MetricEvents& ev = s.metric_events[m];
      ev.recorded.assign(ev.recorded.size(), false);
      check(cudaEventRecord(ev.boundary[0]->get(), stream), "cudaEventRecord");
      ev.recorded[0] = true;
      profile_marks.bind(&ev);
      metric.enqueue(s.frame, index, stream, result, profile_marks);
      profile_marks.bind(nullptr);
      check(cudaEventRecord(ev.boundary.back()->get(), stream), "cudaEventRecord");
      ev.recorded.back() = true;
      return;
    }
    if (!inst.graph_safe) {
      metric.enqueue(s.frame, index, stream, result, no_marks);
      return;
    }
    cuda::GraphExec& exec = s.graphs[m][r];
    if (!exec)
      exec = cuda::GraphExec::capture(
          stream, [&] { metric.enqueue(s.frame, index, stream, result, no_marks); });
    exec.launch(stream);
  };

  // A frame: every active metric after the upload (side by side on their streams, or in turn on
  // the compute stream), then the one readback of the result block once they have all finished.
  auto enqueue_frame = [&](Slot& s, uint64_t index) {
    if (serial) check(cudaStreamWaitEvent(compute, s.uploaded.get(), 0), "cudaStreamWaitEvent");
    for (size_t m = 0; m < instances.size(); ++m) {
      if (!s.active[m]) continue;
      if (serial) {
        enqueue_metric(s, m, index, compute);
        continue;
      }
      Instance& inst = instances[m];
      cudaStream_t own = inst.streams[inst.replica_for(index)]->get();
      check(cudaStreamWaitEvent(own, s.uploaded.get(), 0), "cudaStreamWaitEvent (upload)");
      enqueue_metric(s, m, index, own);
      check(cudaEventRecord(s.joined[m]->get(), own), "cudaEventRecord (join)");
      check(cudaStreamWaitEvent(compute, s.joined[m]->get(), 0), "cudaStreamWaitEvent (join)");
    }
    if (settings.profile) check(cudaEventRecord(s.readback_begin->get(), compute), "cudaEventRecord");
    check(cudaMemcpyAsync(s.host_results.get(), s.device_results.get(), result_bytes,
                          cudaMemcpyDeviceToHost, compute),
          "result readback");
    if (settings.profile) check(cudaEventRecord(s.readback_end->get(), compute), "cudaEventRecord");
  };

  ProfileTotals totals;
  totals.stage_ms.resize(instances.size());
  for (size_t m = 0; m < instances.size(); ++m) totals.stage_ms[m].assign(instances[m].stages.size(), 0);

  auto accumulate_profile = [&](Slot& s) {
    totals.upload_ms += cuda::elapsed_ms(*s.upload_begin, *s.upload_end);
    totals.readback_ms += cuda::elapsed_ms(*s.readback_begin, *s.readback_end);
    totals.device_span_ms += cuda::elapsed_ms(*s.upload_begin, *s.readback_end);
    for (size_t m = 0; m < instances.size(); ++m) {
      if (!s.active[m]) continue;
      MetricEvents& ev = s.metric_events[m];
      size_t open = 0;  // stage whose start is the last recorded boundary
      for (size_t b = 1; b < ev.boundary.size(); ++b) {
        if (!ev.recorded[b]) continue;
        totals.stage_ms[m][open] += cuda::elapsed_ms(*ev.boundary[open], *ev.boundary[b]);
        open = b;
      }
    }
    ++totals.device_frames;
  };

  // The one host wait per frame: the oldest frame in flight.
  auto complete = [&](uint64_t index) {
    Slot& s = *slots[index % slot_count];
    if (!s.pending) return;
    auto t0 = Clock::now();
    check(cudaEventSynchronize(s.done.get()), "frame completion");
    totals.wait_ms += ms_since(t0);
    if (settings.profile) accumulate_profile(s);
    for (size_t m = 0; m < instances.size(); ++m)
      if (s.active[m])
        instances[m].primary().collect(s.host_results.get() + instances[m].offset, index,
                                       *instances[m].writer);
    s.pending = false;
  };

  skip_input(reference, settings.skip_ref);
  skip_input(distorted, settings.skip_dist);
  PairReader pair_reader(reference, distorted);

  auto start = Clock::now();
  uint64_t frame = 0;
  try {
    while (settings.frame_cnt == 0 || frame < settings.frame_cnt) {
      Slot& s = *slots[frame % slot_count];
      if (frame >= slot_count) complete(frame - slot_count);
      auto t0 = Clock::now();
      auto [have_ref, have_dis] = pair_reader.read(s.ref, s.dis);
      if (!have_ref || !have_dis) {
        if (have_ref != have_dis && settings.warn)
          settings.warn(fmt::format("{} ended before {}; scoring the first {} frames",
                                    have_ref ? distorted.name() : reference.name(),
                                    have_ref ? reference.name() : distorted.name(), frame));
        break;
      }
      totals.read_ms += ms_since(t0);
      uint64_t index = frame++;
      if (settings.progress) settings.progress(frame);

      bool selected = table.frame_selected(index);
      bool any = false;
      for (size_t m = 0; m < instances.size(); ++m) {
        s.active[m] = selected || instances[m].temporal;
        any = any || s.active[m];
      }
      if (!any) continue;
      if (settings.profile) check(cudaEventRecord(s.upload_begin->get(), copy), "cudaEventRecord");
      check(cudaMemcpyAsync(s.device_frames.get(), s.host_frames.get(), frame_stride + frame_bytes,
                            cudaMemcpyHostToDevice, copy),
            "frame upload");
      if (settings.profile) check(cudaEventRecord(s.upload_end->get(), copy), "cudaEventRecord");
      check(cudaEventRecord(s.uploaded.get(), copy), "cudaEventRecord");
      enqueue_frame(s, index);
      check(cudaEventRecord(s.done.get(), compute), "cudaEventRecord");
      s.pending = true;
    }
    for (uint64_t f = frame > slot_count ? frame - slot_count : 0; f < frame; ++f) complete(f);
  } catch (...) {
    cudaDeviceSynchronize();  // let in-flight copies finish before their buffers go away
    cudaGetLastError();
    throw;
  }
  if (frame == 0) throw InputError("no frames to score: the inputs hold no frame after skipping");
  table.set_frame_count(frame);
  totals.frames = frame;

  // End of clip: device work of temporal metrics, one readback, then their final values. Temporal
  // metrics have one replica, whose stream holds all their frames' work; flush after it.
  check(cudaDeviceSynchronize(), "end of clip");
  if (flush_bytes > 0) {
    cuda::DeviceBuffer device_flush(device, flush_bytes, "flush block");
    cuda::PinnedBuffer host_flush(flush_bytes, "flush block");
    for (size_t m = 0; m < instances.size(); ++m)
      if (instances[m].primary().flush_bytes() > 0)
        instances[m].primary().enqueue_flush(compute,
                                             device_flush.get<uint8_t>() + flush_offsets[m]);
    check(cudaMemcpyAsync(host_flush.get(), device_flush.get(), flush_bytes,
                          cudaMemcpyDeviceToHost, compute),
          "flush readback");
    check(cudaStreamSynchronize(compute), "flush");
    for (size_t m = 0; m < instances.size(); ++m)
      instances[m].primary().finish(
          instances[m].primary().flush_bytes() > 0 ? host_flush.get() + flush_offsets[m] : nullptr,
          *instances[m].writer);
  } else {
    for (auto& inst : instances) inst.primary().finish(nullptr, *inst.writer);
  }
  double wall_ms = ms_since(start);
  report->wall_seconds = wall_ms / 1000.0;
  if (settings.profile)
    print_profile(device, format, instances, totals, result_bytes, wall_ms);
  return report;
}

}  // namespace vqx
