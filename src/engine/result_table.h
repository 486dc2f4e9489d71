#pragma once
// Per-frame values of every output feature, plus whole-clip aggregates.
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace vqx {

class ResultTable {
 public:
  // Adds a column; returns its index. Names must be unique (checked by the engine).
  size_t add_feature(const std::string& name);
  const std::vector<std::string>& feature_names() const { return names_; }
  std::optional<size_t> find_feature(const std::string& name) const;

  void put(uint64_t frame, size_t feature, double value);  // thread-safe
  std::optional<double> get(uint64_t frame, size_t feature) const;
  void put_aggregate(const std::string& name, double value);  // thread-safe
  const std::vector<std::pair<std::string, double>>& aggregates() const { return aggregates_; }

  // Frames [0, frame_count) were read (after skipping); only some may have values (--subsample).
  uint64_t frame_count() const { return frame_count_; }
  void set_frame_count(uint64_t n) { frame_count_ = n; }
  uint64_t subsample() const { return subsample_; }
  void set_subsample(uint64_t n) { subsample_ = n; }
  bool frame_selected(uint64_t frame) const { return subsample_ <= 1 || frame % subsample_ == 0; }

  // Values of one feature over the selected frames, in order; nullopt if one is missing.
  std::optional<std::vector<double>> selected_values(size_t feature) const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> names_;
  std::vector<std::vector<std::optional<double>>> columns_;
  std::vector<std::pair<std::string, double>> aggregates_;
  uint64_t frame_count_ = 0;
  uint64_t subsample_ = 1;
};

struct PooledValues {
  double min, max, mean, harmonic_mean;
};
// libvmaf's pooling: mean = sum/n in frame order, harmonic_mean = n / sum(1/(s+1)) - 1.
PooledValues pool(const std::vector<double>& values);

}  // namespace vqx
