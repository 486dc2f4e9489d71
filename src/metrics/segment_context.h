#pragma once
// How many frames around a segment each metric must see for the segment's values to equal those
// of a run over the whole clip (vqx --segment). A temporal metric treats the first frames it is
// given as the clip's first (zero motion, no previous frame); a segment therefore starts that
// many frames early (`lead`) and reads the frames whose arrival decides its last values (`tail`).
#include <cstdint>
#include <vector>

#include "engine/metric.h"

namespace vqx {

struct SegmentContext {
  uint64_t lead = 0;  // frames before the segment whose values are computed and dropped
  uint64_t tail = 0;  // frames after it
};

// The largest lead and tail over `requests`. Throws UsageError for a temporal metric whose values
// depend on frames further away than a fixed window (it cannot be split).
SegmentContext segment_context(const std::vector<MetricRequest>& requests);

}  // namespace vqx
