#include "segment_commands.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>

#include "core/error.h"
#include "metrics/segment_context.h"
#include "metrics/vmaf/model.h"
#include "output/output_file.h"
#include "output/percentiles.h"
#include "output/segment_part.h"

namespace vqx::cli {
namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : "\n") + item;
  return text;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> items;
  size_t begin = 0;
  while (!text.empty() && begin <= text.size()) {
    const size_t end = std::min(text.find('\n', begin), text.size());
    items.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return items;
}

std::string setting(const std::vector<std::pair<std::string, std::string>>& settings, const std::string& key) {
  for (const auto& [k, v] : settings)
    if (k == key) return v;
  return "";
}

}  // namespace

void write_segment(const CliOptions& o, const std::vector<MetricRequest>& requests, FrameSource& reference,
                   FrameSource& distorted) {
  const SegmentContext context = segment_context(requests);
  SegmentPart part;
  part.version = VQX_VERSION;
  std::vector<std::string> specs;
  for (const auto& r : requests) specs.push_back(r.spec_text);
  // What decides the values: the inputs' frame formats, the features and models, the frames
  // scored. Paths are left out (each machine may mount the clip elsewhere).
  part.settings = {
      {"reference_format", reference.format().describe()},
      {"distorted_format", distorted.format().describe()},
      {"features", joined(o.features)},
      {"models", joined(o.models)},
      {"no_prediction", o.no_prediction ? "true" : "false"},
      {"requests", joined(specs)},
      {"frame_skip_ref", std::to_string(o.run.skip_ref)},
      {"frame_skip_dist", std::to_string(o.run.skip_dist)},
      {"frame_cnt", std::to_string(o.run.frame_cnt)},
      {"scale", o.scale ? to_string(*o.scale) : "none"},
  };
  part.segment = run_segment(reference, distorted, requests, o.run, *o.segment, context.lead, context.tail);
  write_output_file(o.features_out, [&](std::ostream& out) { write_segment_part(out, part); });
}

int run_merge(int argc, char** argv) {
  CLI::App app{"vqx merge: the whole clip's results from the part files of its segments "
               "(vqx --segment START:COUNT --features_out FILE)",
               "vqx merge"};
  app.set_help_flag("--help", "Print this help and exit");
  std::vector<std::string> files, models;
  std::string output = "-", precision, percentiles;
  bool xml = false, json = false, csv = false, sub = false;
  app.add_option("parts", files, "Part files, in any order")->required();
  app.add_option("-m,--model", models,
                 "VMAF model (repeatable); default: the models the parts were scored for");
  app.add_option("-o,--output", output, "Output file ('-', the default, for stdout)");
  app.add_flag("--xml", xml, "XML output (default)");
  app.add_flag("--json", json, "JSON output");
  app.add_flag("--csv", csv, "CSV output");
  app.add_flag("--sub", sub, "MicroDVD subtitle output");
  app.add_option("--precision", precision, "Number format, as for a whole run");
  auto* percentiles_flag = app.add_option("--percentiles", percentiles, "pN entries, as for a whole run")->expected(0, 1);
  try {
    app.parse(argc - 1, argv + 1);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
  OutputFormat format = OutputFormat::kXml;
  for (int i = 2; i < argc; ++i) {  // the last format flag wins, as in a whole run
    const std::string a = argv[i];
    if (a == "--xml") format = OutputFormat::kXml;
    else if (a == "--json") format = OutputFormat::kJson;
    else if (a == "--csv") format = OutputFormat::kCsv;
    else if (a == "--sub") format = OutputFormat::kSub;
  }

  std::vector<SegmentPart> parts;
  for (const auto& file : files) {
    std::ifstream in(file);
    if (!in) throw InputError(fmt::format("merge: cannot open {}", file));
    parts.push_back(read_segment_part(in, file));
  }
  const std::string version = parts.front().version;
  auto merged = merge_segment_parts(std::move(parts), files);

  // The models as the whole run chose them (tools/vqx/main.cpp): without -n, vmaf_v0.6.1 when
  // none was named.
  const bool no_prediction = models.empty() && setting(merged->settings, "no_prediction") == "true";
  if (models.empty()) models = split_lines(setting(merged->settings, "models"));
  std::vector<vmaf::LoadedModel> loaded;
  if (!no_prediction) loaded = vmaf::load_models(models.empty() ? std::vector<std::string>{"version=vmaf_v0.6.1"} : models);
  vmaf::apply_models(loaded, merged->table);

  OutputInfo info;
  info.version = "vqx-" + version;
  info.fps = merged->wall_seconds > 0 ? double(merged->table.frame_count()) / merged->wall_seconds : 0;
  info.width = merged->width;
  info.height = merged->height;
  info.numbers = precision.empty() ? NumberFormat::Adaptive() : parse_precision(precision);
  if (percentiles_flag->count())
    info.percentiles = percentiles.empty() ? kDefaultPercentiles : parse_percentiles(percentiles);
  if (output == "-") {
    write_results(std::cout, format, merged->table, info);
    std::cout.flush();
    if (!std::cout) throw RuntimeFailure("cannot write the results to standard output");
    return 0;
  }
  write_output_file(output, [&](std::ostream& out) { write_results(out, format, merged->table, info); });
  return 0;
}

}  // namespace vqx::cli
