// VMAF prediction (shared/spec/vmaf.md 6.2-6.5): normalisation, chroma correction, nu-SVR with
// an RBF kernel, denormalisation, score transform, clip. Every step is f64 in the order written
// there; the build has -ffp-contract=off, so no product is fused into a sum. exp() is the libm
// one, as in libsvm.
#include <fmt/format.h>

#include <cmath>

#include "core/error.h"
#include "metrics/vmaf/model.h"

namespace vqx::vmaf {
namespace {

// libvmaf's piecewise-linear stage at f85a8536 (vmaf.md 6.4): segments are visited in order and
// a later one overrides an earlier one where both apply (a shared knot takes the right segment);
// the first segment extends below the range, the last above it. The load checked that x rises
// strictly and y does not fall, and at least two knots are needed for anything to happen.
double piecewise_linear(double x, const std::vector<std::pair<double, double>>& knots) {
  if (knots.size() < 2) return x;
  double y = 0.0;
  const size_t last = knots.size() - 2;
  for (size_t i = 0; i + 1 < knots.size(); ++i) {
    auto [x0, y0] = knots[i];
    auto [x1, y1] = knots[i + 1];
    bool inside = x0 <= x && x <= x1;
    bool below = i == 0 && x < x0;
    bool above = i == last && x > x1;
    if (!(inside || below || above)) continue;
    if (y0 == y1) {
      y = y0;
      continue;
    }
    double alpha, beta;
    if (x0 == 0) {
      beta = y0;
      alpha = (y1 - beta) / x1;
    } else {
      alpha = (y1 - y0) / (x1 - x0);
      beta = y0 - (x0 * alpha);
    }
    y = alpha * x + beta;
  }
  return y;
}

}  // namespace

double LoadedModel::transform(double x) const {
  const ScoreTransform& t = transform_;
  double y = x;
  if (t.has_p0 || t.has_p1 || t.has_p2) {
    y = 0.0;
    if (t.has_p0) y += t.p0;
    if (t.has_p1) y += t.p1 * x;
    if (t.has_p2) y += (t.p2 * x) * x;
  }
  if (!t.knots.empty()) y = piecewise_linear(y, t.knots);
  // Rectification compares with the untransformed input.
  if (t.out_lte_in && y > x) y = x;
  if (t.out_gte_in && y < x) y = x;
  return y;
}

double LoadedModel::predict(std::span<const double> raw) const {
  return finish(predict_untransformed(raw));
}

double LoadedModel::finish(double prediction) const {
  if (transform_.present && transform_.enabled) prediction = transform(prediction);
  if (clip_) {
    if (prediction < clip_min_) prediction = clip_min_;
    if (prediction > clip_max_) prediction = clip_max_;
  }
  return prediction;
}

double LoadedModel::predict_untransformed(std::span<const double> raw) const {
  const size_t n = features_.size();
  if (raw.size() != n) throw std::invalid_argument("predict: wrong number of feature values");
  const bool linear = norm_ == Norm::kLinearRescale;
  // x holds the normalised features; libvmaf keeps them in the svm_node array the same way.
  std::vector<double> xs(n);
  for (size_t i = 0; i < n; ++i)
    xs[i] = linear ? features_[i].slope * raw[i] + features_[i].intercept : raw[i];

  if (chroma_correction_) {
    // vmaf.md 6.5: only when the guided (SpEED-chroma) value, denormalised from its normalised
    // value, is exactly 0, it becomes c - c*adm3' (adm3' also round-tripped through the
    // normalisation), normalised again.
    auto denorm = [&](size_t i) {
      return linear ? (xs[i] - features_[i].intercept) / features_[i].slope : xs[i];
    };
    if (denorm(guided_) == 0.0) {
      double corrected = (-chroma_parameter_ * denorm(guiding_)) + chroma_parameter_;
      const ModelFeature& g = features_[guided_];
      xs[guided_] = linear ? g.slope * corrected + g.intercept : corrected;
    }
  }

  // libsvm's RBF kernel over sparse vectors: squares summed in ascending index order, the
  // support vectors' entries beyond the feature count last (vmaf.md 6.3).
  const double neg_gamma = -gamma_;
  double sum = 0.0;
  for (const SupportVector& sv : svs_) {
    double d = 0.0;
    for (size_t k = 0; k < n; ++k) {
      double t = xs[k] - sv.dense[k];
      d += t * t;
    }
    for (double v : sv.beyond) d += v * v;
    sum += sv.coef * std::exp(neg_gamma * d);
  }
  double prediction = sum - rho_;
  if (linear) prediction = (prediction - out_intercept_) / out_slope_;
  return prediction;
}

std::vector<std::string> LoadedModel::feature_columns() const {
  std::vector<std::string> columns;
  for (const auto& f : features_) columns.push_back(f.column);
  return columns;
}

namespace {

// The key libvmaf de-duplicates extractor instances by, and the --feature text of the instance.
struct FeatureRequest {
  std::string key;
  std::string text;
};

FeatureRequest request_of(const ModelFeature& f) {
  const CatalogExtractor& extractor = *find_extractor(f.extractor);
  std::vector<std::string> given;
  for (const auto& [name, value] : f.options) {
    const OptionSpec& option = *find_option(extractor.options, name);
    if (!is_default_value(option, parse_catalog_value(option, value)))
      given.push_back(name + "=" + value);
  }
  std::string text = f.extractor;
  if (!given.empty()) text = fmt::format("{}={}", f.extractor, fmt::join(given, ":"));
  return {output_name(extractor, f.extractor, f.options), text};
}

// libvmaf registers a collection's extractors from its models "1".."n"; model "0" reads the
// same features in the shipped collections, and its own come last here.
void append_requests(const LoadedModel& model, std::vector<FeatureRequest>& out) {
  for (const auto& member : model.collection()) append_requests(member, out);
  for (const auto& f : model.features()) {
    FeatureRequest r = request_of(f);
    bool seen = false;
    for (const auto& o : out) seen = seen || o.key == r.key;
    if (!seen) out.push_back(std::move(r));
  }
}

std::vector<std::string> texts(const std::vector<FeatureRequest>& requests) {
  std::vector<std::string> out;
  for (const auto& r : requests) out.push_back(r.text);
  return out;
}

// The instance key of a user --feature string, or "" when vqx cannot tell (an extractor models
// do not use, or options the catalog does not accept: the engine reports those).
std::string user_request_key(const std::string& text) {
  size_t eq = text.find('=');
  const CatalogExtractor* extractor = find_extractor(text.substr(0, eq));
  if (!extractor) return "";
  std::vector<OptionSetting> settings;
  if (eq != std::string::npos) {
    std::string_view rest = std::string_view(text).substr(eq + 1);
    while (!rest.empty()) {
      size_t colon = std::min(rest.find(':'), rest.size());
      std::string_view pair = rest.substr(0, colon);
      rest = colon < rest.size() ? rest.substr(colon + 1) : std::string_view{};
      size_t e = pair.find('=');
      if (e == std::string_view::npos) return "";
      const OptionSpec* option = find_option(extractor->options, pair.substr(0, e));
      if (!option) return "";
      std::string value = normalize_option_text(pair.substr(e + 1));
      try {
        parse_catalog_value(*option, value);
      } catch (const std::invalid_argument&) {
        return "";
      }
      settings.emplace_back(option->name, value);
    }
  }
  return output_name(*extractor, extractor->name, settings);
}

}  // namespace

std::vector<std::string> merged_feature_requests(const std::vector<LoadedModel>& models,
                                                 const std::vector<std::string>& user_features) {
  std::vector<FeatureRequest> requests;
  for (const auto& m : models) append_requests(m, requests);
  for (const auto& text : user_features) {
    std::string key = user_request_key(text);
    bool seen = false;
    for (const auto& r : requests) seen = seen || (!key.empty() && r.key == key);
    if (!seen) requests.push_back({key, text});
  }
  return texts(requests);
}

std::vector<MetricRequest> model_metric_requests(const std::vector<LoadedModel>& models,
                                                 const std::vector<std::string>& user_features) {
  std::vector<MetricRequest> out;
  for (const auto& text : merged_feature_requests(models, user_features))
    out.push_back(parse_metric_request(text));
  return out;
}

std::vector<std::string> LoadedModel::feature_requests() const {
  std::vector<FeatureRequest> requests;
  append_requests(*this, requests);
  return texts(requests);
}

std::vector<std::string> model_feature_requests(const std::vector<LoadedModel>& models) {
  std::vector<FeatureRequest> requests;
  for (const auto& m : models) append_requests(m, requests);
  return texts(requests);
}

}  // namespace vqx::vmaf
