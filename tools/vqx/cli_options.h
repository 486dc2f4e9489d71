#pragma once
// The vqx command line: libvmaf's `vmaf` flags plus the fork's --precision/--backend and vqx's
// --gpu/--profile, input flags (--ref_stream/--dis_stream, --decoder, --scale) and result flags
// (--percentiles, --ndjson, --report). Parsing is separate from running so every rule can be tested.
#include <optional>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/segment.h"
#include "io/open_input.h"
#include "io/readers.h"
#include "output/number_format.h"
#include "output/writers.h"

namespace vqx::cli {

struct CliOptions {
  std::string reference, distorted;
  std::optional<RawYuvLayout> raw;  // set when -w/-h/-p/-b select raw YUV
  StreamSelector ref_stream, dis_stream;
  DecoderChoice decoder = DecoderChoice::kAuto;
  std::optional<ScaleMode> scale;  // --scale: distorted frames to the reference's size
  std::vector<std::string> features;  // --feature and presets', in argument order
  std::vector<std::string> models;    // -m/--model and presets', in argument order
  bool explicit_models = false;       // some -m/--model was given (not only a preset's)
  bool no_prediction = false;
  std::string output;  // "" = no file, "-" = stdout
  OutputFormat format = OutputFormat::kXml;
  NumberFormat numbers = NumberFormat::Adaptive();
  std::vector<double> percentiles;  // --percentiles: pN entries in pooled_metrics
  std::string ndjson;               // --ndjson: "" = none, "-" = stdout
  std::string report;               // --report: the HTML report's file, "" = none
  unsigned report_worst = 6;        // --report_worst: thumbnail pairs of the worst frames
  RunSettings run;
  // --segment START:COUNT with --features_out FILE: raw values of that frame range for vqx merge.
  std::optional<SegmentRange> segment;
  std::string features_out;
  // --gpu: the CUDA devices; several (or one listed twice) split the clip between them.
  std::vector<int> gpus = {0};
  bool quiet = false;
  bool show_version = false;
  bool list_features = false;
};

// --gpu: "N", "A,B,..." or "all" (every usable CUDA device); throws UsageError.
std::vector<int> parse_gpu_list(const std::string& text);

// Returns nullopt when help was printed. Throws UsageError for anything malformed.
std::optional<CliOptions> parse_command_line(int argc, char** argv);

}  // namespace vqx::cli
