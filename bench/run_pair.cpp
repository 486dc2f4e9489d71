// One timed run of the engine on a Y4M pair, for bench/gpu_bench.sh and the device runs:
//   vqx_run_pair [--backend cpu|cuda|auto] [--threads N] [--read-threads N] [--gpu N] [--profile]
//                [--frames N] [--print FEATURE] REF.y4m DIS.y4m FEATURE...
//   vqx_run_pair --h2d-bandwidth MB      (pinned host-to-device copy speed, CUDA builds)
// Prints "backend=... frames=... wall_ms=..." (engine wall time, after setup) on stdout.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "core/error.h"
#include "io/y4m_parallel.h"
#ifdef VQX_HAVE_CUDA
#include <cuda_runtime.h>

#include "engine/cuda/cuda_check.h"
#include "engine/cuda/device_context.h"
#endif

namespace {

#ifdef VQX_HAVE_CUDA
int h2d_bandwidth(size_t megabytes) {
  using namespace vqx::cuda;
  DeviceContext device(0);
  size_t bytes = megabytes << 20;
  PinnedBuffer host(bytes, "bandwidth test");
  for (size_t i = 0; i < bytes; ++i) host.get()[i] = uint8_t(i * 131);
  DeviceBuffer dev(device, bytes, "bandwidth test");
  Stream stream;
  Event begin, end;
  std::vector<float> ms;
  for (int rep = 0; rep < 21; ++rep) {
    check(cudaEventRecord(begin.get(), stream.get()), "record");
    check(cudaMemcpyAsync(dev.get(), host.get(), bytes, cudaMemcpyHostToDevice, stream.get()), "copy");
    check(cudaEventRecord(end.get(), stream.get()), "record");
    check(cudaEventSynchronize(end.get()), "sync");
    ms.push_back(elapsed_ms(begin, end));
  }
  std::sort(ms.begin(), ms.end());
  std::printf("h2d_pinned bytes=%zu median_ms=%.4f GB/s=%.2f (min %.4f max %.4f ms, 21 copies)\n", bytes,
              ms[10], double(bytes) / (ms[10] * 1e6), ms.front(), ms.back());
  return 0;
}
#endif

int usage() {
  std::fputs("usage: vqx_run_pair [--backend cpu|cuda|auto] [--threads N] [--read-threads N] [--gpu N] "
             "[--profile] [--frames N] [--print FEATURE] REF.y4m DIS.y4m FEATURE...\n"
             "       vqx_run_pair --h2d-bandwidth MB\n",
             stderr);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  vqx::RunSettings settings;
  settings.backend = vqx::Backend::kCuda;
  settings.threads = 0;
  unsigned read_threads = 4;
  std::string print_feature;
  std::vector<std::string> positional;
  try {
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw vqx::UsageError(a + " needs a value");
        return argv[++i];
      };
      if (a == "--backend") {
        std::string b = value();
        settings.backend = b == "cpu" ? vqx::Backend::kCpu : b == "auto" ? vqx::Backend::kAuto : vqx::Backend::kCuda;
      } else if (a == "--threads") settings.threads = unsigned(std::stoul(value()));
      else if (a == "--read-threads") read_threads = unsigned(std::stoul(value()));
      else if (a == "--gpu") settings.gpu = std::stoi(value());
      else if (a == "--frames") settings.frame_cnt = std::stoull(value());
      else if (a == "--profile") settings.profile = true;
      else if (a == "--print") print_feature = value();
#ifdef VQX_HAVE_CUDA
      else if (a == "--h2d-bandwidth") return h2d_bandwidth(std::stoul(value()));
#endif
      else if (a.rfind("--", 0) == 0) return usage();
      else positional.push_back(a);
    }
    if (positional.size() < 3) return usage();
    auto ref = vqx::open_y4m_parallel(positional[0], "reference", read_threads);
    auto dis = vqx::open_y4m_parallel(positional[1], "distorted", read_threads);
    std::vector<vqx::MetricRequest> requests;
    for (size_t i = 2; i < positional.size(); ++i) requests.push_back(vqx::parse_metric_request(positional[i]));
    auto report = vqx::run_metrics(*ref, *dis, requests, settings);
    uint64_t frames = report->table.frame_count();
    std::printf("backend=%s frames=%llu wall_ms=%.3f ms_per_frame=%.4f\n", report->backend.c_str(),
                (unsigned long long)frames, report->wall_seconds * 1e3,
                report->wall_seconds * 1e3 / double(frames));
    if (!print_feature.empty()) {
      auto col = report->table.find_feature(print_feature);
      if (!col) throw vqx::UsageError("no output " + print_feature);
      for (uint64_t f = 0; f < frames; ++f)
        if (auto v = report->table.get(f, *col)) std::printf("%s[%llu]=%.17g\n", print_feature.c_str(), (unsigned long long)f, *v);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vqx_run_pair: %s\n", e.what());
    return 2;
  }
}
