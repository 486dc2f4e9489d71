// The part files of `vqx --segment ... --features_out` as read_segment_part reads them: a part
// written by vqx reads back to the same header and the same frame lines, and a header whose numbers are not whole numbers in
// range (the fuzzer's 1e82 in output_order, a negative start) is an InputError naming the key,
// never a cast out of range.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "output/segment_part.h"

namespace vqx {
namespace {

std::string seed_part() {
  std::ifstream in(std::string(VQX_SOURCE_DIR) + "/tests/fuzz/corpus/segment_part_fuzz/first_of_two.jsonl");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The part with its header's `key` set to `value` (JSON text).
std::string with_header(const std::string& part, const std::string& key, const std::string& value) {
  const size_t end = part.find('\n');
  nlohmann::json header = nlohmann::json::parse(part.substr(0, end));
  header[key] = nlohmann::json::parse(value);
  return header.dump() + part.substr(end);
}

std::string read_error(const std::string& text) {
  std::istringstream in(text);
  try {
    read_segment_part(in, "part.jsonl");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(read without an error)";
}

TEST(SegmentPart, APartReadsBackToTheSameHeaderAndFrames) {
  const std::string part = seed_part();
  ASSERT_FALSE(part.empty());
  std::istringstream in(part);
  std::ostringstream out;
  write_segment_part(out, read_segment_part(in, "part.jsonl"));
  const std::string again = out.str();
  // The settings are kept sorted, so the header's keys may come in another order.
  EXPECT_EQ(nlohmann::json::parse(again.substr(0, again.find('\n'))),
            nlohmann::json::parse(part.substr(0, part.find('\n'))));
  EXPECT_EQ(again.substr(again.find('\n')), part.substr(part.find('\n')));
}

TEST(SegmentPart, NumbersOutOfRangeOrNotWholeAreErrorsNamingTheKey) {
  const std::string part = seed_part();
  struct Case {
    const char* key;
    const char* value;
    const char* kind;
  };
  const char* list = "list of whole numbers in range";
  const char* number = "whole number in range";
  for (const Case& c : {Case{"output_order", "[1e82, 1, 2, 3, 4, 5]", list}, Case{"output_order", "[-1, 1, 2, 3, 4, 5]", list},
                        Case{"output_order", "[0.5, 1, 2, 3, 4, 5]", list}, Case{"start", "1e82", number},
                        Case{"start", "-3", number}, Case{"count", "2.5", number}, Case{"width", "4294967296", number},
                        Case{"height", "-1", number}, Case{"clip_end", "1", "boolean"},
                        Case{"vqx_features_part", "1e30", number}}) {
    const std::string message = read_error(with_header(part, c.key, c.value));
    EXPECT_NE(message.find(std::string("'") + c.key + "' is not a " + c.kind), std::string::npos)
        << c.key << " = " << c.value << ": " << message;
  }
}

}  // namespace
}  // namespace vqx
