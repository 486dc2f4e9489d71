// Feeds arbitrary text to the VMAF model loader as `-m path=FILE` would: load_model_json must
// return a model or throw InputError / UsageError, never crash. A model that loads then yields
// its extractor requests (which the CLI parses with the metric registry) and predicts a frame.
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "metrics/vmaf/model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vqx;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    vmaf::ModelRequest request = vmaf::parse_model_request("path=fuzz.json");
    vmaf::LoadedModel model = vmaf::load_model_json(text, request, "path=fuzz.json");
    std::vector<vmaf::LoadedModel> models;
    models.push_back(model);
    vmaf::model_metric_requests(models);
    std::vector<double> features(model.features().size(), 0.5);
    model.predict(features);
  } catch (const InputError&) {
  } catch (const UsageError&) {
  }
  return 0;
}
