// --ndjson lines: one valid JSON object per reported frame with the JSON output's values.
#include "output/ndjson_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.h"

namespace vqx {
namespace {

TEST(NdjsonWriter, OneObjectPerLineInOutputOrder) {
  ResultTable t;
  t.add_feature("late");   // first written by a later call: comes second
  t.add_feature("early");
  t.put(0, 1, 0.5, 0);
  t.put(0, 0, NAN, 1);
  t.put(1, 1, 0.25, 1);
  std::ostringstream out;
  NdjsonWriter writer(out, NumberFormat::Digits(17));
  writer.write_frame(t, 0, {{"vmaf", 91.5}});
  writer.write_frame(t, 1);
  writer.write_frame(t, 2);  // no value: no line
  EXPECT_EQ(out.str(),
            "{\"frameNum\": 0, \"metrics\": {\"early\": 0.5, \"late\": null, \"vmaf\": 91.5}}\n"
            "{\"frameNum\": 1, \"metrics\": {\"early\": 0.25}}\n");
  std::istringstream lines(out.str());
  for (std::string line; std::getline(lines, line);) EXPECT_TRUE(nlohmann::json::parse(line).is_object()) << line;
}

TEST(NdjsonWriter, SkipsFramesSubsampleLeavesOut) {
  ResultTable t;
  t.add_feature("a");
  t.set_subsample(2);
  t.put(0, 0, 1.0);
  t.put(1, 0, 2.0);  // a temporal metric's value on an unreported frame
  std::ostringstream out;
  NdjsonWriter writer(out, NumberFormat::Digits(17));
  writer.write_frame(t, 0);
  writer.write_frame(t, 1);
  EXPECT_EQ(out.str(), "{\"frameNum\": 0, \"metrics\": {\"a\": 1}}\n");
}

TEST(NdjsonWriter, AFailedStreamIsAnError) {
  ResultTable t;
  t.add_feature("a");
  t.put(0, 0, 1.0);
  std::ostringstream out;
  out.setstate(std::ios::badbit);
  NdjsonWriter writer(out, NumberFormat::Digits(17));
  EXPECT_THROW(writer.write_frame(t, 0), RuntimeFailure);
}

}  // namespace
}  // namespace vqx
