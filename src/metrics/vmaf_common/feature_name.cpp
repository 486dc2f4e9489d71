#include "metrics/vmaf_common/feature_name.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace vqx::vmaf_common {

double normalise_double_option(double value) {
  // strtof rounds the text to f32; "%g" keeps 6 significant digits; atof reads that back.
  char text[64];
  std::snprintf(text, sizeof text, "%g", double(float(value)));
  return std::atof(text);
}

std::string name_suffix(const std::vector<OptionSpec>& specs, const OptionValues& values) {
  std::string suffix;
  for (const OptionSpec* p : feature_params_by_name(specs)) {
    const OptionSpec& spec = *p;
    switch (spec.type) {
      case OptionType::kBool: {
        bool v = values.get_bool(spec.name);
        if (v != std::get<bool>(spec.default_value) && v) suffix += "_" + spec.suffix_name();
        break;
      }
      case OptionType::kInt: {
        int64_t v = values.get_int(spec.name);
        if (v != std::get<int64_t>(spec.default_value))
          suffix += fmt::format("_{}_{}", spec.suffix_name(), v);
        break;
      }
      case OptionType::kDouble: {
        double v = normalise_double_option(values.get_double(spec.name));
        if (v != std::get<double>(spec.default_value)) {
          char text[64];
          std::snprintf(text, sizeof text, "%g", v);
          suffix += "_" + spec.suffix_name() + "_" + text;
        }
        break;
      }
      case OptionType::kString: {
        const std::string& v = values.get_string(spec.name);
        if (v != std::get<std::string>(spec.default_value))
          suffix += "_" + spec.suffix_name() + "_" + v;
        break;
      }
    }
  }
  return suffix;
}

std::vector<std::string> with_suffix(std::vector<std::string> names, const std::string& suffix) {
  for (auto& n : names) n += suffix;
  return names;
}

}  // namespace vqx::vmaf_common
