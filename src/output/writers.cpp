#include "output/writers.h"

#include <cmath>
#include <cstdio>
#include <optional>
#include <vector>

#include "output/percentiles.h"

namespace vqx {
namespace {

// A frame is written when it is selected by --subsample and some feature has a value there.
std::vector<uint64_t> written_frames(const ResultTable& table) {
  std::vector<uint64_t> frames;
  size_t features = table.feature_names().size();
  for (uint64_t f = 0; f < table.frame_count(); ++f) {
    if (!table.frame_selected(f)) continue;
    for (size_t i = 0; i < features; ++i)
      if (table.get(f, i)) {
        frames.push_back(f);
        break;
      }
  }
  return frames;
}

struct PooledEntry {
  PooledValues values;
  std::vector<double> percentiles;  // OutputInfo::percentiles of the values
};

std::optional<PooledEntry> pooled(const ResultTable& table, size_t feature, const OutputInfo& info) {
  auto values = table.selected_values(feature);
  if (!values || values->empty()) return std::nullopt;
  return PooledEntry{pool(*values), info.percentiles.empty()
                                        ? std::vector<double>{}
                                        : percentiles_of(*values, info.percentiles)};
}

std::string fixed2(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.2f", v);
  return buffer;
}

void write_xml(std::ostream& out, const ResultTable& table, const OutputInfo& info) {
  const auto& names = table.feature_names();
  const NumberFormat& nf = info.numbers;
  out << "<VMAF version=\"" << info.version << "\">\n";
  out << "  <params qualityWidth=\"" << info.width << "\" qualityHeight=\"" << info.height
      << "\" />\n";
  out << "  <fyi fps=\"" << fixed2(info.fps) << "\" />\n";
  out << "  <frames>\n";
  const std::vector<size_t> order = table.output_order();
  for (uint64_t f : written_frames(table)) {
    out << "    <frame frameNum=\"" << f << "\" ";
    for (size_t i : order)
      if (auto v = table.get(f, i)) out << names[i] << "=\"" << nf.format(*v) << "\" ";
    out << "/>\n";
  }
  out << "  </frames>\n";
  out << "  <pooled_metrics>\n";
  for (size_t i : order) {
    out << "    <metric name=\"" << names[i] << "\" ";
    if (auto entry = pooled(table, i, info)) {
      const PooledValues& p = entry->values;
      out << "min=\"" << nf.format(p.min) << "\" max=\"" << nf.format(p.max) << "\" mean=\""
          << nf.format(p.mean) << "\" harmonic_mean=\"" << nf.format(p.harmonic_mean) << "\" ";
      for (size_t k = 0; k < info.percentiles.size(); ++k)
        out << percentile_key(info.percentiles[k]) << "=\"" << nf.format(entry->percentiles[k]) << "\" ";
    }
    out << "/>\n";
  }
  out << "  </pooled_metrics>\n";
  out << "  <aggregate_metrics ";
  for (const auto& [name, value] : table.aggregates()) out << name << "=\"" << nf.format(value) << "\" ";
  out << "/>\n";
  out << "</VMAF>\n";
}

std::string json_number(const NumberFormat& nf, double v) {
  return std::isfinite(v) ? nf.format(v) : std::string("null");
}

void write_json(std::ostream& out, const ResultTable& table, const OutputInfo& info) {
  const auto& names = table.feature_names();
  const NumberFormat& nf = info.numbers;
  out << "{\n";
  out << "  \"version\": \"" << info.version << "\",\n";
  out << "  \"fps\": " << (std::isfinite(info.fps) ? fixed2(info.fps) : std::string("null")) << ",\n";
  out << "  \"frames\": [";
  const std::vector<size_t> order = table.output_order();
  bool first_frame = true;
  for (uint64_t f : written_frames(table)) {
    out << (first_frame ? "\n" : ",\n");
    first_frame = false;
    out << "    {\n      \"frameNum\": " << f << ",\n      \"metrics\": {\n";
    std::vector<std::pair<size_t, double>> present;
    for (size_t i : order)
      if (auto v = table.get(f, i)) present.emplace_back(i, *v);
    for (size_t k = 0; k < present.size(); ++k) {
      bool last = k + 1 == present.size();
      double v = present[k].second;
      out << "        \"" << names[present[k].first] << "\": ";
      // libvmaf quirk kept for byte compatibility: no newline after a null entry.
      if (std::isfinite(v)) out << nf.format(v) << (last ? "\n" : ",\n");
      else out << "null" << (last ? "" : ",");
    }
    out << "      }\n    }";
  }
  out << "\n  ],\n";
  out << "  \"pooled_metrics\": {";
  for (size_t k = 0; k < order.size(); ++k) {
    const size_t i = order[k];
    out << (k == 0 ? "\n" : ",\n");
    out << "    \"" << names[i] << "\": {";
    if (auto entry = pooled(table, i, info)) {
      const PooledValues& p = entry->values;
      out << "\n      \"min\": " << json_number(nf, p.min) << ",\n      \"max\": "
          << json_number(nf, p.max) << ",\n      \"mean\": " << json_number(nf, p.mean)
          << ",\n      \"harmonic_mean\": " << json_number(nf, p.harmonic_mean);
      for (size_t k = 0; k < info.percentiles.size(); ++k)
        out << ",\n      \"" << percentile_key(info.percentiles[k])
            << "\": " << json_number(nf, entry->percentiles[k]);
      out << "\n    }";
    } else {
      out << "\n    }";
    }
  }
  out << "\n  },\n";
  out << "  \"aggregate_metrics\": {";
  const auto& aggregates = table.aggregates();
  for (size_t k = 0; k < aggregates.size(); ++k)
    out << "\n    \"" << aggregates[k].first << "\": " << json_number(nf, aggregates[k].second)
        << (k + 1 < aggregates.size() ? "," : "");
  out << "\n  }\n}\n";
}

void write_csv(std::ostream& out, const ResultTable& table, const OutputInfo& info) {
  const auto& names = table.feature_names();
  const std::vector<size_t> order = table.output_order();
  out << "Frame,";
  for (size_t i : order) out << names[i] << ",";
  out << "\n";
  for (uint64_t f : written_frames(table)) {
    out << f << ",";
    for (size_t i : order) {
      // vqx deviation: an empty field keeps the columns aligned where libvmaf shifts them.
      if (auto v = table.get(f, i)) out << info.numbers.format(*v);
      out << ",";
    }
    out << "\n";
  }
}

void write_sub(std::ostream& out, const ResultTable& table, const OutputInfo& info) {
  const auto& names = table.feature_names();
  const std::vector<size_t> order = table.output_order();
  for (uint64_t f : written_frames(table)) {
    out << "{" << f << "}{" << f + 1 << "}frame: " << f << "|";
    for (size_t i : order)
      if (auto v = table.get(f, i)) out << names[i] << ": " << info.numbers.format(*v) << "|";
    out << "\n";
  }
}

}  // namespace

void write_results(std::ostream& out, OutputFormat format, const ResultTable& table,
                   const OutputInfo& info) {
  switch (format) {
    case OutputFormat::kXml: write_xml(out, table, info); break;
    case OutputFormat::kJson: write_json(out, table, info); break;
    case OutputFormat::kCsv: write_csv(out, table, info); break;
    case OutputFormat::kSub: write_sub(out, table, info); break;
  }
}

}  // namespace vqx
