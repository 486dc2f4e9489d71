#include "results.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <cmath>
#include <limits>

#include "output/percentiles.h"

namespace nb = nanobind;

namespace vqx::python {
namespace {

// A float64 (or int64) array that owns a copy of `values`.
template <typename T>
nb::object numpy_array(const std::vector<T>& values) {
  auto* data = new std::vector<T>(values);
  nb::capsule owner(data, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return nb::cast(nb::ndarray<nb::numpy, T, nb::ndim<1>>(data->data(), {data->size()}, owner));
}

// The frames the CLI writes: selected by --subsample, with some value.
std::vector<uint64_t> written_frames(const ResultTable& table) {
  std::vector<uint64_t> frames;
  const size_t columns = table.feature_names().size();
  for (uint64_t f = 0; f < table.frame_count(); ++f) {
    if (!table.frame_selected(f)) continue;
    for (size_t i = 0; i < columns; ++i)
      if (table.get(f, i)) {
        frames.push_back(f);
        break;
      }
  }
  return frames;
}

}  // namespace

nb::dict result_dict(const RunReport& report, const std::string& backend_line,
                     const std::vector<double>& percentiles) {
  const ResultTable& table = report.table;
  const auto& names = table.feature_names();
  const std::vector<uint64_t> frames = written_frames(table);

  nb::dict metrics, pooled;
  for (size_t i : table.output_order()) {
    std::vector<double> column;
    column.reserve(frames.size());
    for (uint64_t f : frames) column.push_back(table.get(f, i).value_or(std::numeric_limits<double>::quiet_NaN()));
    metrics[names[i].c_str()] = numpy_array(column);
    nb::dict entry;
    auto values = table.selected_values(i);
    if (values && !values->empty()) {
      const PooledValues p = pool(*values);
      entry["min"] = p.min;
      entry["max"] = p.max;
      entry["mean"] = p.mean;
      entry["harmonic_mean"] = p.harmonic_mean;
      if (!percentiles.empty()) {
        const std::vector<double> ps = percentiles_of(*values, percentiles);
        for (size_t k = 0; k < percentiles.size(); ++k) entry[percentile_key(percentiles[k]).c_str()] = ps[k];
      }
    }
    pooled[names[i].c_str()] = entry;
  }
  nb::dict aggregates;
  for (const auto& [name, value] : table.aggregates()) aggregates[name.c_str()] = value;

  std::vector<int64_t> frame_numbers(frames.begin(), frames.end());
  nb::dict out;
  out["frames"] = numpy_array(frame_numbers);
  out["metrics"] = metrics;
  out["pooled"] = pooled;
  out["aggregates"] = aggregates;
  out["backend"] = backend_line;
  out["width"] = report.format.width;
  out["height"] = report.format.height;
  out["frame_count"] = table.frame_count();
  out["wall_seconds"] = report.wall_seconds;
  return out;
}

}  // namespace vqx::python
