#include "engine/cuda/frame_pipeline.h"

#include <algorithm>
#include <chrono>

#include "engine/column_writer.h"
#include "engine/cuda/cuda_check.h"

namespace vqx::cuda {
namespace {

constexpr size_t kMinSlots = 3;
constexpr unsigned kMaxAutoFrames = 4;
constexpr size_t kAutoBudgetBytes = size_t{1} << 30;

class NoMarks final : public StageMarks {
 public:
  void stage(cudaStream_t, size_t) override {}
};

}  // namespace

size_t slot_count_for(unsigned frames_in_flight) {
  return std::max(kMinSlots, size_t(frames_in_flight) + 2);
}

unsigned choose_frames_in_flight(const MetricSet& set, const PictureFormat& format,
                                 Schedule schedule, unsigned requested) {
  if (schedule == Schedule::kSerial) return 1;
  if (requested > 0) return requested;
  const size_t stride = frame_stride(format);
  auto device_bytes_for = [&](unsigned frames) {
    size_t total = slot_count_for(frames) * (2 * stride + set.result_bytes);
    for (const auto& inst : set.metrics) total += inst.device_bytes * (inst.temporal ? 1 : frames);
    return total;
  };
  unsigned frames = 1;
  while (frames < kMaxAutoFrames && device_bytes_for(frames + 1) <= kAutoBudgetBytes) ++frames;
  return frames;
}

struct FramePipeline::Slot {
  DeviceBuffer device_pair;  // reference, then distorted at frame_stride()
  DeviceBuffer device_results;
  PinnedBuffer host_results;
  CudaFrame frame;
  Event uploaded{false}, done{false};
  std::vector<std::unique_ptr<Event>> joined;  // [metric]: its work on this frame is done
  std::vector<bool> active;                    // [metric]: it runs on the frame in this slot
  bool pending = false;                        // work enqueued, not yet collected
};

FramePipeline::FramePipeline(DeviceContext& device, MetricSet& set, const PictureFormat& format,
                             Schedule schedule, unsigned frames_in_flight, Profiler* profiler)
    : device_(device), set_(set), schedule_(schedule), profiler_(profiler) {
  const size_t stride = frame_stride(format);
  for (size_t i = 0; i < slot_count_for(frames_in_flight); ++i) {
    auto s = std::make_unique<Slot>();
    s->device_pair = DeviceBuffer(device, 2 * stride, "frame buffers");
    s->device_results = DeviceBuffer(device, set.result_bytes, "result block");
    s->host_results = PinnedBuffer(set.result_bytes, "result block");
    s->frame = CudaFrame{s->device_pair.get<uint8_t>(), s->device_pair.get<uint8_t>() + stride,
                         format};
    s->active.assign(set.metrics.size(), false);
    for (size_t m = 0; m < set.metrics.size(); ++m)
      s->joined.push_back(std::make_unique<Event>(false));
    slots_.push_back(std::move(s));
  }
  graphs_ = std::make_unique<MetricGraphs>(set, slots_.size());
}

FramePipeline::~FramePipeline() = default;

// One metric's work on one frame, on `stream`: from the graph of its (slot, replica), or launched
// eagerly (profiling, or a metric that is not graph_safe()).
void FramePipeline::enqueue_metric(Slot& s, size_t m, uint64_t index, cudaStream_t stream) {
  MetricInstance& inst = set_.metrics[m];
  const size_t replica = inst.replica_for(index);
  CudaMetric& metric = *inst.replicas[replica];
  void* result = s.device_results.get<uint8_t>() + inst.result_offset;
  if (profiler_) {
    const size_t slot = slot_of(index);
    StageMarks& marks = profiler_->metric_begin(slot, m, stream);
    metric.enqueue(s.frame, index, stream, result, marks);
    profiler_->metric_end(slot, m, stream);
    return;
  }
  NoMarks no_marks;
  if (!inst.graph_safe) {
    metric.enqueue(s.frame, index, stream, result, no_marks);
    return;
  }
  graphs_->launch(slot_of(index), m, replica, stream,
                  [&] { metric.enqueue(s.frame, index, stream, result, no_marks); });
}

void FramePipeline::enqueue(uint64_t index, bool selected, FrameUpload& upload) {
  const size_t slot = slot_of(index);
  Slot& s = *slots_[slot];
  bool any = false;
  for (size_t m = 0; m < set_.metrics.size(); ++m) {
    s.active[m] = selected || set_.metrics[m].temporal;
    any = any || s.active[m];
  }
  if (!any) return;
  const cudaStream_t copy = copy_.get(), compute = compute_.get();

  if (profiler_) profiler_->upload_begin(slot, copy);
  upload.upload(slot, s.device_pair.get<uint8_t>(), copy);
  if (profiler_) profiler_->upload_end(slot, copy);
  check(cudaEventRecord(s.uploaded.get(), copy), "cudaEventRecord (upload)");

  if (schedule_ == Schedule::kSerial)
    check(cudaStreamWaitEvent(compute, s.uploaded.get(), 0), "cudaStreamWaitEvent (upload)");
  for (size_t m = 0; m < set_.metrics.size(); ++m) {
    if (!s.active[m]) continue;
    if (schedule_ == Schedule::kSerial) {
      enqueue_metric(s, m, index, compute);
      continue;
    }
    MetricInstance& inst = set_.metrics[m];
    const cudaStream_t own = inst.streams[inst.replica_for(index)]->get();
    check(cudaStreamWaitEvent(own, s.uploaded.get(), 0), "cudaStreamWaitEvent (upload)");
    enqueue_metric(s, m, index, own);
    check(cudaEventRecord(s.joined[m]->get(), own), "cudaEventRecord (join)");
    check(cudaStreamWaitEvent(compute, s.joined[m]->get(), 0), "cudaStreamWaitEvent (join)");
  }

  if (profiler_) profiler_->readback_begin(slot, compute);
  check(cudaMemcpyAsync(s.host_results.get(), s.device_results.get(), set_.result_bytes,
                        cudaMemcpyDeviceToHost, compute),
        "result readback");
  if (profiler_) profiler_->readback_end(slot, compute);
  check(cudaEventRecord(s.done.get(), compute), "cudaEventRecord (frame done)");
  s.pending = true;
}

void FramePipeline::complete(uint64_t index) {
  const size_t slot = slot_of(index);
  Slot& s = *slots_[slot];
  if (!s.pending) return;
  const auto wait_start = std::chrono::steady_clock::now();
  check(cudaEventSynchronize(s.done.get()), "frame completion");
  if (profiler_) {
    profiler_->add_wait_ms(std::chrono::duration<double, std::milli>(
                               std::chrono::steady_clock::now() - wait_start)
                               .count());
    profiler_->add_device_frame(slot, s.active);
  }
  for (size_t m = 0; m < set_.metrics.size(); ++m) {
    if (!s.active[m]) continue;
    MetricInstance& inst = set_.metrics[m];
    ColumnWriter out(*set_.table, inst.columns, index);
    inst.primary().collect(s.host_results.get() + inst.result_offset, index, out);
  }
  s.pending = false;
}

// Every frame's work joined the compute stream before its readback, so flush work enqueued there
// runs after all of it (temporal metrics have one replica, whose state has seen every frame).
void FramePipeline::finish() {
  if (set_.flush_bytes == 0) {
    for (auto& inst : set_.metrics) {
      ColumnWriter out(*set_.table, inst.columns, ResultTable::kFlushCall);
      inst.primary().finish(nullptr, out);
    }
    return;
  }
  const cudaStream_t compute = compute_.get();
  DeviceBuffer device_flush(device_, set_.flush_bytes, "flush block");
  PinnedBuffer host_flush(set_.flush_bytes, "flush block");
  for (auto& inst : set_.metrics)
    if (inst.primary().flush_bytes() > 0)
      inst.primary().enqueue_flush(compute, device_flush.get<uint8_t>() + inst.flush_offset);
  check(cudaMemcpyAsync(host_flush.get(), device_flush.get(), set_.flush_bytes,
                        cudaMemcpyDeviceToHost, compute),
        "flush readback");
  check(cudaStreamSynchronize(compute), "flush");
  for (auto& inst : set_.metrics) {
    ColumnWriter out(*set_.table, inst.columns, ResultTable::kFlushCall);
    inst.primary().finish(
        inst.primary().flush_bytes() > 0 ? host_flush.get() + inst.flush_offset : nullptr, out);
  }
}

}  // namespace vqx::cuda
