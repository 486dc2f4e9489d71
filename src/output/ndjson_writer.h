#pragma once
// --ndjson: one JSON object per reported frame, one per line, each flushed as soon as it is
// written, so a reader can follow a run while it goes on:
//   {"frameNum": 0, "metrics": {"integer_adm2": 0.97, ..., "vmaf": 93.1}}
// Values are those of the JSON output (same names, order and number format; null where not
// finite); frames that --subsample leaves out, or that have no value, are not written.
#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "engine/result_table.h"
#include "output/number_format.h"

namespace vqx {

class NdjsonWriter {
 public:
  NdjsonWriter(std::ostream& out, NumberFormat numbers) : out_(out), numbers_(numbers) {}

  // Writes frame `frame` of `table`, then `extra` (values that are not table columns yet, e.g.
  // model scores, which the JSON output also lists last). Throws RuntimeFailure when the stream
  // fails.
  void write_frame(const ResultTable& table, uint64_t frame,
                   const std::vector<std::pair<std::string, double>>& extra = {});

 private:
  std::ostream& out_;
  NumberFormat numbers_;
};

}  // namespace vqx
