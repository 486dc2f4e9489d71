#include "bench_support.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>

#include "io/readers.h"

namespace vqx::bench {

void report_frames(benchmark::State& state, const FramePairs& frames) {
  double n = double(frames.ref.size());
  state.counters["frames_per_s"] = benchmark::Counter(n, benchmark::Counter::kIsIterationInvariantRate);
  // Seconds per frame of wall time.
  state.counters["time_per_frame"] = benchmark::Counter(
      n, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

PictureFormat format_1080p() {
  PictureFormat f;
  f.width = 1920;
  f.height = 1080;
  return f;
}

PictureFormat format_4k() {
  PictureFormat f;
  f.width = 3840;
  f.height = 2160;
  return f;
}

namespace {

Picture synthetic(const PictureFormat& format, uint32_t seed, int noise) {
  Picture p(format);
  std::mt19937 rng(seed);
  uint32_t max_value = (1u << format.bit_depth) - 1;
  for (unsigned plane = 0; plane < format.plane_count(); ++plane) {
    uint32_t w = format.plane_width(plane), h = format.plane_height(plane);
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x) {
        int64_t v = int64_t(max_value) * (x + y) / (w + h) + int64_t(rng() % (2 * noise + 1)) - noise;
        v = v < 0 ? 0 : (v > max_value ? max_value : v);
        size_t i = size_t{y} * w + x;
        if (format.bytes_per_sample() == 1) p.plane<uint8_t>(plane)[i] = uint8_t(v);
        else p.plane<uint16_t>(plane)[i] = uint16_t(v);
      }
  }
  return p;
}


}  // namespace

FramePairs load_frames(const std::string& pair, size_t max_frames, const PictureFormat& fallback) {
  FramePairs out;
  const char* env = std::getenv("VQX_FIXTURES");
  std::string dir = env ? std::string(env) + "/" + pair : std::string();
  if (env && std::filesystem::exists(dir + "/ref.y4m")) {
    auto ref = open_y4m(dir + "/ref.y4m", "reference");
    auto dis = open_y4m(dir + "/dis.y4m", "distorted");
    for (size_t i = 0; i < max_frames; ++i) {
      Picture r(ref->format()), d(dis->format());
      if (!ref->read(r) || !dis->read(d)) break;
      out.ref.push_back(std::move(r));
      out.dis.push_back(std::move(d));
    }
    return out;
  }
  for (size_t i = 0; i < max_frames; ++i) {
    out.ref.push_back(synthetic(fallback, uint32_t(2 * i + 1), 2));
    out.dis.push_back(synthetic(fallback, uint32_t(2 * i + 2), 6));
  }
  return out;
}

void run_once(const FramePairs& frames, const std::vector<std::string>& features, unsigned threads) {
  auto ref = open_memory(frames.ref, "reference");
  auto dis = open_memory(frames.dis, "distorted");
  std::vector<MetricRequest> requests;
  for (const auto& f : features) requests.push_back(parse_metric_request(f));
  RunSettings settings;
  settings.threads = threads;
  run_metrics(*ref, *dis, requests, settings);
}

}  // namespace vqx::bench
