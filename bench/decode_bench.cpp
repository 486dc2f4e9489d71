// Decode-only speed of compressed inputs: frames per second out of open_input (demux, decode with
// frame threads, convert to the Picture layout), one input and two read at once as the CLI reads
// them (each on its reading thread). The Nvdec variants decode with --decoder nvdec on device 0
// and leave the frames in device memory, as the CUDA backend takes them (each input decodes on a
// thread of its own); they are skipped where NVDEC cannot run or refuses the clip.
// Clips: bench/make_decode_clips.sh into $VQX_DECODE_CLIPS.
//   build/bench/decode_bench [--benchmark_filter=...]
// `bench/run.py --only decode` makes the clips, runs this and the end-to-end comparison, and
// writes the figures to bench/results.md.
#include <benchmark/benchmark.h>

extern "C" {
#include <libavutil/log.h>
}

#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <utility>

#include "io/open_input.h"

namespace vqx::bench {
namespace {

std::string clip_path(const std::string& name) {
  const char* dir = std::getenv("VQX_DECODE_CLIPS");
  return std::string(dir ? dir : "/dev/shm/vqx-decode") + "/" + name;
}

// The next frame of `source`: on the device where it decodes there (held in slot 0, nothing
// copied), else read into `picture`.
bool next_frame(FrameSource& source, Picture& picture) {
  if (DeviceFrames* frames = source.device_frames()) return frames->next(0);
  return source.read(picture);
}

InputOptions decoding(DecoderChoice decoder) {
  InputOptions options;
  options.decoder = decoder;
  options.gpu = decoder == DecoderChoice::kNvdec ? 0 : -1;
  return options;
}

void decode_one(benchmark::State& state, const std::string& clip, DecoderChoice decoder) {
  const std::string path = clip_path(clip);
  if (!std::filesystem::exists(path)) return state.SkipWithError(("no clip " + path).c_str());
  uint64_t frames = 0;
  std::string description;
  try {
    for (auto _ : state) {
      OpenedInput input = open_input(path, decoding(decoder), "distorted");
      description = input.decoder;
      Picture picture(input.source->format());
      if (DeviceFrames* on_device = input.source->device_frames()) on_device->reserve_slots(1);
      while (next_frame(*input.source, picture)) ++frames;
    }
  } catch (const std::exception& e) {
    return state.SkipWithError(e.what());
  }
  state.counters["frames_per_s"] = benchmark::Counter(double(frames), benchmark::Counter::kIsRate);
  state.SetLabel(description);
}

// Both sides of a pair at once, each on its reading (or decoding) thread: the decode rate the
// metrics see.
void decode_pair(benchmark::State& state, const std::string& stem, DecoderChoice decoder) {
  const std::string ref = clip_path(stem + "_ref.mkv"), dis = clip_path(stem + "_dis.mkv");
  if (!std::filesystem::exists(ref) || !std::filesystem::exists(dis))
    return state.SkipWithError(("no clips " + ref + ", " + dis).c_str());
  uint64_t pairs = 0;
  try {
    for (auto _ : state) {
      InputPair inputs = open_input_pair(ref, decoding(decoder), dis, decoding(decoder));
      FrameSource& r = *inputs.reference.source;
      FrameSource& d = *inputs.distorted.source;
      for (FrameSource* source : {&r, &d})
        if (DeviceFrames* on_device = source->device_frames()) on_device->reserve_slots(1);
      Picture a(r.format()), b(d.format());
      while (next_frame(r, a) && next_frame(d, b)) ++pairs;
    }
  } catch (const std::exception& e) {
    return state.SkipWithError(e.what());
  }
  state.counters["pairs_per_s"] = benchmark::Counter(double(pairs), benchmark::Counter::kIsRate);
}

void register_all() {
  for (const char* codec : {"h264", "hevc", "av1"})
    for (const char* res : {"1080p", "4k"}) {
      const std::string stem = std::string(codec) + "_" + res;
      for (auto [suffix, decoder] : {std::pair{"", DecoderChoice::kCpu}, {"Nvdec", DecoderChoice::kNvdec}}) {
        benchmark::RegisterBenchmark(("Decode" + std::string(suffix) + "/" + stem).c_str(), decode_one,
                                     stem + "_dis.mkv", decoder)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime()
            ->Iterations(3);
        benchmark::RegisterBenchmark(("DecodePair" + std::string(suffix) + "/" + stem).c_str(), decode_pair, stem,
                                     decoder)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime()
            ->Iterations(3);
      }
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
