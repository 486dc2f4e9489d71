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
  // The call that writes a value: the index of the frame whose extract()/collect() writes it, or
  // kFlushCall for the end-of-clip flush.
  static constexpr uint64_t kFlushCall = UINT64_MAX - 1;

  // Adds a column; returns its index. Names must be unique (checked by the engine).
  size_t add_feature(const std::string& name);
  const std::vector<std::string>& feature_names() const { return names_; }
  std::optional<size_t> find_feature(const std::string& name) const;

  void put(uint64_t frame, size_t feature, double value);  // thread-safe
  // The same, written by a metric in its call `call`: the earliest such call of each column
  // decides the output order.
  void put(uint64_t frame, size_t feature, double value, uint64_t call);  // thread-safe
  std::optional<double> get(uint64_t frame, size_t feature) const;
  void put_aggregate(const std::string& name, double value);  // thread-safe
  const std::vector<std::pair<std::string, double>>& aggregates() const { return aggregates_; }

  // Frames [0, frame_count) were read (after skipping); only some may have values (--subsample).
  uint64_t frame_count() const { return frame_count_; }
  void set_frame_count(uint64_t n) { frame_count_ = n; }
  uint64_t subsample() const { return subsample_; }
  void set_subsample(uint64_t n) { subsample_ = n; }
  bool frame_selected(uint64_t frame) const { return subsample_ <= 1 || frame % subsample_ == 0; }

  // Column indices in libvmaf's output order, which is its feature collector's: the order in
  // which each name first received a value when every extractor runs in the calling thread, in
  // registration order, frame after frame. So columns go by the call that first wrote them
  // (a frame's extract, or the flush: VMAF motion2/motion3, first written in frame 1's call or
  // later, come after every feature of frame 0), then by column index (registration order).
  // Columns never written through a metric call (model scores, added after the run) come last,
  // in the order they were added.
  std::vector<size_t> output_order() const;

  // Values of one feature over the selected frames, in order; nullopt if one is missing.
  std::optional<std::vector<double>> selected_values(size_t feature) const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> names_;
  std::vector<std::vector<std::optional<double>>> columns_;
  static constexpr uint64_t kNoCall = UINT64_MAX;
  std::vector<uint64_t> first_call_;  // per column; kNoCall when no metric call wrote it
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
