#pragma once
// libvmaf's feature naming and option plumbing, shared by the integer VIF, ADM and motion
// extractors (shared/spec/vmaf.md section 5).
#include <string>
#include <string_view>
#include <vector>

#include "engine/options.h"

namespace vqx::vmaf_common {

// libvmaf passes numeric option text through strtof and prints it back with %g before parsing it
// as a double (vmaf.md 5), so at most 6 significant digits survive. Returns that value.
double normalise_double_option(double value);

// "_<alias>[_<value>]..." for the feature parameters (OptionSpec::feature_param) whose value
// differs from the default, sorted by option name (vmaf.md 5). Doubles are compared after
// normalise_double_option.
std::string name_suffix(const std::vector<OptionSpec>& specs, const OptionValues& values);

// Applies `suffix` to every name.
std::vector<std::string> with_suffix(std::vector<std::string> names, const std::string& suffix);

}  // namespace vqx::vmaf_common
