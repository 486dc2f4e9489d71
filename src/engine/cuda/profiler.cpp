#include "engine/cuda/profiler.h"

#include <fmt/format.h>

#include <cstdio>
#include <string>

#include "engine/cuda/cuda_check.h"

namespace vqx::cuda {

// Stage events of one metric in one slot: boundary i is where stage i starts; the last one is
// recorded by the engine after enqueue() returns. A metric may skip stages on some frames.
struct MetricEvents {
  std::vector<std::unique_ptr<Event>> boundary;
  std::vector<bool> recorded;
};

struct Profiler::SlotEvents {
  Event upload_begin, upload_end, readback_begin, readback_end;
  std::vector<MetricEvents> metrics;
};

class Profiler::Marks final : public StageMarks {
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

Profiler::Profiler(const MetricSet& set, size_t slot_count)
    : set_(set), marks_(std::make_unique<Marks>()) {
  for (size_t s = 0; s < slot_count; ++s) {
    auto slot = std::make_unique<SlotEvents>();
    for (const auto& inst : set.metrics) {
      MetricEvents events;
      for (size_t b = 0; b <= inst.stages.size(); ++b)
        events.boundary.push_back(std::make_unique<Event>());
      events.recorded.assign(inst.stages.size() + 1, false);
      slot->metrics.push_back(std::move(events));
    }
    slots_.push_back(std::move(slot));
  }
  for (const auto& inst : set.metrics) stage_ms_.emplace_back(inst.stages.size(), 0.0);
}

Profiler::~Profiler() = default;

void Profiler::upload_begin(size_t slot, cudaStream_t stream) {
  check(cudaEventRecord(slots_[slot]->upload_begin.get(), stream), "cudaEventRecord");
}

void Profiler::upload_end(size_t slot, cudaStream_t stream) {
  check(cudaEventRecord(slots_[slot]->upload_end.get(), stream), "cudaEventRecord");
}

StageMarks& Profiler::metric_begin(size_t slot, size_t metric, cudaStream_t stream) {
  MetricEvents& events = slots_[slot]->metrics[metric];
  events.recorded.assign(events.recorded.size(), false);
  check(cudaEventRecord(events.boundary[0]->get(), stream), "cudaEventRecord");
  events.recorded[0] = true;
  marks_->bind(&events);
  return *marks_;
}

void Profiler::metric_end(size_t slot, size_t metric, cudaStream_t stream) {
  MetricEvents& events = slots_[slot]->metrics[metric];
  marks_->bind(nullptr);
  check(cudaEventRecord(events.boundary.back()->get(), stream), "cudaEventRecord");
  events.recorded.back() = true;
}

void Profiler::readback_begin(size_t slot, cudaStream_t stream) {
  check(cudaEventRecord(slots_[slot]->readback_begin.get(), stream), "cudaEventRecord");
}

void Profiler::readback_end(size_t slot, cudaStream_t stream) {
  check(cudaEventRecord(slots_[slot]->readback_end.get(), stream), "cudaEventRecord");
}

void Profiler::add_device_frame(size_t slot, const std::vector<bool>& active) {
  SlotEvents& s = *slots_[slot];
  upload_ms_ += elapsed_ms(s.upload_begin, s.upload_end);
  readback_ms_ += elapsed_ms(s.readback_begin, s.readback_end);
  device_span_ms_ += elapsed_ms(s.upload_begin, s.readback_end);
  for (size_t m = 0; m < s.metrics.size(); ++m) {
    if (!active[m]) continue;
    MetricEvents& events = s.metrics[m];
    size_t open = 0;  // the stage whose start is the last recorded boundary
    for (size_t b = 1; b < events.boundary.size(); ++b) {
      if (!events.recorded[b]) continue;
      stage_ms_[m][open] += elapsed_ms(*events.boundary[open], *events.boundary[b]);
      open = b;
    }
  }
  ++device_frames_;
}

void Profiler::print(const DeviceContext& device, const PictureFormat& format, uint64_t frames,
                     double wall_ms) const {
  const double n = double(device_frames_ ? device_frames_ : 1);
  const double f = double(frames ? frames : 1);
  const double pair_bytes = 2.0 * double(format.frame_bytes());
  auto gbps = [&](double ms) { return ms > 0 ? pair_bytes / (ms * 1e6) : 0.0; };
  std::string out = fmt::format(
      "vqx profile: CUDA {}, {}, {} frames ({} on the device); eager launches, CUDA events\n",
      device.describe(), format.describe(), frames, device_frames_);
  out += fmt::format("  {:<40} {:>10} {:>12}\n", "stage", "ms/frame", "");
  out += fmt::format("  {:<40} {:>10.4f} {:>9.2f} GB/s\n",
                     fmt::format("upload H2D ({:.2f} MB/pair)", pair_bytes / 1e6), upload_ms_ / n,
                     gbps(upload_ms_ / n));
  for (size_t m = 0; m < set_.metrics.size(); ++m)
    for (size_t s = 0; s < set_.metrics[m].stages.size(); ++s)
      out += fmt::format("  {:<40} {:>10.4f}\n",
                         fmt::format("{}: {}", set_.metrics[m].name, set_.metrics[m].stages[s]),
                         stage_ms_[m][s] / n);
  out += fmt::format("  {:<40} {:>10.4f}\n",
                     fmt::format("readback D2H ({} B/frame)", set_.result_bytes), readback_ms_ / n);
  out += fmt::format("  {:<40} {:>10.4f}\n", "device span (upload start..readback end)",
                     device_span_ms_ / n);
  out += fmt::format("  {:<40} {:>10.4f} {:>9.2f} GB/s\n", "host read (both inputs, concurrent)",
                     read_ms_ / f, gbps(read_ms_ / f));
  out += fmt::format("  {:<40} {:>10.4f}\n", "host wait (one per frame)", wait_ms_ / f);
  out += fmt::format("  {:<40} {:>10.4f}\n", "wall", wall_ms / f);
  out += fmt::format("  {:<40} {:>10.2f} MiB\n", "peak device memory",
                     double(device.peak_bytes()) / (1 << 20));
  std::fputs(out.c_str(), stderr);
}

}  // namespace vqx::cuda
