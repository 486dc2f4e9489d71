#pragma once
// The requested metrics of one CUDA run. A non-temporal metric may have several replicas (copies
// of its device state, each on its own stream): frame N runs on replica N % replicas, so
// consecutive frames of one metric overlap on the device. Replica 0 is the one collect() and
// finish() go through, in frame order. Each metric owns a slice of the per-frame result block and
// of the end-of-clip flush block.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/cuda/cuda_metric.h"
#include "engine/cuda/device_context.h"
#include "engine/metric.h"
#include "engine/result_table.h"

namespace vqx::cuda {

// Offsets in the result and flush blocks keep this alignment.
constexpr size_t kBlockAlign = 256;
inline size_t align_block(size_t n) { return (n + kBlockAlign - 1) / kBlockAlign * kBlockAlign; }

struct MetricInstance {
  std::string name;  // the request as the user wrote it
  const MetricRequest* request = nullptr;
  std::vector<std::unique_ptr<CudaMetric>> replicas;
  std::vector<std::unique_ptr<Stream>> streams;  // one per replica when side by side, else none
  std::vector<size_t> columns;  // table column of each feature_names() entry
  std::vector<std::string> stages;  // for --profile, at least one
  size_t result_offset = 0, flush_offset = 0;
  size_t device_bytes = 0;  // device memory of one replica
  bool temporal = false;
  bool graph_safe = true;

  CudaMetric& primary() { return *replicas[0]; }
  size_t replica_for(uint64_t frame) const { return size_t(frame % replicas.size()); }
};

struct MetricSet {
  std::vector<MetricInstance> metrics;
  ResultTable* table = nullptr;  // holds every metric's columns
  size_t result_bytes = 0;  // the per-frame result block, every metric's slice
  size_t flush_bytes = 0;   // the end-of-clip block
};

// Creates a request's first replica and registers its columns in `table` (set.table), refusing
// a duplicate name before any device work.
void add_metric(MetricSet& set, const MetricRequest& request);
// Initialises each metric's first replica (its device allocations) and lays out the result and
// flush blocks. `eager` keeps every metric out of graphs (--profile). A failure of a metric's
// init() names the metric (the request as written) before the device's reason.
void init_metrics(MetricSet& set, const CudaMetricContext& context, bool eager);
// Gives each non-temporal metric `frames_in_flight` replicas in all, and each replica a stream of
// its own when the metrics run side by side.
void add_replicas(MetricSet& set, const CudaMetricContext& context, unsigned frames_in_flight,
                  bool side_by_side);
// Back to the first replica of each metric, without streams (undoes add_replicas).
void drop_replicas(MetricSet& set);

}  // namespace vqx::cuda
