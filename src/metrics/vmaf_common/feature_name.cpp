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

namespace {

const OptionSpec& find_spec(const std::vector<OptionSpec>& specs, const std::string& name) {
  for (const auto& s : specs)
    if (s.name == name) return s;
  throw std::logic_error("feature parameter '" + name + "' is not a declared option");
}

}  // namespace

std::string name_suffix(const std::vector<OptionSpec>& specs, const OptionValues& values,
                        const std::vector<FeatureParam>& params) {
  std::vector<const FeatureParam*> sorted;
  for (const auto& p : params) sorted.push_back(&p);
  std::sort(sorted.begin(), sorted.end(),
            [](const FeatureParam* a, const FeatureParam* b) { return a->option < b->option; });
  std::string suffix;
  for (const FeatureParam* p : sorted) {
    const OptionSpec& spec = find_spec(specs, p->option);
    switch (spec.type) {
      case OptionType::kBool: {
        bool v = values.get_bool(p->option);
        if (v != std::get<bool>(spec.default_value) && v) suffix += "_" + p->alias;
        break;
      }
      case OptionType::kInt: {
        int64_t v = values.get_int(p->option);
        if (v != std::get<int64_t>(spec.default_value)) suffix += fmt::format("_{}_{}", p->alias, v);
        break;
      }
      case OptionType::kDouble: {
        double v = normalise_double_option(values.get_double(p->option));
        if (v != std::get<double>(spec.default_value)) {
          char text[64];
          std::snprintf(text, sizeof text, "%g", v);
          suffix += "_" + p->alias + "_" + text;
        }
        break;
      }
      case OptionType::kString: {
        const std::string& v = values.get_string(p->option);
        if (v != std::get<std::string>(spec.default_value)) suffix += "_" + p->alias + "_" + v;
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
