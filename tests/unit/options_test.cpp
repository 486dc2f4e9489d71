// libvmaf's option-string syntax, with vqx's stricter value checks.
#include "engine/options.h"

#include <gmock/gmock.h>

#include "core/error.h"
#include "engine/metric.h"

namespace vqx {
namespace {

const std::vector<OptionSpec> kSpecs = {
    OptionSpec::Bool("flag", false, ""),
    OptionSpec::Int("count", 5, 1, 10, ""),
    OptionSpec::Double("ratio", 0.5, 0.0, 1.0, ""),
    OptionSpec::String("mode", "a", {"a", "b"}, ""),
};

TEST(Options, DefaultsWhenEmpty) {
  OptionValues v = parse_options(kSpecs, "", "m");
  EXPECT_FALSE(v.get_bool("flag"));
  EXPECT_EQ(v.get_int("count"), 5);
  EXPECT_EQ(v.get_double("ratio"), 0.5);
  EXPECT_EQ(v.get_string("mode"), "a");
  EXPECT_FALSE(v.is_set("count"));
}

TEST(Options, ParsesEveryType) {
  OptionValues v = parse_options(kSpecs, "flag=true:count=10:ratio=0.25:mode=b", "m");
  EXPECT_TRUE(v.get_bool("flag"));
  EXPECT_EQ(v.get_int("count"), 10);
  EXPECT_EQ(v.get_double("ratio"), 0.25);
  EXPECT_EQ(v.get_string("mode"), "b");
  EXPECT_TRUE(v.is_set("ratio"));
  EXPECT_EQ(v.text("ratio"), "0.25");
}

TEST(Options, RejectsBadValues) {
  for (const char* bad : {"flag=1", "flag=TRUE", "count=0", "count=11", "count=2.5", "count=x",
                          "ratio=1.5", "ratio=nan", "ratio=", "mode=c", "nokey=1", "flag", "=1",
                          "count=3:"})
    EXPECT_THROW(parse_options(kSpecs, bad, "m"), UsageError) << bad;
}

TEST(Options, FeatureRequestSyntax) {
  MetricRequest r = parse_metric_request("psnr=enable_chroma=false:min_sse=0.5");
  EXPECT_EQ(r.metric->name, "psnr");
  EXPECT_FALSE(r.options.get_bool("enable_chroma"));
  EXPECT_EQ(r.options.get_double("min_sse"), 0.5);
  EXPECT_THROW(parse_metric_request("psnr="), UsageError);
  EXPECT_THROW(parse_metric_request("=x"), UsageError);
  EXPECT_THROW(parse_metric_request("nosuchmetric"), UsageError);
}

}  // namespace
}  // namespace vqx
