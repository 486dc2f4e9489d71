// Decode-only speed of compressed inputs: frames per second out of open_input (demux, decode with
// frame threads, convert to the Picture layout), one input and two read at once as the CLI reads
// them (each on its reading thread). Clips: bench/make_decode_clips.sh into $VQX_DECODE_CLIPS.
//   build/bench/decode_bench [--benchmark_filter=...]
// `bench/run.py --only decode` makes the clips, runs this and the end-to-end comparison, and
// writes the figures to bench/results.md.
#include <benchmark/benchmark.h>

extern "C" {
#include <libavutil/log.h>
}

#include <cstdlib>
#include <filesystem>
#include <string>

#include "io/open_input.h"

namespace vqx::bench {
namespace {

std::string clip_path(const std::string& name) {
  const char* dir = std::getenv("VQX_DECODE_CLIPS");
  return std::string(dir ? dir : "/dev/shm/vqx-decode") + "/" + name;
}

// Reads every frame of `source`; returns how many.
uint64_t drain(FrameSource& source) {
  Picture picture(source.format());
  uint64_t frames = 0;
  while (source.read(picture)) ++frames;
  return frames;
}

void decode_one(benchmark::State& state, const std::string& clip) {
  const std::string path = clip_path(clip);
  if (!std::filesystem::exists(path)) return state.SkipWithError(("no clip " + path).c_str());
  uint64_t frames = 0;
  std::string decoder;
  for (auto _ : state) {
    OpenedInput input = open_input(path, {}, "distorted");
    decoder = input.decoder;
    frames += drain(*input.source);
  }
  state.counters["frames_per_s"] = benchmark::Counter(double(frames), benchmark::Counter::kIsRate);
  state.SetLabel(decoder);
}

// Both sides of a pair at once, each on its reading thread: the decode rate the metrics see.
void decode_pair(benchmark::State& state, const std::string& stem) {
  const std::string ref = clip_path(stem + "_ref.mkv"), dis = clip_path(stem + "_dis.mkv");
  if (!std::filesystem::exists(ref) || !std::filesystem::exists(dis))
    return state.SkipWithError(("no clips " + ref + ", " + dis).c_str());
  uint64_t pairs = 0;
  for (auto _ : state) {
    InputPair inputs = open_input_pair(ref, {}, dis, {});
    Picture a(inputs.reference.source->format()), b(inputs.distorted.source->format());
    while (inputs.reference.source->read(a) && inputs.distorted.source->read(b)) ++pairs;
  }
  state.counters["pairs_per_s"] = benchmark::Counter(double(pairs), benchmark::Counter::kIsRate);
}

void register_all() {
  for (const char* codec : {"h264", "hevc", "av1"})
    for (const char* res : {"1080p", "4k"}) {
      const std::string stem = std::string(codec) + "_" + res;
      benchmark::RegisterBenchmark(("Decode/" + stem).c_str(), decode_one, stem + "_dis.mkv")
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->Iterations(3);
      benchmark::RegisterBenchmark(("DecodePair/" + stem).c_str(), decode_pair, stem)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->Iterations(3);
    }
}

}  // namespace
}  // namespace vqx::bench

int main(int argc, char** argv) {
  av_log_set_level(AV_LOG_QUIET);  // decoders' banners would interleave with the table
  benchmark::Initialize(&argc, argv);
  vqx::bench::register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
