#pragma once
// Routes a metric's feature indices to the columns the engine gave it in the result table.
#include <string>
#include <utility>
#include <vector>

#include "engine/metric.h"
#include "engine/result_table.h"

namespace vqx {

class ColumnWriter final : public FeatureWriter {
 public:
  ColumnWriter(ResultTable& table, std::vector<size_t> columns)
      : table_(table), columns_(std::move(columns)) {}
  void put(uint64_t frame, size_t feature, double value) override {
    table_.put(frame, columns_.at(feature), value);
  }
  void put_aggregate(const std::string& name, double value) override {
    table_.put_aggregate(name, value);
  }

 private:
  ResultTable& table_;
  std::vector<size_t> columns_;
};

}  // namespace vqx
