#pragma once
// The CUDA side of the metric plug-in interface (engine/metric.h holds the CPU side).
//
// Per frame the engine uploads the reference and distorted pictures ONCE, in their native layout
// (Picture's: Y, Cb, Cr back to back, tight rows, 1 or 2 bytes per sample), and every metric reads
// that one device copy. A metric only ENQUEUES work on the stream it is given: it never
// synchronises the host. Its per-frame values go into a small result slot in device memory; the
// engine copies all metrics' slots of a frame back with one device-to-host copy and, once that
// copy has completed (the one host wait per frame, on an older frame while newer ones run),
// calls collect() with the host copy of the same slot.
//
// Frames are enqueued in order on one compute stream, so a metric may keep state on the device
// from frame to frame (e.g. VMAF motion's previous filtered luma): temporal() metrics get every
// frame, in order, including frames that --subsample does not report; collect() is also called in
// frame order. After the last frame, enqueue_flush() may enqueue end-of-clip work whose result
// block comes back to finish(), which writes the final values (libvmaf's flush).
//
// The engine may capture a metric's enqueue() into a CUDA graph once per buffer slot and replay
// it for every frame that uses that slot. A metric whose launches depend on the frame index (not
// only on device state) returns false from graph_safe(); the engine then launches eagerly.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/cuda/device_context.h"
#include "engine/metric.h"
#include "core/picture.h"

namespace vqx {

// One frame pair on the device, Picture layout.
struct CudaFrame {
  const uint8_t* ref = nullptr;
  const uint8_t* dis = nullptr;
  PictureFormat format;
};

struct CudaMetricContext {
  PictureFormat format;
  cuda::DeviceContext* device = nullptr;  // allocate device memory here, once, in init()
};

// Lets a metric name its stages for --profile. stage(i) marks where stage i begins on the stream;
// it ends where the next one begins (or where enqueue() returns). Inert when not profiling, and
// when enqueue() is being captured into a graph.
class StageMarks {
 public:
  virtual ~StageMarks() = default;
  virtual void stage(cudaStream_t stream, size_t index) = 0;
};

class CudaMetric {
 public:
  virtual ~CudaMetric() = default;

  // Same names, in the same order, as the CPU twin with the same options.
  virtual std::vector<std::string> feature_names() const = 0;
  // Names of the stages enqueue() marks, for --profile (at least one).
  virtual std::vector<std::string> stage_names() const { return {"all"}; }

  // Once per geometry: validate (InputError), allocate device state through context.device.
  virtual void init(const CudaMetricContext& context) = 0;

  // Bytes of the per-frame result slot (device, copied back whole). Fixed after init().
  virtual size_t result_bytes() const = 0;

  virtual bool temporal() const { return false; }
  // As CpuMetric::final_lag(), counted in collect() calls (CpuMetric::kFinalAtFlush likewise).
  virtual uint64_t final_lag() const { return temporal() ? UINT64_MAX : 0; }
  virtual bool graph_safe() const { return true; }

  // Enqueues all of this frame's work on `stream`; writes `result` (result_bytes(), device) fully.
  // `frame` may only be read by metrics whose graph_safe() is false.
  virtual void enqueue(const CudaFrame& frame, uint64_t index, cudaStream_t stream, void* result,
                       StageMarks& marks) = 0;

  // Host copy of the slot written by enqueue() for `frame`; called in frame order.
  virtual void collect(const void* result, uint64_t frame, FeatureWriter& out) = 0;

  // End of clip. flush_bytes() == 0 means no device work: finish() gets nullptr.
  virtual size_t flush_bytes() const { return 0; }
  virtual void enqueue_flush(cudaStream_t /*stream*/, void* /*result*/) {}
  virtual void finish(const void* /*result*/, FeatureWriter& /*out*/) {}
};

}  // namespace vqx
