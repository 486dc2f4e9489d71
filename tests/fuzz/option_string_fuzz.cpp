// Feeds arbitrary text to the option-string parsers an outsider reaches from the command line:
// the first byte picks `--feature NAME=key=val:...` or `-m version=NAME:...:ext.opt=val`, the rest
// is the argument. Each must parse or throw UsageError / InputError, never crash. A feature that
// parses is instantiated and initialised for a small picture, as the engine does before the
// first frame (unless it names a heatmaps folder, which init() would create); a model that parses
// is loaded (built-in versions only: no file is opened).
#include <cstdint>
#include <string>

#include "core/error.h"
#include "core/thread_pool.h"
#include "engine/metric.h"
#include "fuzz_input.h"
#include "metrics/vmaf/model.h"

namespace {

void parse_feature(std::string_view text) {
  using namespace vqx;
  MetricRequest request = parse_metric_request(text);
  auto metric = request.metric->make_cpu(request.options);
  metric->feature_names();
  if (text.find("heatmaps_path") != std::string_view::npos) return;
  PictureFormat format;
  format.width = 48;
  format.height = 40;
  ThreadPool pool(0);
  metric->init(MetricContext{format, &pool});
}

void parse_model(std::string_view text) {
  using namespace vqx;
  vmaf::ModelRequest request = vmaf::parse_model_request(text);
  if (!request.path.empty()) return;
  std::vector<vmaf::LoadedModel> models;
  models.push_back(vmaf::load_model(request));
  vmaf::model_metric_requests(models);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  vqx::fuzz::Cursor in(data, size);
  const bool model = in.byte() & 1;
  try {
    if (model)
      parse_model(in.rest_text());
    else
      parse_feature(in.rest_text());
  } catch (const vqx::UsageError&) {
  } catch (const vqx::InputError&) {
  }
  return 0;
}
