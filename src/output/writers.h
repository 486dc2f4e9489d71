#pragma once
// libvmaf's output layouts, byte for byte (shared/spec/cli-and-output.md 4-7), with vqx's
// documented deviations: JSON is always valid and CSV keeps empty fields for missing values.
// Features appear in ResultTable::output_order(), libvmaf's collector order.
#include <ostream>
#include <string>
#include <vector>

#include "engine/result_table.h"
#include "output/number_format.h"

namespace vqx {

enum class OutputFormat { kXml, kJson, kCsv, kSub };

struct OutputInfo {
  std::string version;   // e.g. "vqx-0.1.0"
  double fps = 0;        // wall-clock frames per second
  uint32_t width = 0;    // XML qualityWidth
  uint32_t height = 0;   // XML qualityHeight
  NumberFormat numbers;
  // --percentiles: pN entries after libvmaf's four in pooled_metrics (JSON and XML only; extra
  // keys leave the files readable by libvmaf's own readers). output/percentiles.h defines pN.
  std::vector<double> percentiles;
};

void write_results(std::ostream& out, OutputFormat format, const ResultTable& table,
                   const OutputInfo& info);

}  // namespace vqx
