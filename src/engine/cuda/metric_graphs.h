#pragma once
// Graph capture and replay: the work of one metric replica on the frame in one slot is captured
// into a CUDA graph the first time that (slot, metric, replica) runs and replayed for every later
// frame that uses it. A graph is bound to its slot's buffers and its replica's device state, which
// stay put for the whole run, so a replay is the same launches on the same data as the capture.
#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <vector>

#include "engine/cuda/device_context.h"
#include "engine/cuda/metric_instances.h"

namespace vqx::cuda {

class MetricGraphs {
 public:
  MetricGraphs(const MetricSet& set, size_t slot_count);

  // Puts (slot, metric, replica)'s work on `stream`: replays its graph, capturing `enqueue` into
  // it first if this is its first use.
  void launch(size_t slot, size_t metric, size_t replica, cudaStream_t stream,
              const std::function<void()>& enqueue);

 private:
  std::vector<std::vector<std::vector<GraphExec>>> graphs_;  // [slot][metric][replica]
};

}  // namespace vqx::cuda
