// The extractors VMAF models read, taken from the metric registry, and libvmaf's rules for option
// text and output names (shared/spec/vmaf.md 5).
#include "metrics/vmaf/feature_catalog.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace vqx::vmaf {
namespace {

std::string format_g(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);  // glibc's %g, as libvmaf prints option values
  return buf;
}

}  // namespace

const std::vector<const CatalogExtractor*>& feature_catalog() {
  static const std::vector<const CatalogExtractor*> catalog = [] {
    std::vector<const CatalogExtractor*> c;
    for (const MetricDescriptor* m : metric_registry())
      if (!m->model_outputs.empty()) c.push_back(m);
    return c;
  }();
  return catalog;
}

const CatalogExtractor* find_extractor(std::string_view name) {
  for (const CatalogExtractor* e : feature_catalog())
    if (e->name == name) return e;
  return nullptr;
}

std::optional<FeatureSource> find_feature_source(std::string_view feature) {
  for (const CatalogExtractor* e : feature_catalog())
    for (const auto& [internal, printed] : e->model_outputs)
      if (internal == feature || printed == feature) return FeatureSource{e, printed};
  return std::nullopt;
}

std::string normalize_option_text(std::string_view text) {
  // sscanf("%f %c", &f, &c) == 1: leading white space, one float (strtof syntax), then only
  // white space. Such text becomes "%g" of the f32 value (6 significant digits survive).
  std::string s(text);
  const char* begin = s.c_str();
  char* end = nullptr;
  float f = std::strtof(begin, &end);
  if (end == begin) return s;
  for (const char* p = end; *p; ++p)
    if (!std::isspace(static_cast<unsigned char>(*p))) return s;
  return format_g(double(f));
}

std::string normalize_json_number(double value) {
  // libvmaf applies strtof to the number's text. vqx's JSON parser gives the correctly rounded
  // f64 instead; RN32 of it equals strtof of the text except when the f64 is exactly halfway
  // between two f32 values (a decimal of about 9+ significant digits; none in any model file).
  return format_g(double(float(value)));
}

OptionValue parse_catalog_value(const OptionSpec& option, const std::string& text) {
  auto out_of_range = [&]() {
    if (option.type == OptionType::kInt)
      return std::invalid_argument(
          fmt::format("must be an integer in [{}, {}]", int64_t(option.min), int64_t(option.max)));
    return std::invalid_argument(fmt::format("must be in [{}, {}]", option.min, option.max));
  };
  switch (option.type) {
    case OptionType::kBool:
      if (text == "true") return true;
      if (text == "false") return false;
      throw std::invalid_argument("expected true or false");
    case OptionType::kInt: {
      // libvmaf uses atoi ("1.5" -> 1); vqx, like its --feature parser, wants a whole integer.
      int64_t v = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (text.empty() || ec != std::errc() || end != text.data() + text.size())
        throw std::invalid_argument("expected an integer");
      if (double(v) < option.min || double(v) > option.max) throw out_of_range();
      return v;
    }
    case OptionType::kDouble: {
      char* end = nullptr;
      double v = std::strtod(text.c_str(), &end);
      if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v))
        throw std::invalid_argument("expected a number");
      if (v < option.min || v > option.max) throw out_of_range();
      return v;
    }
    case OptionType::kString:
      if (!option.choices.empty() &&
          std::find(option.choices.begin(), option.choices.end(), text) == option.choices.end())
        throw std::invalid_argument(
            fmt::format("expected one of {}", fmt::join(option.choices, ", ")));
      return text;
  }
  throw std::logic_error("unknown option type");
}

bool is_default_value(const OptionSpec& option, const OptionValue& value) {
  // Compared in the parsed type, doubles with == (vmaf.md 5).
  return value == option.default_value;
}

std::string suffix_value_text(const OptionValue& value) {
  if (const auto* i = std::get_if<int64_t>(&value)) return fmt::format("{}", *i);
  if (const auto* d = std::get_if<double>(&value)) return format_g(*d);
  if (const auto* s = std::get_if<std::string>(&value)) return *s;
  return std::get<bool>(value) ? "true" : "false";
}

std::string output_name(const CatalogExtractor& extractor, const std::string& printed,
                        const std::vector<OptionSetting>& settings) {
  std::vector<OptionSetting> sorted = settings;
  std::sort(sorted.begin(), sorted.end());
  std::string name = printed;
  for (const auto& [key, value_text] : sorted) {
    const OptionSpec* option = find_option(extractor.options, key);
    if (!option || !option->feature_param) continue;
    OptionValue value = parse_catalog_value(*option, value_text);
    if (is_default_value(*option, value)) continue;
    const std::string& alias = option->suffix_name();
    if (option->type == OptionType::kBool)
      name += "_" + alias;
    else
      name += "_" + alias + "_" + suffix_value_text(value);
  }
  return name;
}

}  // namespace vqx::vmaf
