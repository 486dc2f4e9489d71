// libvmaf's adaptive score format and --precision.
#include "output/number_format.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"

namespace vqx {
namespace {

TEST(NumberFormat, AdaptiveRuleFromTheSpec) {
  NumberFormat nf = NumberFormat::Adaptive();
  EXPECT_EQ(nf.format(0.0000001234), "0.0000001234000000");
  EXPECT_EQ(nf.format(0.0000012), "0.000001");
  EXPECT_EQ(nf.format(100.0), "100.000000");
  // glibc's correctly rounded digits of the double nearest 5.00000001 (the spec's example rounds).
  EXPECT_EQ(nf.format(5.00000001), "5.0000000099999999");
  EXPECT_EQ(nf.format(-0.0000001234), "-0.0000001234000000");
  EXPECT_EQ(nf.format(0.0), "0.000000");
  EXPECT_EQ(nf.format(29.695808917836878), "29.695809");
}

TEST(NumberFormat, FixedPrecisions) {
  EXPECT_EQ(NumberFormat::Digits(17).format(29.695808917836878), "29.695808917836878");
  EXPECT_EQ(NumberFormat::Digits(3).format(29.695808917836878), "29.7");
  EXPECT_EQ(NumberFormat::Legacy().format(0.0000001234), "0.000000");
}

TEST(NumberFormat, NonFinite) {
  EXPECT_EQ(NumberFormat::Adaptive().format(INFINITY), "inf");
  EXPECT_EQ(NumberFormat::Digits(17).format(-INFINITY), "-inf");
}

TEST(NumberFormat, ParsePrecision) {
  EXPECT_EQ(parse_precision("max").significant_digits, 17);
  EXPECT_EQ(parse_precision("full").significant_digits, 17);
  EXPECT_EQ(parse_precision("legacy").significant_digits, -1);
  EXPECT_EQ(parse_precision("9").significant_digits, 9);
  for (const char* bad : {"0", "18", "", "abc", "-1", "5x"}) EXPECT_THROW(parse_precision(bad), UsageError) << bad;
}

}  // namespace
}  // namespace vqx
