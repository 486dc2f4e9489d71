#include "engine/engine.h"

#include <fmt/format.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/error.h"
#include "core/thread_pool.h"
#include "engine/cpu_pass.h"
#include "engine/cuda_backend.h"
#include "engine/final_frames.h"

namespace vqx {
namespace {

std::unique_ptr<RunReport> run_cpu(FrameSource& reference, FrameSource& distorted,
                                   const std::vector<MetricRequest>& requests,
                                   const RunSettings& settings) {
  auto report = std::make_unique<RunReport>();
  report->backend = "cpu";
  report->format = reference.format();
  ResultTable& table = report->table;
  table.set_subsample(settings.subsample);

  std::vector<CpuInstance> instances;
  for (const auto& request : requests) instances.push_back(make_cpu_instance(request, table));
  // The finals outlive the pass, whose workers report to them.
  FinalFrames finals(cpu_final_lag(instances), final_frame_listener(settings, table));
  CpuPass pass(std::move(instances), reference.format(), settings.threads, settings.memory_limit,
               table, [&finals](uint64_t frame) { finals.handled(frame); });
  if (auto notice = pass.memory_notice(); notice && settings.warn) settings.warn(*notice);

  skip_frames(reference, settings.skip_ref);
  skip_frames(distorted, settings.skip_dist);

  const auto start = std::chrono::steady_clock::now();
  uint64_t frame = 0;
  while (!pass.failed() && (settings.frame_cnt == 0 || frame < settings.frame_cnt)) {
    FramePair& pair = pass.acquire();
    bool have_ref = false, have_dis = false;
    try {
      have_ref = reference.read(pair.ref);
      have_dis = distorted.read(pair.dis);
    } catch (...) {
      pass.release(pair);
      throw;
    }
    if (!have_ref || !have_dis) {
      pass.release(pair);
      if (have_ref != have_dis && settings.warn)
        settings.warn(fmt::format("{} ended before {}; scoring the first {} frames",
                                  have_ref ? distorted.name() : reference.name(),
                                  have_ref ? reference.name() : distorted.name(), frame));
      break;
    }
    const uint64_t index = frame++;
    if (settings.progress) settings.progress(frame);
    if (settings.frame_read) {
      try {
        settings.frame_read(index, pair.ref, pair.dis, table);
      } catch (...) {
        pass.release(pair);
        throw;
      }
    }
    pass.submit(pair, index);
  }
  if (frame == 0)
    throw InputError("no frames to score: the inputs hold no frame after skipping");
  table.set_frame_count(frame);
  pass.finish();
  finals.finish(frame);
  report->wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace

FinalFrames::Listener final_frame_listener(const RunSettings& settings, const ResultTable& table) {
  if (!settings.frame_final) return {};
  return [&settings, &table](uint64_t frame) { settings.frame_final(frame, table); };
}

// "12 MiB", or "40 KiB" below a mebibyte (rounded up).
std::string describe_bytes(uint64_t bytes) {
  if (bytes >= (uint64_t{1} << 20)) return fmt::format("{} MiB", (bytes + (1 << 20) - 1) >> 20);
  return fmt::format("{} KiB", (bytes + 1023) >> 10);
}

uint64_t cpu_frames_memory(size_t buffers, unsigned threads, const PictureFormat& format,
                           size_t frame_memory, size_t history) {
  const uint64_t scored = std::min<uint64_t>(buffers, std::max(1u, threads));
  return (buffers + history) * 2 * uint64_t(format.frame_bytes()) + scored * frame_memory;
}

size_t cpu_frame_buffers(unsigned threads, const PictureFormat& format, size_t frame_memory,
                         size_t history, uint64_t memory_limit) {
  const size_t fewest = threads == 0 ? 1 : 2;
  const auto needs = [&](size_t n) {
    return cpu_frames_memory(n, threads, format, frame_memory, history);
  };
  if (needs(fewest) > memory_limit)
    throw UsageError(
        fmt::format("scoring {} needs {} for {} frame{} in flight (their pictures and the metrics' "
                    "workspaces), above the memory limit of {} (--memory_limit)",
                    format.describe(), describe_bytes(needs(fewest)), fewest,
                    fewest == 1 ? "" : "s", describe_bytes(memory_limit)));
  size_t n = fewest;
  while (n < std::max<size_t>(fewest, size_t{threads} * 2) && needs(n + 1) <= memory_limit) ++n;
  return n;
}

uint64_t default_memory_limit() {
  uint64_t total = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGE_SIZE));
  // cgroup v2 (containers, batch schedulers): "max" or the limit in bytes.
  if (std::ifstream cgroup("/sys/fs/cgroup/memory.max"); cgroup) {
    std::string text;
    cgroup >> text;
    if (!text.empty() && std::isdigit(static_cast<unsigned char>(text[0])))
      total = std::min<uint64_t>(total, std::stoull(text));
  }
  return total / 2;
}

unsigned cpu_quota_cpus(const std::string& cpu_max) {
  std::istringstream line(cpu_max);
  uint64_t quota = 0, period = 0;
  if (!(line >> quota >> period) || quota == 0 || period == 0) return 0;  // "max": no quota
  return unsigned(std::min<uint64_t>((quota + period - 1) / period, 1u << 20));
}

unsigned usable_cpus() {
  unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
  cpu_set_t mask;
  if (sched_getaffinity(0, sizeof(mask), &mask) == 0) cpus = std::max(1, CPU_COUNT(&mask));
  if (std::ifstream cgroup("/sys/fs/cgroup/cpu.max"); cgroup) {
    std::string text;
    std::getline(cgroup, text);
    if (const unsigned quota = cpu_quota_cpus(text); quota > 0) cpus = std::min(cpus, quota);
  }
  return cpus;
}

void skip_frames(FrameSource& reader, uint64_t count) {
  if (count == 0) return;
  uint64_t skipped = reader.skip(count);
  if (skipped < count)
    throw InputError(fmt::format("{}: cannot skip {} frames, it has only {}", reader.name(), count,
                                 skipped));
}

// `scaled`: the distorted frames are scaled to the reference's size on the way (CUDA --scale).
void check_same_layout(const FrameSource& reference, const FrameSource& distorted, bool scaled) {
  const PictureFormat& r = reference.format();
  const PictureFormat& d = distorted.format();
  if (!scaled && (r.width != d.width || r.height != d.height))
    throw InputError(fmt::format("geometry mismatch: reference is {}x{}, distorted is {}x{}",
                                 r.width, r.height, d.width, d.height));
  if (r.subsampling != d.subsampling)
    throw InputError(fmt::format("chroma format mismatch: reference is {}, distorted is {}",
                                 to_string(r.subsampling), to_string(d.subsampling)));
  if (r.color != d.color)
    throw InputError("colour model mismatch: one input is RGB (PNG), the other Y'CbCr");
  if (r.bit_depth != d.bit_depth)
    throw InputError(fmt::format("bit depth mismatch: reference is {}-bit, distorted is {}-bit",
                                 r.bit_depth, d.bit_depth));
}

std::vector<size_t> add_columns(ResultTable& table, const std::vector<std::string>& names,
                                const std::string& spec_text) {
  std::vector<size_t> columns;
  for (const auto& name : names) {
    if (table.find_feature(name))
      throw UsageError(fmt::format(
          "feature '{}' would write '{}' a second time; give each instance options that name its "
          "outputs differently",
          spec_text, name));
    columns.push_back(table.add_feature(name));
  }
  return columns;
}

CpuInstance make_cpu_instance(const MetricRequest& request, ResultTable& table) {
  CpuInstance inst;
  inst.metric = request.metric->make_cpu(request.options);
  inst.columns = add_columns(table, inst.metric->feature_names(), request.spec_text);
  return inst;
}

BackendChoice choose_backend(const std::vector<MetricRequest>& requests,
                             const RunSettings& settings) {
  const unsigned threads = std::max(1u, settings.threads);
  const std::string cpu = fmt::format("cpu ({} thread{}", threads, threads == 1 ? "" : "s");
  if (settings.backend == Backend::kCpu) return {Backend::kCpu, cpu + ")", {}};
#ifdef VQX_HAVE_CUDA
  constexpr bool kHaveCuda = true;
#else
  constexpr bool kHaveCuda = false;
#endif
  const std::string no_device =
      kHaveCuda ? fmt::format("no usable CUDA device {}", settings.gpu)
                : std::string("this vqx was built without CUDA (configure with VQX_CUDA=ON)");
  const bool device = cuda_device_available(settings.gpu);
  if (settings.backend == Backend::kCuda && !device)
    throw RuntimeFailure(fmt::format("--backend cuda --gpu {}: {}{}", settings.gpu, no_device,
                                     kHaveCuda ? " (no such index, or no driver)" : ""));
  if (!device) return {Backend::kCpu, fmt::format("{}; {})", cpu, no_device), {}};
  BackendChoice choice{Backend::kCuda,
                       fmt::format("cuda ({}, device {}", cuda_device_name(settings.gpu), settings.gpu),
                       {}};
  choice.cpu_features = requests_without_cuda_twin(requests);
  if (!choice.cpu_features.empty()) {
    const unsigned workers = cuda_run_cpu_threads(settings);
    choice.description += fmt::format("; '{}' on {} CPU thread{}",
                                      fmt::join(choice.cpu_features, "', '"), workers,
                                      workers == 1 ? "" : "s");
  }
  choice.description += ")";
  return choice;
}

std::vector<std::string> requests_without_cuda_twin(const std::vector<MetricRequest>& requests) {
  std::vector<std::string> names;
  for (const auto& r : requests)
    if (!r.metric->make_cuda) names.push_back(r.spec_text);
  return names;
}

unsigned cuda_run_cpu_threads(const RunSettings& settings) {
  if (settings.threads > 0) return settings.threads;
  return usable_cpus();
}

std::unique_ptr<RunReport> run_metrics(FrameSource& reference, FrameSource& distorted,
                                       const std::vector<MetricRequest>& requests,
                                       const RunSettings& settings) {
  if (requests.empty()) throw UsageError("no feature requested; add --feature NAME");
  check_same_layout(reference, distorted, settings.scale.has_value());
  const BackendChoice choice = choose_backend(requests, settings);
  if (choice.backend != Backend::kCuda) check_same_layout(reference, distorted, false);
  if (settings.backend_chosen) settings.backend_chosen(choice);
  if (choice.backend == Backend::kCuda) return run_cuda(reference, distorted, requests, settings);
  return run_cpu(reference, distorted, requests, settings);
}

}  // namespace vqx
