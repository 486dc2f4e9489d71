#pragma once
// What the long-run and load tests share: a stream of any length that repeats a few frames (so
// every value must repeat with it), and the process's resident memory.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/frame_source.h"
#include "support/fixtures.h"

namespace vqx::test {

// `frames` frames: pictures[i % pictures.size()]. Nothing per frame is allocated or kept.
class RepeatingSource final : public FrameSource {
 public:
  RepeatingSource(std::vector<Picture> pictures, uint64_t frames, std::string name)
      : FrameSource(std::move(name)), pictures_(std::move(pictures)), frames_(frames) {}
  const PictureFormat& format() const override { return pictures_.front().format(); }
  bool read(Picture& picture) override {
    if (frames_read_ >= frames_) return false;
    const Picture& p = pictures_[frames_read_ % pictures_.size()];
    std::memcpy(picture.bytes(), p.bytes(), p.size_bytes());
    ++frames_read_;
    return true;
  }

 private:
  std::vector<Picture> pictures_;
  uint64_t frames_;
};

// `period` synthetic pictures of `format` for the reference (even seeds) or distorted (odd).
inline std::vector<Picture> period_pictures(const PictureFormat& format, int period,
                                            bool distorted) {
  std::vector<Picture> out;
  for (int i = 0; i < period; ++i)
    out.push_back(make_picture(format, uint32_t(2 * i + distorted), 6));
  return out;
}

// Resident set size from /proc/self/statm, in bytes (0 where it cannot be read).
inline uint64_t resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long long size = 0, resident = 0;
  int fields = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  return fields == 2 ? resident * uint64_t(::sysconf(_SC_PAGESIZE)) : 0;
}

// Expects `values[i]` to equal `values[period + i % period]` bit for bit for every frame from
// 2 * period to the last but `tail` (temporal features look at neighbours), as a repeating input
// demands of a stream that keeps its state right however long it runs.
inline void expect_periodic(const std::vector<double>& values, size_t period, size_t tail,
                            const std::string& what) {
  size_t mismatches = 0;
  for (size_t i = 2 * period; i + tail < values.size(); ++i) {
    const double expected = values[period + i % period];
    if (std::memcmp(&values[i], &expected, sizeof(double)) != 0 && mismatches++ < 5)
      ADD_FAILURE() << what << " frame " << i << ": " << values[i] << ", frame "
                    << period + i % period << ": " << expected;
  }
  EXPECT_EQ(mismatches, 0u) << what;
}

}  // namespace vqx::test
