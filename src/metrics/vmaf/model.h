#pragma once
// VMAF models: the `--model` option, loading libvmaf model JSON (built in or from a file), the
// feature requests a model implies, and the per-frame prediction (shared/spec/vmaf.md 5-6).
//
// Use from the CLI/engine:
//   auto models = load_models({"version=vmaf_v0.6.1", ...});      // parse, load, unique names
//   requests = model_feature_requests(models);                    // --feature strings, deduped
//   ... run_metrics(ref, dis, parse_metric_request(each) + user features, settings) ...
//   apply_models(models, report->table);                          // adds the score columns
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/metric.h"
#include "engine/result_table.h"
#include "metrics/vmaf/feature_catalog.h"

namespace vqx::vmaf {

// One `--model` argument, as written (cli-and-output.md 2.2).
struct ModelRequest {
  std::string version;        // built-in model name, or empty
  std::string path;           // model JSON file, or empty
  std::string name = "vmaf";  // output column of the score
  bool disable_clip = false;
  bool enable_transform = false;
  struct Override {
    std::string extractor;  // e.g. "adm"
    std::string option;     // e.g. "adm_enhn_gain_limit"
    std::string value;      // as written
  };
  std::vector<Override> overrides;  // in the order given
  std::string spec_text;            // the whole argument, for messages
};

// Parses "version=X|path=FILE[:name=L][:disable_clip][:enable_transform][:ext.opt=val]...".
// Throws vqx::UsageError.
ModelRequest parse_model_request(std::string_view text);

// One feature a model reads, with its extractor and the output column holding it.
struct ModelFeature {
  std::string name;                    // as in the model file, e.g. VMAF_integer_feature_adm2_score
  std::string extractor;               // --feature name, e.g. "adm"
  std::vector<OptionSetting> options;  // merged model + override options, normalised, by name
  std::string column;                  // e.g. "integer_adm2" or "integer_adm3_csf_2_dlmw_0.7_..."
  double slope = 1, intercept = 0;     // feature normalisation (vmaf.md 6.2)
};

struct SupportVector {
  double coef = 0;
  std::vector<double> dense;   // value per feature index 1..n (0 where the file omits it)
  std::vector<double> beyond;  // values at indices > n, in file order (libsvm adds their squares)
};

struct ScoreTransform {
  bool present = false;  // the file has a score_transform object
  bool enabled = false;  // its "enabled" key, or enable_transform
  bool has_p0 = false, has_p1 = false, has_p2 = false;
  double p0 = 0, p1 = 0, p2 = 0;
  std::vector<std::pair<double, double>> knots;  // empty: no piecewise-linear stage
  bool out_lte_in = false, out_gte_in = false;
};

class LoadedModel {
 public:
  const std::string& name() const { return name_; }
  // "version X" or "path X", for messages.
  const std::string& label() const { return label_; }
  const std::vector<ModelFeature>& features() const { return features_; }

  // `--feature` strings (name=opt=val:...) of the extractor instances this model needs, in
  // feature order, without duplicates. Options equal to their default are left out.
  std::vector<std::string> feature_requests() const;
  // The output columns read, in the model's feature order.
  std::vector<std::string> feature_columns() const;

  // The score for one frame from the raw feature values (in features() order), vmaf.md 6.2-6.5.
  double predict(std::span<const double> raw_features) const;
  // The same before the score transform and clip (vmaf.md 6.2-6.3), and those two steps alone
  // (6.4): predict(x) == finish(predict_untransformed(x)).
  double predict_untransformed(std::span<const double> raw_features) const;
  double finish(double score) const;

  // A bootstrap collection's models "1".."n", named <name>_0001.. (vmaf.md 6.6); empty for a
  // single model. This model is the collection's model "0".
  const std::vector<LoadedModel>& collection() const { return collection_; }

 private:
  friend struct ModelLoader;
  enum class Norm { kNone, kLinearRescale };

  double transform(double x) const;

  std::string name_;
  std::string label_;
  std::vector<ModelFeature> features_;
  Norm norm_ = Norm::kNone;
  double out_slope_ = 1, out_intercept_ = 0;
  double gamma_ = 0, rho_ = 0;
  std::vector<SupportVector> svs_;
  ScoreTransform transform_;
  bool clip_ = false;
  double clip_min_ = 0, clip_max_ = 0;
  bool chroma_correction_ = false;
  double chroma_parameter_ = 0;
  size_t guided_ = 0, guiding_ = 0;  // speed_chroma and adm3 feature indices (vmaf.md 6.5)
  std::vector<LoadedModel> collection_;
};

// Built-in model names accepted by `version=`.
std::vector<std::string> builtin_model_versions();

// Loads the model a request names, applying its flags and overrides. Throws vqx::InputError for
// an unknown version, an unreadable or malformed file, or a model feature vqx cannot compute, and
// vqx::UsageError for an override that does not fit the model.
LoadedModel load_model(const ModelRequest& request);
// The same from JSON text; `label` is used in messages.
LoadedModel load_model_json(std::string_view json, const ModelRequest& request, std::string label);

// Parses and loads every `--model` argument; throws UsageError when two models share a name.
std::vector<LoadedModel> load_models(const std::vector<std::string>& model_args);
void check_unique_names(const std::vector<LoadedModel>& models);

// The feature requests of all models, deduplicated the way libvmaf shares extractor instances
// (extractor name plus non-default feature-parameter options).
std::vector<std::string> model_feature_requests(const std::vector<LoadedModel>& models);

// The extractor requests of a run: the models' (model_feature_requests) first, then each user
// `--feature` string unless an instance with the same extractor and non-default feature-param
// options is already there. libvmaf drops such a duplicate silently (vmaf.md 5), e.g.
// `--feature adm=debug=true` next to a model that uses the default adm.
std::vector<std::string> merged_feature_requests(const std::vector<LoadedModel>& models,
                                                 const std::vector<std::string>& user_features);
// The same parsed with the metric registry (throws vqx::UsageError like parse_metric_request).
std::vector<MetricRequest> model_metric_requests(
    const std::vector<LoadedModel>& models, const std::vector<std::string>& user_features = {});

// Adds the column `model.name()` to `table` with the score of every selected frame. Throws
// vqx::InputError naming a feature column or frame value that is missing, and vqx::UsageError
// when the table already has a column of that name.
void apply_model(const LoadedModel& model, ResultTable& table);

// The per-frame statistics of a bootstrap collection (vmaf.md 6.6), from each collection model's
// untransformed score in collection order.
struct BootstrapScores {
  double bagging = 0, stddev = 0, ci_p95_lo = 0, ci_p95_hi = 0;
};
BootstrapScores bootstrap_scores(const LoadedModel& model, std::vector<double> untransformed);

// For a collection: adds <name>_0001..<name>_000n, then <name>_bagging, <name>_stddev,
// <name>_ci_p95_lo and <name>_ci_p95_hi, every frame's in that order, as libvmaf does after all
// model scores. Nothing for a single model. Throws like apply_model.
void apply_collection(const LoadedModel& model, ResultTable& table);

// libvmaf's order: every model's score (apply_model) in the given order, then every collection's
// outputs (apply_collection).
void apply_models(const std::vector<LoadedModel>& models, ResultTable& table);

}  // namespace vqx::vmaf
