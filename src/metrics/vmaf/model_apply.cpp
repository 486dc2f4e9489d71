// Model scores into the result table (shared/spec/vmaf.md 6.6): one column per model, and a
// bootstrap collection's per-model scores and statistics, in libvmaf's collector order.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "metrics/vmaf/model.h"

namespace vqx::vmaf {
namespace {

// The table columns a model reads, in its feature order.
std::vector<size_t> feature_columns_of(const LoadedModel& model, const ResultTable& table) {
  std::vector<size_t> columns;
  for (const auto& f : model.features()) {
    auto column = table.find_feature(f.column);
    if (!column)
      throw InputError(
          fmt::format("model {}: feature column '{}' was not computed", model.label(), f.column));
    columns.push_back(*column);
  }
  return columns;
}

void frame_values(const LoadedModel& model, const ResultTable& table,
                  const std::vector<size_t>& columns, uint64_t frame, std::vector<double>& values) {
  values.resize(columns.size());
  for (size_t i = 0; i < columns.size(); ++i) {
    auto v = table.get(frame, columns[i]);
    if (!v)
      throw InputError(fmt::format("model {}: feature '{}' has no value at frame {}",
                                   model.label(), model.features()[i].column, frame));
    values[i] = *v;
  }
}

size_t add_output(const LoadedModel& model, const std::string& name, ResultTable& table) {
  if (table.find_feature(name))
    throw UsageError(
        fmt::format("model {}: its output '{}' is already an output column; pick another name "
                    "with :name=LABEL",
                    model.label(), name));
  return table.add_feature(name);
}

// libvmaf's percentile of sorted scores: linear interpolation at p * (n - 1) / 100.
double percentile(const std::vector<double>& sorted, double perc) {
  const double p = perc * double(sorted.size() - 1) / 100.;
  const int left = int(std::floor(p));
  const int right = int(std::ceil(p));
  if (left == right) return sorted[size_t(left)];
  return sorted[size_t(left)] * (right - p) + sorted[size_t(right)] * (p - left);
}

}  // namespace

void apply_model(const LoadedModel& model, ResultTable& table) {
  const std::vector<size_t> columns = feature_columns_of(model, table);
  const size_t out = add_output(model, model.name(), table);
  std::vector<double> values;
  for (uint64_t frame = 0; frame < table.frame_count(); ++frame) {
    if (!table.frame_selected(frame)) continue;
    frame_values(model, table, columns, frame, values);
    table.put(frame, out, model.predict(values));
  }
}

BootstrapScores bootstrap_scores(const LoadedModel& model, std::vector<double> scores) {
  // vmaf.md 6.6: statistics of the untransformed, unclipped scores; bagging, the interval and
  // the stddev's local slope then go through the first collection model's transform and clip.
  const LoadedModel& first = model.collection().at(0);
  const double n = double(scores.size());
  double sum = 0.;
  for (double s : scores) sum += s;
  const double mean = sum / n;
  const double delta = 0.01;
  double plus = mean + delta;
  double minus = mean - delta;
  double ssd = 0.;
  for (double s : scores) ssd += std::pow(s - mean, 2);
  BootstrapScores b;
  b.stddev = std::sqrt(ssd / n);
  std::sort(scores.begin(), scores.end());
  b.ci_p95_lo = first.finish(percentile(scores, 2.5));
  b.ci_p95_hi = first.finish(percentile(scores, 97.5));
  b.bagging = first.finish(mean);
  plus = first.finish(plus);
  minus = first.finish(minus);
  b.stddev *= (plus - minus) / (2.0 * delta);
  return b;
}

void apply_collection(const LoadedModel& model, ResultTable& table) {
  const auto& members = model.collection();
  if (members.empty()) return;
  std::vector<std::vector<size_t>> columns;
  std::vector<size_t> outs;
  for (const auto& m : members) {
    columns.push_back(feature_columns_of(m, table));
    outs.push_back(add_output(model, m.name(), table));
  }
  for (const char* suffix : {"_bagging", "_stddev", "_ci_p95_lo", "_ci_p95_hi"})
    outs.push_back(add_output(model, model.name() + suffix, table));
  std::vector<double> values, untransformed(members.size());
  for (uint64_t frame = 0; frame < table.frame_count(); ++frame) {
    if (!table.frame_selected(frame)) continue;
    for (size_t i = 0; i < members.size(); ++i) {
      frame_values(members[i], table, columns[i], frame, values);
      untransformed[i] = members[i].predict_untransformed(values);
      table.put(frame, outs[i], members[i].finish(untransformed[i]));
    }
    BootstrapScores b = bootstrap_scores(model, untransformed);
    const double stats[] = {b.bagging, b.stddev, b.ci_p95_lo, b.ci_p95_hi};
    for (size_t k = 0; k < 4; ++k) table.put(frame, outs[members.size() + k], stats[k]);
  }
}

void apply_models(const std::vector<LoadedModel>& models, ResultTable& table) {
  for (const auto& m : models) apply_model(m, table);
  for (const auto& m : models) apply_collection(m, table);
}

}  // namespace vqx::vmaf
