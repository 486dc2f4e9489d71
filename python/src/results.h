#pragma once
// A finished run's result table as plain Python objects, the values the CLI writes with
// --precision max: frame numbers, one float64 array per output column, pooled values and
// whole-clip aggregates.
#include <nanobind/nanobind.h>

#include <string>
#include <vector>

#include "engine/engine.h"

namespace vqx::python {

// {"frames": int64 array, "metrics": {name: float64 array}, "pooled": {name: {"min", "max",
// "mean", "harmonic_mean", "pP"...}}, "aggregates": {name: float}, "backend": str, "width",
// "height", "frame_count", "wall_seconds"}. Columns come in the CLI's output order; a frame the
// CLI writes without some column's value has NaN there.
nanobind::dict result_dict(const RunReport& report, const std::string& backend_line,
                           const std::vector<double>& percentiles);

}  // namespace vqx::python
