#include "multi_device.h"

#include <fmt/format.h>

#include <chrono>
#include <exception>
#include <thread>

#include "core/error.h"
#include "metrics/segment_context.h"

namespace vqx::cli {

std::unique_ptr<MergedParts> run_on_devices(const CliOptions& o, const std::vector<MetricRequest>& requests,
                                            uint64_t frames, const std::function<InputPair(int gpu)>& open) {
  const size_t k = std::min<uint64_t>(o.gpus.size(), frames);
  const SegmentContext context = segment_context(requests);
  std::vector<SegmentPart> parts(k);
  std::vector<std::string> names(k);
  std::vector<std::exception_ptr> errors(k);
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (size_t i = 0; i < k; ++i) {
    names[i] = fmt::format("the segment of device {} (slot {})", o.gpus[i], i);
    threads.emplace_back([&, i] {
      try {
        const int gpu = o.gpus[i];
        InputPair inputs = open(gpu);
        RunSettings settings = o.run;
        settings.gpu = gpu;
        if (settings.threads > 0) settings.threads = std::max<unsigned>(1, settings.threads / unsigned(k));
        if (i > 0) settings.backend_chosen = nullptr;  // one backend line for the run
        SegmentRange range;
        range.start = frames * i / k;
        // The last segment reads on to the end, wherever the estimate put it.
        range.count = i + 1 == k ? UINT64_MAX / 4 : frames * (i + 1) / k - range.start;
        parts[i].version = VQX_VERSION;
        parts[i].segment = run_segment(*inputs.reference.source, *inputs.distorted.source, requests, settings,
                                       range, context.lead, context.tail);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  auto merged = merge_segment_parts(std::move(parts), names);
  merged->wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return merged;
}

}  // namespace vqx::cli
