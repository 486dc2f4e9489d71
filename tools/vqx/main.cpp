// vqx: scores a distorted video against its reference and writes libvmaf-compatible output.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <thread>
#include <cstdio>
#include <iostream>
#include <new>
#include <optional>

extern "C" {
#include <libavutil/log.h>
}

#include "cli_options.h"
#include "live_output.h"
#include "core/error.h"
#include "io/frame_count.h"
#include "metrics/vmaf/model.h"
#include "output/html_report.h"
#include "output/output_file.h"
#include "output/percentiles.h"
#include "output/progress_text.h"
#include "report_capture.h"
#include "multi_device.h"
#include "run_plan.h"
#include "segment_commands.h"

namespace vqx::cli {
namespace {

constexpr int kExitUsage = 1;
constexpr int kExitInput = 2;
constexpr int kExitRuntime = 3;

void print_warning(const std::string& message) { std::fprintf(stderr, "vqx: warning: %s\n", message.c_str()); }

void list_features() {
  for (const auto* m : metric_registry()) {
    std::cout << m->name << (m->make_cuda ? "  [cpu, cuda]" : "  [cpu]") << "\n    " << m->summary << "\n";
    for (const auto& spec : m->options) {
      std::string def = std::visit(
          [](const auto& v) -> std::string {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, bool>) return v ? "true" : "false";
            else if constexpr (std::is_same_v<T, std::string>) return v;
            else return fmt::format("{}", v);
          },
          spec.default_value);
      // A feature parameter's alias is what a non-default value adds to the output names.
      std::string alias = spec.feature_param ? ", alias " + spec.suffix_name() : "";
      std::cout << "    " << spec.name << " (default " << def << alias << "): " << spec.help
                << "\n";
    }
  }
}

// The progress line on a terminal (output/progress_text.h), redrawn at most ten times a second
// and once more at the end.
class Progress {
 public:
  Progress(bool enabled, std::optional<uint64_t> total)
      : enabled_(enabled), total_(total), start_(std::chrono::steady_clock::now()) {}
  void update(uint64_t frames) {
    if (!enabled_) return;
    frames_ = frames;
    const auto now = std::chrono::steady_clock::now();
    if (drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
    draw(now);
  }
  void finish() {
    if (!enabled_ || !drawn_) return;
    draw(std::chrono::steady_clock::now());
    std::fputc('\n', stderr);
  }

 private:
  void draw(std::chrono::steady_clock::time_point now) {
    const double seconds = std::chrono::duration<double>(now - start_).count();
    // "\x1b[K" clears what a longer earlier line left.
    std::fprintf(stderr, "\r%s\x1b[K", progress_text(frames_, total_, seconds).c_str());
    std::fflush(stderr);
    drawn_ = true;
    last_ = now;
  }

  bool enabled_;
  std::optional<uint64_t> total_;
  std::chrono::steady_clock::time_point start_, last_;
  uint64_t frames_ = 0;
  bool drawn_ = false;
};

// How many frames the run scores, where the inputs' files tell (io/frame_count.h). A distorted
// input that is scaled has frames of another size than `format` says, so only its reference counts.
std::optional<uint64_t> expected_frames(const CliOptions& o, const PictureFormat& reference,
                                        const PictureFormat& distorted) {
  const bool raw = o.raw.has_value();
  return frames_to_score(estimate_frame_count(o.reference, reference, raw), o.run.skip_ref,
                         o.scale ? std::nullopt : estimate_frame_count(o.distorted, distorted, raw),
                         o.run.skip_dist, o.run.frame_cnt);
}

// The pooled mean of a column, as libvmaf prints it to a terminal ("" when it has no values).
std::string pooled_mean(const ResultTable& table, const std::string& name, const NumberFormat& numbers) {
  auto column = table.find_feature(name);
  if (!column) return "";
  auto values = table.selected_values(*column);
  if (!values || values->empty()) return "";
  double mean = pool(*values).mean;
  return numbers.significant_digits == 0 ? fmt::format("{:.6f}", mean) : numbers.format(mean);
}

// libvmaf prints each model's pooled mean to a terminal after the run, then each bootstrap
// collection's pooled bagging score, interval and stddev.
void print_model_means(const std::vector<vmaf::LoadedModel>& models, const ResultTable& table,
                       const NumberFormat& numbers) {
  // libvmaf names the model by its version or path alone.
  auto label = [](const vmaf::LoadedModel& model) {
    std::string name = model.label();
    for (const char* prefix : {"version=", "path="})
      if (name.rfind(prefix, 0) == 0) name = name.substr(std::strlen(prefix));
    return name;
  };
  for (const auto& model : models) {
    std::string mean = pooled_mean(table, model.name(), numbers);
    if (!mean.empty()) std::fprintf(stderr, "%s: %s\n", label(model).c_str(), mean.c_str());
  }
  for (const auto& model : models) {
    if (model.collection().empty()) continue;
    std::string stats[4];
    const char* suffixes[] = {"_bagging", "_ci_p95_lo", "_ci_p95_hi", "_stddev"};
    for (size_t k = 0; k < 4; ++k) stats[k] = pooled_mean(table, model.name() + suffixes[k], numbers);
    if (stats[0].empty()) continue;
    std::fprintf(stderr, "%s: %s, ci.p95: [%s, %s], stddev: %s\n", label(model).c_str(), stats[0].c_str(),
                 stats[1].c_str(), stats[2].c_str(), stats[3].c_str());
  }
}

int run(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "merge") == 0) return run_merge(argc, argv);
  auto parsed = parse_command_line(argc, argv);
  if (!parsed) return 0;
  CliOptions& o = *parsed;
  if (o.show_version) {
    std::fprintf(stderr, "vqx version %s\n", VQX_VERSION);
    return 0;
  }
  if (o.list_features) {
    list_features();
    return 0;
  }

  RunPlan plan = plan_run(o);
  const std::vector<vmaf::LoadedModel>& models = plan.models;
  // The report's thumbnails come from frames on the host: with it, compressed input is decoded
  // in software (NVDEC keeps the frames in device memory).
  OpenedRun opened = open_run(o, plan, !o.report.empty(), print_warning);
  InputPair& inputs = opened.inputs;
  if (!o.quiet) {
    for (const auto& [name, input] : {std::pair{"reference", &inputs.reference}, {"distorted", &inputs.distorted}})
      if (!input->decoder.empty()) std::fprintf(stderr, "vqx: %s decoder: %s\n", name, input->decoder.c_str());
  }
  FrameSource& reference = *inputs.reference.source;
  FrameSource& distorted = *inputs.distorted.source;
  const PictureFormat& r = reference.format();
  const PictureFormat& d = distorted.format();

  if (o.segment) {
    o.run.warn = print_warning;
    o.run.backend_chosen = [&](const BackendChoice& choice) {
      if (!o.quiet) std::fprintf(stderr, "vqx: backend %s\n", choice.description.c_str());
    };
    write_segment(o, plan.requests, reference, distorted);
    return 0;
  }
  const bool show_progress = !o.quiet && ::isatty(STDERR_FILENO);
  Progress progress(show_progress, show_progress ? expected_frames(o, r, d) : std::nullopt);
  o.run.progress = [&](uint64_t n) { progress.update(n); };
  o.run.warn = print_warning;
  std::optional<LiveOutput> live;
  if (!o.ndjson.empty()) {
    live.emplace(o.ndjson, o.numbers, models);
    o.run.frame_final = [&](uint64_t frame, const ResultTable& table) { live->frame_final(frame, table); };
  }
  std::string backend_line;
  o.run.backend_chosen = [&](const BackendChoice& choice) {
    backend_line = choice.description;
    if (!o.quiet) std::fprintf(stderr, "vqx: backend %s\n", choice.description.c_str());
  };
  std::optional<ReportCapture> capture;
  if (!o.report.empty()) {
    capture.emplace(o.report_worst, models, print_warning);
    o.run.frame_read = [&](uint64_t frame, const Picture& ref, const Picture& dis, const ResultTable& table) {
      capture->frame_read(frame, ref, dis, table);
    };
  }
  std::unique_ptr<RunReport> report;
  std::unique_ptr<MergedParts> merged;
  if (o.gpus.size() > 1) {
    // Each device reopens both inputs: they must be files whose frames can be counted.
    const bool raw = o.raw.has_value();
    const bool counted = o.reference != "-" && o.distorted != "-" && estimate_frame_count(o.reference, r, raw) &&
                         (o.scale || estimate_frame_count(o.distorted, d, raw));
    const auto frames = counted ? expected_frames(o, r, d) : std::nullopt;
    if (!frames || *frames == 0)
      throw UsageError("--gpu with several devices needs inputs whose frame count the files tell (not pipes)");
    merged = run_on_devices(o, plan.requests, *frames, [&](int gpu) {
      CliOptions on_device = o;
      on_device.run.gpu = gpu;
      return open_run(on_device, plan, false, print_warning).inputs;
    });
  } else {
    report = run_metrics(reference, distorted, plan.requests, o.run);
  }
  ResultTable& table = report ? report->table : merged->table;
  const double wall_seconds = report ? report->wall_seconds : merged->wall_seconds;
  const uint32_t width = report ? report->format.width : merged->width;
  const uint32_t height = report ? report->format.height : merged->height;
  progress.finish();
  vmaf::apply_models(models, table);
  if (::isatty(STDERR_FILENO) && (!o.quiet || o.output.empty())) print_model_means(models, table, o.numbers);

  if (capture) {
    ReportContent content;
    content.version = std::string("vqx-") + VQX_VERSION;
    content.reference = o.reference;
    content.distorted = o.distorted;
    content.backend = backend_line;
    content.numbers = o.numbers;
    content.percentiles = o.percentiles.empty() ? kDefaultPercentiles : o.percentiles;
    content.worst = capture->finish(table);
    content.primary = capture->primary();
    write_output_file(o.report, [&](std::ostream& out) { write_html_report(out, table, content); });
  }
  if (o.output.empty()) return 0;
  OutputInfo info;
  info.version = std::string("vqx-") + VQX_VERSION;
  info.fps = wall_seconds > 0 ? double(table.frame_count()) / wall_seconds : 0;
  info.width = width;
  info.height = height;
  info.numbers = o.numbers;
  info.percentiles = o.percentiles;
  if (o.output == "-") {
    write_results(std::cout, o.format, table, info);
    std::cout.flush();
    if (!std::cout) throw RuntimeFailure("cannot write the results to standard output");
    return 0;
  }
  write_output_file(o.output,
                    [&](std::ostream& out) { write_results(out, o.format, table, info); });
  return 0;
}

}  // namespace
}  // namespace vqx::cli

int main(int argc, char** argv) {
  using namespace vqx;
  // FFmpeg's own log lines would break the one-line error rule; vqx reports what went wrong.
  av_log_set_level(AV_LOG_QUIET);
  // A reader that goes away (a closed pipe or FIFO) is a write error with a message, not a signal.
  std::signal(SIGPIPE, SIG_IGN);
  try {
    return cli::run(argc, argv);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "vqx: error: %s\nRun 'vqx --help' for usage.\n", e.what());
    return cli::kExitUsage;
  } catch (const InputError& e) {
    std::fprintf(stderr, "vqx: error: %s\n", e.what());
    return cli::kExitInput;
  } catch (const RuntimeFailure& e) {
    std::fprintf(stderr, "vqx: error: %s\n", e.what());
    return cli::kExitRuntime;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "vqx: error: out of memory\n");
    return cli::kExitRuntime;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vqx: error: %s\n", e.what());
    return cli::kExitRuntime;
  }
}
