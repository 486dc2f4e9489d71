#pragma once
// --ndjson FILE|-: each frame's values, with the VMAF models' scores, as soon as the engine calls
// the frame final (RunSettings::frame_final), one flushed line per frame.
#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "engine/result_table.h"
#include "metrics/vmaf/model.h"
#include "output/ndjson_writer.h"

namespace vqx::cli {

class LiveOutput {
 public:
  // `target` is a file name or "-" (standard output). Throws RuntimeFailure when it cannot be
  // opened.
  LiveOutput(const std::string& target, const NumberFormat& numbers,
             const std::vector<vmaf::LoadedModel>& models);

  void frame_final(uint64_t frame, const ResultTable& table);

 private:
  std::optional<std::ofstream> file_;
  NdjsonWriter writer_;
  const std::vector<vmaf::LoadedModel>& models_;
  std::vector<std::vector<size_t>> model_columns_;  // per model, its features' columns
};

}  // namespace vqx::cli
