#include "engine/options.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "core/error.h"

namespace vqx {

namespace {

OptionSpec make_spec(std::string name, OptionType type, OptionValue def, double min, double max,
                     std::vector<std::string> choices, std::string help) {
  OptionSpec spec;
  spec.name = std::move(name);
  spec.type = type;
  spec.default_value = std::move(def);
  spec.min = min;
  spec.max = max;
  spec.choices = std::move(choices);
  spec.help = std::move(help);
  return spec;
}

}  // namespace

OptionSpec OptionSpec::Bool(std::string name, bool def, std::string help) {
  return make_spec(std::move(name), OptionType::kBool, def, 0, 1, {}, std::move(help));
}
OptionSpec OptionSpec::Int(std::string name, int64_t def, int64_t min, int64_t max,
                           std::string help) {
  return make_spec(std::move(name), OptionType::kInt, def, double(min), double(max), {},
                   std::move(help));
}
OptionSpec OptionSpec::Double(std::string name, double def, double min, double max,
                              std::string help) {
  return make_spec(std::move(name), OptionType::kDouble, def, min, max, {}, std::move(help));
}
OptionSpec OptionSpec::String(std::string name, std::string def, std::vector<std::string> choices,
                              std::string help) {
  return make_spec(std::move(name), OptionType::kString, std::move(def), 0, 0, std::move(choices),
                   std::move(help));
}

OptionSpec OptionSpec::param(std::string suffix_alias) && {
  feature_param = true;
  alias = std::move(suffix_alias);
  return std::move(*this);
}

const OptionSpec* find_option(const std::vector<OptionSpec>& specs, std::string_view name) {
  for (const auto& s : specs)
    if (s.name == name) return &s;
  return nullptr;
}

std::vector<const OptionSpec*> feature_params_by_name(const std::vector<OptionSpec>& specs) {
  std::vector<const OptionSpec*> params;
  for (const auto& s : specs)
    if (s.feature_param) params.push_back(&s);
  std::sort(params.begin(), params.end(),
            [](const OptionSpec* a, const OptionSpec* b) { return a->name < b->name; });
  return params;
}

OptionValues::OptionValues(const std::vector<OptionSpec>& specs) {
  for (const auto& s : specs) entries_[s.name] = Entry{s.default_value, false, {}};
}

const OptionValues::Entry& OptionValues::entry(std::string_view name) const {
  auto it = entries_.find(name);
  if (it == entries_.end())
    throw std::logic_error(fmt::format("option '{}' was never declared", name));
  return it->second;
}

bool OptionValues::get_bool(std::string_view n) const { return std::get<bool>(entry(n).value); }
int64_t OptionValues::get_int(std::string_view n) const { return std::get<int64_t>(entry(n).value); }
double OptionValues::get_double(std::string_view n) const {
  return std::get<double>(entry(n).value);
}
const std::string& OptionValues::get_string(std::string_view n) const {
  return std::get<std::string>(entry(n).value);
}
bool OptionValues::is_set(std::string_view n) const { return entry(n).set; }
const std::string& OptionValues::text(std::string_view n) const { return entry(n).text; }

void OptionValues::set(const OptionSpec& spec, OptionValue value, std::string text) {
  entries_[spec.name] = Entry{std::move(value), true, std::move(text)};
}

namespace {

[[noreturn]] void bad_value(std::string_view metric, const OptionSpec& spec, std::string_view text,
                            std::string_view why) {
  throw UsageError(fmt::format("feature '{}': option {}={} is invalid: {}", metric, spec.name, text,
                               why));
}

}  // namespace

OptionValue parse_option_value(const OptionSpec& spec, std::string_view text,
                               std::string_view metric) {
  switch (spec.type) {
    case OptionType::kBool:
      if (text == "true") return true;
      if (text == "false") return false;
      bad_value(metric, spec, text, "expected true or false");
    case OptionType::kInt: {
      int64_t v = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || end != text.data() + text.size() || text.empty())
        bad_value(metric, spec, text, "expected an integer");
      if (double(v) < spec.min || double(v) > spec.max)
        bad_value(metric, spec, text, fmt::format("must be in [{}, {}]", int64_t(spec.min),
                                                  int64_t(spec.max)));
      return v;
    }
    case OptionType::kDouble: {
      // strtod in the C locale (vqx never changes LC_NUMERIC), full-string match required.
      std::string s(text);
      char* end = nullptr;
      double v = std::strtod(s.c_str(), &end);
      if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v))
        bad_value(metric, spec, text, "expected a finite number");
      if (v < spec.min || v > spec.max)
        bad_value(metric, spec, text, fmt::format("must be in [{}, {}]", spec.min, spec.max));
      return v;
    }
    case OptionType::kString:
      if (!spec.choices.empty()) {
        for (const auto& c : spec.choices)
          if (c == text) return std::string(text);
        bad_value(metric, spec, text, fmt::format("expected one of {}", fmt::join(spec.choices, ", ")));
      }
      return std::string(text);
  }
  throw std::logic_error("unknown option type");
}

OptionValues parse_options(const std::vector<OptionSpec>& specs, std::string_view text,
                           std::string_view metric) {
  OptionValues values(specs);
  size_t pos = 0;
  while (pos < text.size()) {
    size_t next = text.find(':', pos);
    if (next == std::string_view::npos) next = text.size();
    std::string_view pair = text.substr(pos, next - pos);
    size_t eq = pair.find('=');
    if (pair.empty() || eq == std::string_view::npos || eq == 0)
      throw UsageError(fmt::format("Problem parsing feature \"{}\", bad option string \"{}\"",
                                   metric, pair));
    std::string_view key = pair.substr(0, eq);
    std::string_view value = pair.substr(eq + 1);
    const OptionSpec* spec = find_option(specs, key);
    if (!spec) {
      std::vector<std::string> names;
      for (const auto& s : specs) names.push_back(s.name);
      throw UsageError(fmt::format("feature '{}' has no option '{}' (options: {})", metric, key,
                                   names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "))));
    }
    values.set(*spec, parse_option_value(*spec, value, metric), std::string(value));
    pos = next + 1;
  }
  if (!text.empty() && text.back() == ':')
    throw UsageError(fmt::format("Problem parsing feature \"{}\", bad option string \"\" (trailing ':')", metric));
  return values;
}

}  // namespace vqx
