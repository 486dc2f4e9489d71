#pragma once
// Routes a metric's feature indices to the columns the engine gave it in the result table. One
// writer serves one call of the metric (its extract()/collect() of frame `call`, or its flush with
// ResultTable::kFlushCall), so the table knows which call first wrote each column (its output
// order follows that, as libvmaf's does).
#include <cstdint>
#include <string>
#include <vector>

#include "engine/metric.h"
#include "engine/result_table.h"

namespace vqx {

class ColumnWriter final : public FeatureWriter {
 public:
  ColumnWriter(ResultTable& table, const std::vector<size_t>& columns, uint64_t call)
      : table_(table), columns_(columns), call_(call) {}
  void put(uint64_t frame, size_t feature, double value) override {
    table_.put(frame, columns_.at(feature), value, call_);
  }
  void put_aggregate(const std::string& name, double value) override {
    table_.put_aggregate(name, value);
  }

 private:
  ResultTable& table_;
  const std::vector<size_t>& columns_;
  uint64_t call_;
};

}  // namespace vqx
