#include "output/worst_frames.h"

#include <algorithm>
#include <cmath>

namespace vqx {

bool higher_is_worse(const std::string& name) { return name.rfind("cambi", 0) == 0; }

bool WorstFrames::worse(uint64_t frame_a, double a, uint64_t frame_b, double b) const {
  if (a != b) return higher_is_worse_ ? a > b : a < b;
  return frame_a < frame_b;
}

bool WorstFrames::would_keep(uint64_t frame, double score) const {
  if (count_ == 0 || std::isnan(score)) return false;
  if (kept_.size() < count_) return true;
  const WorstFrame& least_bad = kept_.front();
  return worse(frame, score, least_bad.frame, least_bad.score);
}

void WorstFrames::offer(uint64_t frame, double score, ThumbnailPair thumbnails) {
  if (!would_keep(frame, score)) return;
  // With the worse-than order as "less than", the heap's front is its greatest: the least bad.
  const auto order = [this](const WorstFrame& x, const WorstFrame& y) {
    return worse(x.frame, x.score, y.frame, y.score);
  };
  if (kept_.size() == count_) {
    std::pop_heap(kept_.begin(), kept_.end(), order);
    kept_.pop_back();
  }
  kept_.push_back({frame, score, std::move(thumbnails)});
  std::push_heap(kept_.begin(), kept_.end(), order);
}

std::vector<WorstFrame> WorstFrames::worst_first() const {
  std::vector<WorstFrame> out = kept_;
  std::sort(out.begin(), out.end(), [this](const WorstFrame& x, const WorstFrame& y) {
    return worse(x.frame, x.score, y.frame, y.score);
  });
  return out;
}

}  // namespace vqx
