// Feeds arbitrary text to `vqx merge` as its part files: the input is cut at each "\n\x1e\n"
// (a record separator no part file holds) into up to four parts, each read as read_segment_part
// reads a --features_out file, then merged and written out as JSON and CSV. Each step must
// succeed or throw InputError / UsageError, never crash.
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "output/segment_part.h"
#include "output/writers.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vqx;
  constexpr std::string_view kSeparator = "\n\x1e\n";
  constexpr size_t kMaxParts = 4;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> pieces;
  while (pieces.size() + 1 < kMaxParts) {
    const size_t cut = text.find(kSeparator);
    if (cut == std::string_view::npos) break;
    pieces.push_back(text.substr(0, cut + 1));  // the part's last line keeps its newline
    text.remove_prefix(cut + kSeparator.size());
  }
  pieces.push_back(text);

  try {
    std::vector<SegmentPart> parts;
    std::vector<std::string> names;
    for (std::string_view piece : pieces) {
      std::istringstream in{std::string(piece)};
      names.push_back("part" + std::to_string(names.size()) + ".jsonl");
      parts.push_back(read_segment_part(in, names.back()));
    }
    auto merged = merge_segment_parts(std::move(parts), names);
    OutputInfo info;
    info.version = "vqx-fuzz";
    info.width = merged->width;
    info.height = merged->height;
    for (OutputFormat format : {OutputFormat::kJson, OutputFormat::kCsv}) {
      std::ostringstream out;
      write_results(out, format, merged->table, info);
    }
  } catch (const InputError&) {
  } catch (const UsageError&) {
  }
  return 0;
}
