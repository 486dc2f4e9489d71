#pragma once
// --gpu A,B,... (or all): one clip over several devices in one process. The clip is cut into one
// contiguous segment per listed device, each scored on its own thread with its own readers, its
// own upload, streams and metric instances (engine/segment.h: with the frames its temporal
// metrics need around it), and the segments are merged as `vqx merge` merges parts, so the
// output is that of a run on one device. A device listed twice scores two segments side by side.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cli_options.h"
#include "output/segment_part.h"

namespace vqx::cli {

// Scores frames [0, frames) over `o.gpus` (the last segment runs on to the clip's real end).
// `open(gpu)` opens the two inputs for the segment on device `gpu`. The result's wall_seconds is
// the elapsed time of the whole run.
std::unique_ptr<MergedParts> run_on_devices(const CliOptions& o, const std::vector<MetricRequest>& requests,
                                            uint64_t frames, const std::function<InputPair(int gpu)>& open);

}  // namespace vqx::cli
