// Cost of the VMAF model stage per frame (prediction from ready feature values) and of loading
// a model. Both are tiny next to feature extraction; this keeps them visible. One iteration of
// BM_Predict* is one frame.
#include <benchmark/benchmark.h>

#include "metrics/vmaf/model.h"

namespace {

void predict(benchmark::State& state, const char* version, std::vector<double> raw) {
  auto model =
      vqx::vmaf::load_model(vqx::vmaf::parse_model_request(std::string("version=") + version));
  for (auto _ : state) {
    raw[0] += 1e-12;  // keep the compiler from hoisting the call
    benchmark::DoNotOptimize(model.predict(raw));
  }
}

void BM_PredictV061(benchmark::State& state) {
  predict(state, "vmaf_v0.6.1", {0.95, 4.0, 0.4, 0.75, 0.85, 0.9});
}
void BM_PredictV1(benchmark::State& state) {
  predict(state, "vmaf_v1.0.16_3d0h", {1.5, 0.2, 0.94, 6.0});
}
void BM_LoadV061(benchmark::State& state) {
  auto request = vqx::vmaf::parse_model_request("version=vmaf_v0.6.1");
  for (auto _ : state) benchmark::DoNotOptimize(vqx::vmaf::load_model(request));
}

BENCHMARK(BM_PredictV061);
BENCHMARK(BM_PredictV1);
BENCHMARK(BM_LoadV061)->Unit(benchmark::kMicrosecond);

}  // namespace
BENCHMARK_MAIN();
