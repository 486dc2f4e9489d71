#pragma once
// Typed metric options and libvmaf's option-string syntax ("key=val:key2=val2").
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace vqx {

enum class OptionType : uint8_t { kBool, kInt, kDouble, kString };

using OptionValue = std::variant<bool, int64_t, double, std::string>;

struct OptionSpec {
  std::string name;
  OptionType type = OptionType::kBool;
  OptionValue default_value;
  // Inclusive range for kInt and kDouble.
  double min = 0;
  double max = 0;
  // Accepted values for kString; empty means any text.
  std::vector<std::string> choices;
  std::string help;
  // libvmaf's feature parameters (VMAF_OPT_FLAG_FEATURE_PARAM): a non-default value appends
  // "_<alias>[_<value>]" to the metric's output names and keys its instance (vmaf.md 5).
  bool feature_param = false;
  std::string alias;  // the name used in that suffix; empty: the option's name

  // Marks the option a feature parameter named `alias` in output names ("" for its own name).
  OptionSpec param(std::string suffix_alias) &&;
  const std::string& suffix_name() const { return alias.empty() ? name : alias; }

  static OptionSpec Bool(std::string name, bool def, std::string help);
  static OptionSpec Int(std::string name, int64_t def, int64_t min, int64_t max, std::string help);
  static OptionSpec Double(std::string name, double def, double min, double max, std::string help);
  static OptionSpec String(std::string name, std::string def, std::vector<std::string> choices,
                           std::string help);
};

// The option called `name`, or null.
const OptionSpec* find_option(const std::vector<OptionSpec>& specs, std::string_view name);
// The feature parameters of `specs` sorted by option name: the order of name suffixes.
std::vector<const OptionSpec*> feature_params_by_name(const std::vector<OptionSpec>& specs);

// The values of every declared option: defaults, overridden by what the user gave.
class OptionValues {
 public:
  OptionValues() = default;
  explicit OptionValues(const std::vector<OptionSpec>& specs);

  bool get_bool(std::string_view name) const;
  int64_t get_int(std::string_view name) const;
  double get_double(std::string_view name) const;
  const std::string& get_string(std::string_view name) const;

  // True when the user named the option, whatever the value (libvmaf renames some outputs then).
  bool is_set(std::string_view name) const;
  // The text the user wrote for the option, or "" when it was not given.
  const std::string& text(std::string_view name) const;

  void set(const OptionSpec& spec, OptionValue value, std::string text);

 private:
  struct Entry {
    OptionValue value;
    bool set = false;
    std::string text;
  };
  const Entry& entry(std::string_view name) const;
  std::map<std::string, Entry, std::less<>> entries_;
};

// Parses one value for `spec`; throws UsageError naming the metric, key and the rule broken.
OptionValue parse_option_value(const OptionSpec& spec, std::string_view text,
                               std::string_view metric);

// Parses "key=val:key2=val2" against `specs` (unknown keys are an error, unlike libvmaf).
OptionValues parse_options(const std::vector<OptionSpec>& specs, std::string_view text,
                           std::string_view metric);

}  // namespace vqx
