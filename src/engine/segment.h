#pragma once
// One segment of a clip, scored alone so that its raw per-frame values equal those of a run over
// the whole clip (vqx --segment START:COUNT, merged by vqx merge). The run reads `lead` frames
// before the segment, so that its temporal metrics give their first-frame special cases to frames
// that are dropped, and `tail` frames after it (plus one, which tells whether the clip ends
// there), so that its last frames are decided as in the whole run.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/engine.h"

namespace vqx {

struct SegmentRange {
  uint64_t start = 0;
  uint64_t count = 0;  // at least 1; a segment reaching past the clip's end is cut there
};

struct SegmentResult {
  uint64_t start = 0;
  uint64_t count = 0;     // frames in the segment, after any cut at the clip's end
  bool clip_end = false;  // no frame follows the segment: it is the clip's last
  std::vector<std::string> columns;  // the run's feature columns, in registration order
  // Column indices in the run's output order (ResultTable::output_order()). A segment starting
  // at frame 0 is a prefix of the whole run, so its order is the whole run's.
  std::vector<size_t> output_order;
  std::vector<std::vector<std::optional<double>>> values;  // [frame - start][column]
  PictureFormat format;
  double wall_seconds = 0;
  std::string backend;
};

// Throws UsageError / InputError / RuntimeFailure with a one-line message: for --subsample, a
// whole-clip aggregate (psnr enable_apsnr), a segment starting after the clip's last frame.
SegmentResult run_segment(FrameSource& reference, FrameSource& distorted,
                          const std::vector<MetricRequest>& requests, const RunSettings& settings,
                          const SegmentRange& range, uint64_t lead, uint64_t tail);

}  // namespace vqx
