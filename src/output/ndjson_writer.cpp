#include "output/ndjson_writer.h"

#include <cmath>

#include "core/error.h"

namespace vqx {

void NdjsonWriter::write_frame(const ResultTable& table, uint64_t frame,
                               const std::vector<std::pair<std::string, double>>& extra) {
  if (!table.frame_selected(frame)) return;
  const auto& names = table.feature_names();
  std::vector<std::pair<const std::string*, double>> present;
  for (size_t i : table.output_order())
    if (auto v = table.get(frame, i)) present.emplace_back(&names[i], *v);
  for (const auto& [name, value] : extra) present.emplace_back(&name, value);
  if (present.empty()) return;
  std::string line = "{\"frameNum\": " + std::to_string(frame) + ", \"metrics\": {";
  for (size_t k = 0; k < present.size(); ++k) {
    const double v = present[k].second;
    line += (k ? ", \"" : "\"") + *present[k].first + "\": ";
    line += std::isfinite(v) ? numbers_.format(v) : "null";
  }
  line += "}}\n";
  out_ << line;
  out_.flush();
  if (!out_) throw RuntimeFailure("cannot write the per-frame NDJSON output");
}

}  // namespace vqx
