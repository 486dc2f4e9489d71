#pragma once
// The N worst frames of a run by one score, chosen while the frames go by: only the current N
// candidates (with their thumbnails) are kept, so memory does not grow with the clip.
//
// "Worse" is a lower score (VMAF, PSNR, SSIM, ...) or, for a metric where more is worse (CAMBI's
// banding), a higher one. Of two equal scores the earlier frame is the worse, so the choice does
// not depend on the order the frames are offered in. NaN scores are never chosen.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "output/thumbnail.h"

namespace vqx {

// Whether more of the metric `name` means worse quality (the "cambi" family).
bool higher_is_worse(const std::string& name);

struct WorstFrame {
  uint64_t frame;
  double score;
  ThumbnailPair thumbnails;
};

class WorstFrames {
 public:
  WorstFrames(size_t count, bool higher_is_worse) : count_(count), higher_is_worse_(higher_is_worse) {}

  // Whether a frame of this score would be kept now (its thumbnails are then worth making).
  bool would_keep(uint64_t frame, double score) const;
  // Keeps the frame when it is among the `count` worst so far, dropping the least bad one.
  void offer(uint64_t frame, double score, ThumbnailPair thumbnails);
  // The kept frames, the worst first.
  std::vector<WorstFrame> worst_first() const;

  size_t size() const { return kept_.size(); }

 private:
  // a is worse than b.
  bool worse(uint64_t frame_a, double a, uint64_t frame_b, double b) const;

  size_t count_;
  bool higher_is_worse_;
  std::vector<WorstFrame> kept_;  // a heap whose front is the least bad kept frame
};

}  // namespace vqx
