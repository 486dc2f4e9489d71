#pragma once
// vqx --segment START:COUNT --features_out FILE (one segment's raw values) and vqx merge FILES...
// (the whole clip's output from its parts, byte for byte as one run writes it, but for the fps
// figure, which is the frames over the parts' summed scoring time).
#include <vector>

#include "cli_options.h"

namespace vqx::cli {

// Scores `o.segment` and writes its part file. `requests`: the run's, as for a whole run.
void write_segment(const CliOptions& o, const std::vector<MetricRequest>& requests, FrameSource& reference,
                   FrameSource& distorted);

// `vqx merge ...`: argv[1] is "merge". Returns the exit status; throws like the main command.
int run_merge(int argc, char** argv);

}  // namespace vqx::cli
