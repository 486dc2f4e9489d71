#pragma once
// The part file of one segment (vqx --segment ... --features_out) and the merge of a clip's parts
// (vqx merge). A part is JSON Lines: a header object (format, version, the run's settings, the
// segment's range and columns), one object per frame with every raw value as a C99 hex float
// string (exact, also for inf and nan), and an end object with the frame count, whose absence
// marks a truncated file.
#include <cstdint>
#include <istream>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "engine/result_table.h"
#include "engine/segment.h"

namespace vqx {

struct SegmentPart {
  std::string version;  // the vqx that wrote it
  // What must be the same in every part of one clip (inputs' formats, features, models, skips),
  // as key and canonical text.
  std::vector<std::pair<std::string, std::string>> settings;
  SegmentResult segment;  // of `format`, only width and height are kept
};

void write_segment_part(std::ostream& out, const SegmentPart& part);
// `name` is used in messages. Throws InputError "NAME: line N: ..." for malformed or truncated text.
SegmentPart read_segment_part(std::istream& in, const std::string& name);

struct MergedParts {
  std::vector<std::pair<std::string, std::string>> settings;
  uint32_t width = 0, height = 0;
  double wall_seconds = 0;  // summed over the parts
  ResultTable table;        // every frame's raw values, in the whole run's column order
};

// Checks that the parts cover frames 0..N-1 of one clip exactly once with the same settings, and
// rebuilds the whole run's table. Throws InputError naming the parts for a gap, an overlap, a
// missing last part or settings that differ. `names[i]` names parts[i] in messages.
std::unique_ptr<MergedParts> merge_segment_parts(std::vector<SegmentPart> parts,
                                                 const std::vector<std::string>& names);

}  // namespace vqx
