#pragma once
// Runs the requested metrics over two frame sources and collects their values.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/scale_filter.h"
#include "engine/final_frames.h"
#include "engine/metric.h"
#include "engine/result_table.h"
#include "core/frame_source.h"

namespace vqx {

enum class Backend { kCpu, kCuda, kAuto };

// The backend a run uses, and a line saying which and why: "cuda (NVIDIA H200, device 0)",
// "cpu (16 threads)", "cpu (16 threads; no usable CUDA device 0)", or for a CUDA run with
// metrics that have no CUDA twin, which run on the CPU beside the device in the same pass,
// "cuda (NVIDIA H200, device 0; 'float_vif' on 16 CPU threads)".
struct BackendChoice {
  Backend backend = Backend::kCpu;  // kCpu or kCuda
  std::string description;
  // CUDA: the requests (as written) without a CUDA twin. Their metrics read host frames, so the
  // run decodes and scales on the host.
  std::vector<std::string> cpu_features;
};

struct RunSettings {
  unsigned threads = 0;       // CPU worker threads; 0 runs in the calling thread
  uint64_t subsample = 1;     // report frames with index % subsample == 0
  uint64_t frame_cnt = 0;     // stop after this many frames (0 = all)
  uint64_t skip_ref = 0;      // frames discarded at the start of the reference
  uint64_t skip_dist = 0;     // ... and of the distorted input
  Backend backend = Backend::kCpu;  // the CLI's default is kAuto
  int gpu = 0;                // CUDA device index
  bool profile = false;       // print per-stage timings (CUDA) to stderr
  // CUDA: frames of one non-temporal metric on the device at once, each in its own copy of the
  // metric's device state on its own stream (0 = as many as fit a 1 GiB budget, at most 4).
  unsigned gpu_frames = 0;
  // CPU: bytes the frames in flight may take, pictures and the metrics' workspaces together
  // (cpu_frame_buffers); 0 = default_memory_limit().
  uint64_t memory_limit = 0;
  // Called from the reading thread after each frame pair is read.
  std::function<void(uint64_t frames_read)> progress;
  // Non-fatal notices (e.g. one input ended first).
  std::function<void(const std::string&)> warn;
  // Hears once, before the first frame, which backend the run uses and why.
  std::function<void(const BackendChoice&)> backend_chosen;
  // CUDA: distorted frames of another size than the reference's are scaled to it on the device,
  // as libswscale does it (core/scale_filter.h). The CPU backend takes frames already scaled
  // (io/scaler.h), and refuses a size mismatch.
  std::optional<ScaleMode> scale;
  // Hears each frame read, in frame order and one call at a time, as soon as all its values are
  // in `table` (a temporal metric's wait for later frames, or for the end, included; model
  // scores are not columns yet). Called from a worker thread; what it throws fails the run.
  std::function<void(uint64_t frame, const ResultTable& table)> frame_final;
  // Hears each frame pair read, with its index and the run's table (values of earlier frames may
  // be in it), from the thread that reads the frames, before the metrics get the pair: the frames
  // exactly as scored (CUDA: from the host buffers before the upload; a distorted frame that the
  // device scales comes at its own size; frames that NVDEC decodes into device memory are not
  // passed). What it throws fails the run.
  std::function<void(uint64_t frame, const Picture& ref, const Picture& dis, const ResultTable& table)>
      frame_read;
};

struct RunReport {
  ResultTable table;
  PictureFormat format;
  double wall_seconds = 0;
  std::string backend;  // "cpu" or "cuda"
};

// kAuto picks CUDA when the device is usable; the requested metrics without a CUDA twin then run
// on the CPU in the same pass. Throws for --backend cuda when the device is not usable.
BackendChoice choose_backend(const std::vector<MetricRequest>& requests,
                             const RunSettings& settings);

// Throws UsageError / InputError / RuntimeFailure with a one-line message.
std::unique_ptr<RunReport> run_metrics(FrameSource& reference, FrameSource& distorted,
                                       const std::vector<MetricRequest>& requests,
                                       const RunSettings& settings);

// Checks that both inputs can be compared; throws InputError saying what differs.
void check_same_layout(const FrameSource& reference, const FrameSource& distorted);

// Discards the first `count` frames of `reader`; throws InputError when it has fewer.
void skip_frames(FrameSource& reader, uint64_t count);

// Frame pairs the CPU engine reads ahead into: two per worker keep every worker fed, as many as
// fit `memory_limit` bytes with the `history` pairs temporal metrics keep and, for every frame
// being scored (at most one per worker), `frame_memory` bytes of the metrics' workspaces
// (CpuMetric::frame_memory_bytes). Never fewer than two (one when there are no workers): throws
// UsageError saying what is needed when those do not fit.
size_t cpu_frame_buffers(unsigned threads, const PictureFormat& format, size_t frame_memory,
                         size_t history, uint64_t memory_limit);
// What the frames in flight of `buffers` pairs take (the bytes cpu_frame_buffers bounds).
uint64_t cpu_frames_memory(size_t buffers, unsigned threads, const PictureFormat& format,
                           size_t frame_memory, size_t history);
// "12 MiB", or "40 KiB" below a mebibyte.
std::string describe_bytes(uint64_t bytes);
// Half of this machine's memory, or of the control group's limit where that is lower.
uint64_t default_memory_limit();

// The CPUs this process may run on: those of its affinity mask, and no more than the control
// group's CPU quota (cgroup v2 cpu.max, rounded up) where one is set. At least 1.
unsigned usable_cpus();
// The CPUs a cgroup v2 cpu.max line ("QUOTA PERIOD" or "max PERIOD") allows, rounded up; 0 for
// no quota or a line that is not one.
unsigned cpu_quota_cpus(const std::string& cpu_max);

// Creates a request's CPU instance and registers its output columns in `table`.
struct CpuInstance {
  std::unique_ptr<CpuMetric> metric;
  std::vector<size_t> columns;  // table column of each feature_names() entry
};
CpuInstance make_cpu_instance(const MetricRequest& request, ResultTable& table);

// The requests (as written) whose metric has no CUDA twin, in request order.
std::vector<std::string> requests_without_cuda_twin(const std::vector<MetricRequest>& requests);

// Worker threads of the CPU side of a CUDA run (the metrics without a CUDA twin): --threads when
// given, else one per usable CPU, since such a metric would otherwise hold up the device.
unsigned cuda_run_cpu_threads(const RunSettings& settings);

// The listener a backend gives FinalFrames: settings.frame_final on `table`, or none.
FinalFrames::Listener final_frame_listener(const RunSettings& settings, const ResultTable& table);

// Adds `names` as columns, refusing a name already present.
std::vector<size_t> add_columns(ResultTable& table, const std::vector<std::string>& names,
                                const std::string& spec_text);

}  // namespace vqx
