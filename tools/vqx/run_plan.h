#pragma once
// The steps between a parsed command line and run_metrics(), shared by the CLI and the Python
// module so that both turn the same --feature/--model strings into the same metric instances and
// open the same inputs the same way.
#include <functional>
#include <string>
#include <vector>

#include "cli_options.h"
#include "engine/engine.h"
#include "io/open_input.h"
#include "metrics/vmaf/model.h"

namespace vqx::cli {

// The models whose scores the run predicts and the metric instances it runs.
struct RunPlan {
  std::vector<vmaf::LoadedModel> models;  // empty with -n
  std::vector<MetricRequest> requests;
};

// As libvmaf: without -n, VMAF is predicted, with vmaf_v0.6.1 when no model is named. Throws
// UsageError for contradicting flags, unknown features or models, and a run with nothing to do.
RunPlan plan_run(const CliOptions& o);

struct OpenedRun {
  BackendChoice backend;
  InputPair inputs;
};

// Chooses the backend, opens both inputs as the CLI reads them (on CUDA, compressed input is
// decoded by NVDEC into device memory unless `host_frames` asks for frames on the host, and a
// ladder rung is scaled on the device), and checks their geometry. Sets o.run.scale for CUDA.
OpenedRun open_run(CliOptions& o, const RunPlan& plan, bool host_frames,
                   const std::function<void(const std::string&)>& warn);

}  // namespace vqx::cli
