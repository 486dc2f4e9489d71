#pragma once
// Frames for benchmarks: the fixture pairs when $VQX_FIXTURES is set, else seeded noise.
#include <cstdint>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "engine/engine.h"

namespace vqx::bench {

struct FramePairs {
  std::vector<Picture> ref, dis;
};

// Up to `max_frames` frames of fixture `pair` (e.g. "band1080", "uhd4k"); when fixtures are
// absent, synthetic frames of `fallback` format (smooth gradient plus seeded noise).
FramePairs load_frames(const std::string& pair, size_t max_frames, const PictureFormat& fallback);

// Runs `features` over the frames once with `threads` workers (results discarded).
void run_once(const FramePairs& frames, const std::vector<std::string>& features, unsigned threads);

// Adds "frames_per_s" and "time_per_frame" (seconds) counters (per frame of the set, per iteration).
void report_frames(benchmark::State& state, const FramePairs& frames);

PictureFormat format_1080p();
PictureFormat format_4k();

}  // namespace vqx::bench
