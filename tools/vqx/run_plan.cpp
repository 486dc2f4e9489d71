#include "run_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "core/error.h"
#include "io/nvdec.h"

namespace vqx::cli {
namespace {

InputOptions input_options(const CliOptions& o, const StreamSelector& stream, int decode_gpu,
                           const std::function<void(const std::string&)>& warn) {
  InputOptions options;
  options.gpu = decode_gpu;
  options.raw = o.raw;
  options.stream = stream;
  options.decoder = o.decoder;
  // Several concurrent reads per frame keep Y4M file reading off the critical path.
  options.y4m_read_threads = std::clamp(std::thread::hardware_concurrency() / 2, 1u, 8u);
  options.warn = warn;
  return options;
}

}  // namespace

RunPlan plan_run(const CliOptions& o) {
  RunPlan plan;
  // A preset's models with -n only add their features, as in libvmaf.
  if (o.no_prediction && o.explicit_models)
    throw UsageError("-m/--model and -n/--no_prediction contradict each other");
  if (!o.no_prediction || !o.models.empty())
    plan.models = vmaf::load_models(o.models.empty() ? std::vector<std::string>{"version=vmaf_v0.6.1"} : o.models);
  if (plan.models.empty()) {
    for (const auto& f : o.features) plan.requests.push_back(parse_metric_request(f));
  } else {
    plan.requests = vmaf::model_metric_requests(plan.models, o.features);
  }
  if (o.no_prediction) plan.models.clear();  // features only: no score, live or final
  if (plan.requests.empty())
    throw UsageError("no feature requested; add --feature NAME (see --list-features)");
  return plan;
}

OpenedRun open_run(CliOptions& o, const RunPlan& plan, bool host_frames,
                   const std::function<void(const std::string&)>& warn) {
  // A run on CUDA decodes with NVDEC into the device memory the metrics read, and scales a ladder
  // rung there (the engine's upload step); on the CPU the reading thread scales it with libswscale.
  // A CUDA run with metrics that have no CUDA twin decodes and scales on the host, where those
  // metrics read the frames (both scalers give the same samples).
  BackendChoice backend = choose_backend(plan.requests, o.run);
  const bool on_cuda = backend.backend == Backend::kCuda;
  const bool device_frames = on_cuda && backend.cpu_features.empty();
  if (o.decoder == DecoderChoice::kNvdec && !device_frames) {
    if (!nvdec_built()) throw RuntimeFailure("--decoder nvdec: this vqx has no NVDEC decoder; use --decoder cpu");
    if (!on_cuda)
      throw RuntimeFailure(fmt::format("--decoder nvdec: NVDEC decodes for the CUDA backend, and this run is on {}",
                                       backend.description));
    throw RuntimeFailure(fmt::format("--decoder nvdec: feature '{}' has no CUDA twin and reads host frames; use "
                                     "--decoder cpu",
                                     fmt::join(backend.cpu_features, "', '")));
  }
  const int decode_gpu = device_frames && !host_frames ? o.run.gpu : -1;
  if (device_frames) o.run.scale = o.scale;
  InputPair inputs = open_input_pair(o.reference, input_options(o, o.ref_stream, decode_gpu, warn), o.distorted,
                                     input_options(o, o.dis_stream, decode_gpu, warn),
                                     device_frames ? std::nullopt : o.scale);
  const PictureFormat& r = inputs.reference.source->format();
  const PictureFormat& d = inputs.distorted.source->format();
  if (!o.run.scale && (r.width != d.width || r.height != d.height))
    throw InputError(fmt::format(
        "geometry mismatch: reference is {}x{}, distorted is {}x{}; --scale bicubic (or bilinear, lanczos, "
        "spline, neighbor) scales the distorted frames to the reference's size",
        r.width, r.height, d.width, d.height));
  return OpenedRun{std::move(backend), std::move(inputs)};
}

}  // namespace vqx::cli
