#pragma once
// What a VMAF model needs to know about the feature extractors it reads: which extractor provides
// an internal feature name, the printed (alias) name, and every option with its alias, type,
// default, range and whether it is a "feature parameter" (a non-default value renames the
// output). All of it comes from the metrics' own declarations (MetricDescriptor::options and
// model_outputs); the naming rule is vmaf.md 5.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/metric.h"
#include "engine/options.h"

namespace vqx::vmaf {

// A metric that VMAF models may read: one with model outputs, in registration order.
using CatalogExtractor = MetricDescriptor;

const std::vector<const CatalogExtractor*>& feature_catalog();
const CatalogExtractor* find_extractor(std::string_view name);

// The extractor providing `feature` (an internal name such as VMAF_integer_feature_adm2_score,
// or a printed one such as integer_adm_scale0), with the printed base name of that output.
struct FeatureSource {
  const CatalogExtractor* extractor;
  std::string printed;
};
std::optional<FeatureSource> find_feature_source(std::string_view feature);

// libvmaf's dictionary normalisation (vmaf.md 5): text that sscanf("%f %c") reads as exactly
// one float is replaced by printf("%g") of that f32 value; other text is kept.
std::string normalize_option_text(std::string_view text);
// The same for a number from a JSON file, given as a double (see the note in feature_catalog.cpp).
std::string normalize_json_number(double value);

// A typed value of one option, after libvmaf's per-type parsing of the normalised text.
// Throws std::invalid_argument with a one-line reason when the text is not valid for the option.
OptionValue parse_catalog_value(const OptionSpec& option, const std::string& text);
bool is_default_value(const OptionSpec& option, const OptionValue& value);
// The value as it appears in an output name suffix: %d, %g or the string.
std::string suffix_value_text(const OptionValue& value);

// One option of a feature request: name and normalised text, already validated.
using OptionSetting = std::pair<std::string, std::string>;

// Output name for `printed` computed with `settings` (vmaf.md 5): the printed base plus
// "_alias[_value]" for every feature-param option that differs from its default, sorted by
// option name. `settings` must have been validated against `extractor`.
std::string output_name(const CatalogExtractor& extractor, const std::string& printed,
                        const std::vector<OptionSetting>& settings);

}  // namespace vqx::vmaf
