#include "engine/cuda/metric_instances.h"

#include <fmt/format.h>

#include "engine/engine.h"

namespace vqx::cuda {
namespace {

void init_replica(CudaMetric& metric, const MetricInstance& inst,
                  const CudaMetricContext& context) {
  try {
    metric.init(context);
  } catch (const DeviceMemoryExhausted& e) {
    throw DeviceMemoryExhausted(fmt::format("feature '{}': {}", inst.name, e.what()));
  } catch (const RuntimeFailure& e) {
    throw RuntimeFailure(fmt::format("feature '{}': {}", inst.name, e.what()));
  }
}

}  // namespace

void add_metric(MetricSet& set, const MetricRequest& request) {
  MetricInstance inst;
  inst.name = request.spec_text;
  inst.request = &request;
  inst.replicas.push_back(request.metric->make_cuda(request.options));
  inst.columns = add_columns(*set.table, inst.primary().feature_names(), request.spec_text);
  set.metrics.push_back(std::move(inst));
}

void init_metrics(MetricSet& set, const CudaMetricContext& context, bool eager) {
  for (auto& inst : set.metrics) {
    const size_t before = context.device->bytes_in_use();
    init_replica(inst.primary(), inst, context);
    inst.device_bytes = context.device->bytes_in_use() - before;
    inst.stages = inst.primary().stage_names();
    if (inst.stages.empty()) inst.stages = {"all"};
    inst.result_offset = set.result_bytes;
    set.result_bytes += align_block(inst.primary().result_bytes());
    inst.flush_offset = set.flush_bytes;
    set.flush_bytes += align_block(inst.primary().flush_bytes());
    inst.temporal = inst.primary().temporal();
    inst.graph_safe = inst.primary().graph_safe() && !eager;
  }
}

void add_replicas(MetricSet& set, const CudaMetricContext& context, unsigned frames_in_flight,
                  bool side_by_side) {
  for (auto& inst : set.metrics) {
    const unsigned replicas = inst.temporal ? 1 : frames_in_flight;
    for (unsigned r = 1; r < replicas; ++r) {
      inst.replicas.push_back(inst.request->metric->make_cuda(inst.request->options));
      init_replica(*inst.replicas.back(), inst, context);
    }
    if (side_by_side)
      for (unsigned r = 0; r < replicas; ++r) inst.streams.push_back(std::make_unique<Stream>());
  }
}

void drop_replicas(MetricSet& set) {
  for (auto& inst : set.metrics) {
    inst.replicas.resize(1);
    inst.streams.clear();
  }
}

}  // namespace vqx::cuda
