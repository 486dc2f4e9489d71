#include "engine/metric.h"

#include <fmt/format.h>

#include "core/error.h"

namespace vqx {

const MetricDescriptor* find_metric(std::string_view name) {
  for (const auto* m : metric_registry())
    if (m->name == name) return m;
  return nullptr;
}

MetricRequest parse_metric_request(std::string_view text) {
  size_t eq = text.find('=');
  std::string_view name = text.substr(0, eq);
  if (name.empty()) throw UsageError(fmt::format("--feature \"{}\": no feature name", text));
  const MetricDescriptor* metric = find_metric(name);
  if (!metric) {
    std::vector<std::string> known;
    for (const auto* m : metric_registry()) known.push_back(m->name);
    throw UsageError(fmt::format("unknown feature '{}' (available: {})", name, fmt::join(known, ", ")));
  }
  std::string_view rest = eq == std::string_view::npos ? std::string_view{} : text.substr(eq + 1);
  if (eq != std::string_view::npos && rest.empty())
    throw UsageError(fmt::format("Problem parsing feature \"{}\", bad option string \"\"", name));
  return MetricRequest{metric, parse_options(metric->options, rest, name), std::string(text)};
}

}  // namespace vqx
