#pragma once
// The metric plug-in interface. A metric folder defines one MetricDescriptor (name, options, the
// outputs VMAF models read, and factories for its backends); metrics/registry.cpp lists them.
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/options.h"
#include "core/picture.h"

namespace vqx {

class ThreadPool;
class CudaMetric;  // engine/cuda/cuda_metric.h; only CUDA builds define it.

// Where a metric puts its values. Frames are indices after any --frame_skip.
class FeatureWriter {
 public:
  virtual ~FeatureWriter() = default;
  // `feature` indexes the metric's feature_names(). Thread-safe.
  virtual void put(uint64_t frame, size_t feature, double value) = 0;
  // A whole-clip value (libvmaf's aggregate_metrics, e.g. apsnr_y).
  virtual void put_aggregate(const std::string& name, double value) = 0;
};

// What a metric may learn about the run when it is set up.
struct MetricContext {
  PictureFormat format;
  // Pool for parallelism inside a frame; never null. Using it must not change any result.
  ThreadPool* pool = nullptr;
};

// The pictures of one earlier frame (CpuMetric::history()).
struct EarlierFrame {
  const Picture* ref = nullptr;
  const Picture* dis = nullptr;
};

class CpuMetric {
 public:
  virtual ~CpuMetric() = default;

  // Output names in the order they are written (may depend on the options, as in libvmaf).
  virtual std::vector<std::string> feature_names() const = 0;

  // Called once before the first frame. Throws InputError when the input cannot be scored.
  virtual void init(const MetricContext& context) = 0;

  // Temporal metrics get every frame exactly once, in order, never concurrently. The others get
  // only the frames that are reported, possibly concurrently from several threads, so their
  // extract() must not touch shared mutable state.
  virtual bool temporal() const { return false; }
  // Frames after `frame` that extract() must have been given before every value of `frame` is
  // written (a temporal metric's look-ahead; the last frames' values may wait for flush()), or
  // kFinalAtFlush: the default of temporal metrics, which may write any frame's values in
  // flush(). The engine tells RunSettings::frame_final when a frame is complete.
  static constexpr uint64_t kFinalAtFlush = UINT64_MAX;
  virtual uint64_t final_lag() const { return temporal() ? kFinalAtFlush : 0; }

  virtual void extract(const Picture& ref, const Picture& dis, uint64_t frame,
                       FeatureWriter& out) = 0;

  // A temporal metric splits a frame's work in two. prepare() gets every frame concurrently, in
  // any order, with the pictures of the history() frames before it (`earlier[k - 1]` is frame
  // `frame - k`, fewer at the start): the work that needs no other frame's result (motion's SAD).
  // extract() then gets the frames in order and does only the dependent step. With history() 0
  // (the default) prepare() is not called.
  virtual unsigned history() const { return 0; }
  virtual void prepare(const Picture& /*ref*/, const Picture& /*dis*/,
                       std::span<const EarlierFrame> /*earlier*/, uint64_t /*frame*/) {}

  // After the last frame: temporal post-processing and aggregates.
  virtual void flush(FeatureWriter& /*out*/) {}

  // Heap bytes a frame in flight takes beyond its pictures (the workspaces of its extract() and
  // prepare() calls), an upper bound known after init(); 0 where that is row buffers under 1 MiB.
  // The engine caps the frames in flight by RunSettings::memory_limit with it
  // (frame_memory_test checks every metric's figure against the heap its calls take).
  virtual size_t frame_memory_bytes() const { return 0; }
};

struct ModelOutput {
  std::string internal;  // e.g. VMAF_integer_feature_vif_scale0_score
  std::string printed;   // e.g. integer_vif_scale0
};

struct MetricDescriptor {
  std::string name;
  std::string summary;
  std::vector<OptionSpec> options;
  std::function<std::unique_ptr<CpuMetric>(const OptionValues&)> make_cpu;
  // Null until the metric has a CUDA twin; always null in CPU-only builds.
  std::function<std::unique_ptr<CudaMetric>(const OptionValues&)> make_cuda;
  // The outputs VMAF model files may read: the internal name a model's feature_names use and
  // the printed base name (libvmaf's alias table, vmaf.md 1). Empty for metrics no model reads.
  std::vector<ModelOutput> model_outputs = {};
};

// Every metric, in registration order (which fixes the order of output columns).
const std::vector<const MetricDescriptor*>& metric_registry();
const MetricDescriptor* find_metric(std::string_view name);

// A metric instance requested by the user: which metric and with which options.
struct MetricRequest {
  const MetricDescriptor* metric = nullptr;
  OptionValues options;
  std::string spec_text;  // as written, for messages
};

// Parses libvmaf's --feature syntax "name[=key=val:key=val...]"; throws UsageError.
MetricRequest parse_metric_request(std::string_view text);

}  // namespace vqx
