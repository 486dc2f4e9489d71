#include "live_output.h"

#include <fmt/format.h>

#include <iostream>

#include "core/error.h"

namespace vqx::cli {
namespace {

std::ostream& open_target(const std::string& target, std::optional<std::ofstream>& file) {
  if (target == "-") return std::cout;
  file.emplace(target, std::ios::binary);
  if (!*file) throw RuntimeFailure(fmt::format("cannot open --ndjson file '{}'", target));
  return *file;
}

}  // namespace

LiveOutput::LiveOutput(const std::string& target, const NumberFormat& numbers,
                       const std::vector<vmaf::LoadedModel>& models)
    : writer_(open_target(target, file_), numbers), models_(models) {}

void LiveOutput::frame_final(uint64_t frame, const ResultTable& table) {
  if (model_columns_.empty())
    for (const auto& model : models_) {
      std::vector<size_t> columns;
      for (const auto& feature : model.features())
        if (auto column = table.find_feature(feature.column)) columns.push_back(*column);
      model_columns_.push_back(std::move(columns));
    }
  // The score vmaf::apply_model writes for this frame after the run, from the same values.
  std::vector<std::pair<std::string, double>> scores;
  std::vector<double> values;
  for (size_t m = 0; m < models_.size() && table.frame_selected(frame); ++m) {
    values.clear();
    for (size_t column : model_columns_[m])
      if (auto v = table.get(frame, column)) values.push_back(*v);
    if (values.size() == models_[m].features().size())
      scores.emplace_back(models_[m].name(), models_[m].predict(values));
  }
  writer_.write_frame(table, frame, scores);
}

}  // namespace vqx::cli
