#include "engine/cuda/metric_graphs.h"

namespace vqx::cuda {

MetricGraphs::MetricGraphs(const MetricSet& set, size_t slot_count) : graphs_(slot_count) {
  for (auto& slot : graphs_)
    for (const auto& inst : set.metrics) slot.emplace_back(inst.replicas.size());
}

void MetricGraphs::launch(size_t slot, size_t metric, size_t replica, cudaStream_t stream,
                          const std::function<void()>& enqueue) {
  GraphExec& exec = graphs_[slot][metric][replica];
  if (!exec) exec = GraphExec::capture(stream, enqueue);
  exec.launch(stream);
}

}  // namespace vqx::cuda
