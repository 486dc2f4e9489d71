// vqx._vqx: the engine behind the Python package vqx (python/vqx/__init__.py wraps it).
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <mutex>

#include "core/error.h"
#include "engine/cuda_backend.h"
#include "metrics/vmaf/model.h"
#include "results.h"
#include "run_plan.h"
#include "scorer.h"

namespace nb = nanobind;

namespace vqx::python {
namespace {

PyObject* error_type = nullptr;
PyObject* usage_error_type = nullptr;
PyObject* input_error_type = nullptr;
PyObject* runtime_failure_type = nullptr;

PyObject* new_error(const char* name, PyObject* base) {
  PyObject* bases = PyTuple_Pack(2, error_type, base);
  PyObject* type = PyErr_NewException(name, bases, nullptr);
  Py_DECREF(bases);
  return type;
}

cli::CliOptions parse_args(const std::vector<std::string>& args) {
  std::vector<std::string> words = {"vqx"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  auto parsed = cli::parse_command_line(int(argv.size()), argv.data());
  if (!parsed) throw UsageError("--help: see help(vqx.score)");
  return std::move(*parsed);
}

// What `vqx ARGS --precision max` computes, as result_dict(), plus "warnings": the notices the
// CLI prints as "vqx: warning: ..." lines.
nb::dict score_files(const std::vector<std::string>& args) {
  cli::CliOptions o = parse_args(args);
  cli::RunPlan plan = cli::plan_run(o);
  std::mutex mutex;
  std::vector<std::string> warnings;
  auto warn = [&](const std::string& message) {
    std::lock_guard lock(mutex);
    warnings.push_back(message);
  };
  std::string backend_line;
  std::unique_ptr<RunReport> report;
  {
    nb::gil_scoped_release unlocked;
    cli::OpenedRun opened = cli::open_run(o, plan, false, warn);
    o.run.warn = warn;
    o.run.backend_chosen = [&](const BackendChoice& choice) { backend_line = choice.description; };
    report = run_metrics(*opened.inputs.reference.source, *opened.inputs.distorted.source, plan.requests, o.run);
    vmaf::apply_models(plan.models, report->table);
  }
  nb::dict out = result_dict(*report, backend_line, o.percentiles);
  nb::list notices;
  for (const auto& w : warnings) notices.append(w);
  out["warnings"] = notices;
  return out;
}

nb::list feature_list() {
  nb::list out;
  for (const MetricDescriptor* m : metric_registry()) {
    nb::dict entry;
    entry["name"] = m->name;
    entry["summary"] = m->summary;
    entry["cuda"] = bool(m->make_cuda);
    nb::list options;
    for (const auto& spec : m->options) options.append(spec.name);
    entry["options"] = options;
    out.append(entry);
  }
  return out;
}

}  // namespace
}  // namespace vqx::python

NB_MODULE(_vqx, m) {
  using namespace vqx::python;
  m.doc() = "vqx's engine; use the package vqx";
  error_type = PyErr_NewException("vqx.Error", PyExc_Exception, nullptr);
  usage_error_type = new_error("vqx.UsageError", PyExc_ValueError);
  input_error_type = new_error("vqx.InputError", PyExc_ValueError);
  runtime_failure_type = new_error("vqx.RuntimeFailure", PyExc_RuntimeError);
  m.attr("Error") = nb::handle(error_type);
  m.attr("UsageError") = nb::handle(usage_error_type);
  m.attr("InputError") = nb::handle(input_error_type);
  m.attr("RuntimeFailure") = nb::handle(runtime_failure_type);
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const vqx::UsageError& e) {
      PyErr_SetString(usage_error_type, e.what());
    } catch (const vqx::InputError& e) {
      PyErr_SetString(input_error_type, e.what());
    } catch (const vqx::RuntimeFailure& e) {
      PyErr_SetString(runtime_failure_type, e.what());
    }
  });

  m.attr("__version__") = VQX_VERSION;
  m.attr("cuda_built") = device::built();
  m.def("cuda_available", [](int gpu) { return vqx::cuda_device_available(gpu); }, nb::arg("gpu") = 0);
  m.def("cuda_device_name", [](int gpu) { return vqx::cuda_device_name(gpu); }, nb::arg("gpu") = 0);
  m.def("score_files", &score_files, nb::arg("args"));
  m.def("features", &feature_list);

  nb::class_<Scorer>(m, "Scorer")
      .def(nb::init<const std::vector<std::string>&, uint32_t, uint32_t, const std::string&, unsigned>(),
           nb::arg("args"), nb::arg("width"), nb::arg("height"), nb::arg("pixel_format"), nb::arg("bit_depth"))
      .def("push", &Scorer::push, nb::arg("reference"), nb::arg("distorted"), nb::arg("stream") = 0)
      .def("finish", &Scorer::finish)
      .def("stats", &Scorer::stats)
      .def_prop_ro("backend", &Scorer::backend);
}
