#pragma once
// --profile: CUDA events around each frame's upload, each metric's stages and the readback, per
// slot, summed once the slot's frame has completed, plus the host's read and wait times; the
// table goes to stderr at the end of the run. Profiling runs the serial schedule with eager
// launches, so each stage's time is its own.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/picture.h"
#include "engine/cuda/cuda_metric.h"
#include "engine/cuda/device_context.h"
#include "engine/cuda/metric_instances.h"

namespace vqx::cuda {

class Profiler {
 public:
  Profiler(const MetricSet& set, size_t slot_count);
  Profiler(const Profiler&) = delete;
  Profiler& operator=(const Profiler&) = delete;
  ~Profiler();

  void upload_begin(size_t slot, cudaStream_t stream);
  void upload_end(size_t slot, cudaStream_t stream);
  // Marks the start of `metric`'s work on the slot's frame; returns the marks its enqueue() gets.
  StageMarks& metric_begin(size_t slot, size_t metric, cudaStream_t stream);
  void metric_end(size_t slot, size_t metric, cudaStream_t stream);
  void readback_begin(size_t slot, cudaStream_t stream);
  void readback_end(size_t slot, cudaStream_t stream);

  // After the host has waited for the slot's frame: adds its event intervals.
  void add_device_frame(size_t slot, const std::vector<bool>& active);
  void add_read_ms(double ms) { read_ms_ += ms; }
  void add_wait_ms(double ms) { wait_ms_ += ms; }

  void print(const DeviceContext& device, const PictureFormat& format, uint64_t frames,
             double wall_ms) const;

 private:
  struct SlotEvents;
  class Marks;
  const MetricSet& set_;
  std::vector<std::unique_ptr<SlotEvents>> slots_;
  std::unique_ptr<Marks> marks_;
  std::vector<std::vector<double>> stage_ms_;  // [metric][stage]
  double upload_ms_ = 0, readback_ms_ = 0, device_span_ms_ = 0, read_ms_ = 0, wait_ms_ = 0;
  uint64_t device_frames_ = 0;
};

}  // namespace vqx::cuda
