#include "engine/result_table.h"

#include <algorithm>

namespace vqx {

size_t ResultTable::add_feature(const std::string& name) {
  std::lock_guard lock(mutex_);
  names_.push_back(name);
  columns_.emplace_back();
  first_call_.push_back(kNoCall);
  return names_.size() - 1;
}

std::optional<size_t> ResultTable::find_feature(const std::string& name) const {
  for (size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return i;
  return std::nullopt;
}

void ResultTable::put(uint64_t frame, size_t feature, double value) {
  put(frame, feature, value, kNoCall);
}

void ResultTable::put(uint64_t frame, size_t feature, double value, uint64_t call) {
  std::lock_guard lock(mutex_);
  auto& col = columns_.at(feature);
  if (col.size() <= frame) col.resize(frame + 1);
  col[frame] = value;
  first_call_[feature] = std::min(first_call_[feature], call);
}

std::vector<size_t> ResultTable::output_order() const {
  std::lock_guard lock(mutex_);
  std::vector<size_t> order(names_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return first_call_[a] < first_call_[b]; });
  return order;
}

std::optional<double> ResultTable::get(uint64_t frame, size_t feature) const {
  std::lock_guard lock(mutex_);
  const auto& col = columns_.at(feature);
  return frame < col.size() ? col[frame] : std::nullopt;
}

void ResultTable::put_aggregate(const std::string& name, double value) {
  std::lock_guard lock(mutex_);
  for (auto& [n, v] : aggregates_)
    if (n == name) {
      v = value;
      return;
    }
  aggregates_.emplace_back(name, value);
}

std::optional<std::vector<double>> ResultTable::selected_values(size_t feature) const {
  std::vector<double> out;
  for (uint64_t f = 0; f < frame_count_; ++f) {
    if (!frame_selected(f)) continue;
    auto v = get(f, feature);
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

PooledValues pool(const std::vector<double>& values) {
  PooledValues p{0, 0, 0, 0};
  if (values.empty()) return p;
  p.min = *std::min_element(values.begin(), values.end());
  p.max = *std::max_element(values.begin(), values.end());
  double sum = 0, inv_sum = 0;
  for (double v : values) {
    sum += v;
    inv_sum += 1.0 / (v + 1.0);
  }
  double n = double(values.size());
  p.mean = sum / n;
  p.harmonic_mean = n / inv_sum - 1.0;
  return p;
}

}  // namespace vqx
