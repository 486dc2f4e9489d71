#pragma once
// The schedule of a CUDA run. A slot holds one frame: its device pair (filled by the FrameUpload
// step on the copy stream) and its result block, on the device and in pinned host memory. Per
// frame, once the upload is done, every metric enqueues its work reading that one device copy;
// per-frame values land in each metric's slice of the slot's result block, and one device-to-host
// copy, after every metric of the frame has finished, brings the block back. The host waits once
// per frame, on the oldest slot in flight, so reading, uploading and computing overlap.
//
// Side by side (the default), each metric replica runs on a stream of its own, from a graph
// captured on first use (metric_graphs.h); the compute stream joins them before the readback.
// Serial (--profile) runs the metrics one after another on the compute stream with eager launches
// and stage events, so each stage's time is its own. Schedules never change a bit: every metric's
// work on a frame is the same launches on the same data in the same order.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/picture.h"
#include "engine/cuda/device_context.h"
#include "engine/cuda/frame_upload.h"
#include "engine/cuda/metric_graphs.h"
#include "engine/cuda/metric_instances.h"
#include "engine/cuda/profiler.h"

namespace vqx::cuda {

enum class Schedule { kSideBySide, kSerial };

// Frames of each non-temporal metric on the device at once: `requested` when non-zero, else as
// many as keep the run's device memory under a 1 GiB budget, at most 4; always 1 when serial.
unsigned choose_frames_in_flight(const MetricSet& set, const PictureFormat& format,
                                 Schedule schedule, unsigned requested);

// Slots that keep `frames_in_flight` frames of each metric fed: at least three (frame N is read
// into one while N-1 uploads and computes and N-2's results come back), one more per extra frame.
size_t slot_count_for(unsigned frames_in_flight);

class FramePipeline {
 public:
  // Allocates the slots. `profiler` is set exactly when the schedule is serial.
  FramePipeline(DeviceContext& device, MetricSet& set, const PictureFormat& format,
                Schedule schedule, unsigned frames_in_flight, Profiler* profiler);
  FramePipeline(const FramePipeline&) = delete;
  FramePipeline& operator=(const FramePipeline&) = delete;
  ~FramePipeline();

  size_t slot_count() const { return slots_.size(); }
  size_t slot_of(uint64_t frame) const { return size_t(frame % slots_.size()); }

  // Enqueues frame `index`, already read into its slot by `upload`: the upload, the work of every
  // metric that runs on it (all when `selected`, else only the temporal ones), the readback.
  void enqueue(uint64_t index, bool selected, FrameUpload& upload);
  // The one host wait per frame: waits for frame `index`'s readback, then each metric of the
  // frame collects its values. Does nothing for a frame without work.
  void complete(uint64_t index);
  // End of clip, after every frame has completed: the metrics' flush work, its readback and their
  // final values.
  void finish();

 private:
  struct Slot;
  void enqueue_metric(Slot& slot, size_t metric, uint64_t index, cudaStream_t stream);

  DeviceContext& device_;
  MetricSet& set_;
  Schedule schedule_;
  Profiler* profiler_;
  Stream copy_, compute_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::unique_ptr<MetricGraphs> graphs_;
};

}  // namespace vqx::cuda
