#include "engine/final_frames.h"

namespace vqx {

void FinalFrames::handled(uint64_t frame) {
  if (!listener_) return;
  std::lock_guard lock(mutex_);
  if (parts_ > 1) {
    const auto it = partly_.try_emplace(frame, 0u).first;
    if (++it->second < parts_) return;
    partly_.erase(it);
  }
  ahead_.insert(frame);
  while (!ahead_.empty() && *ahead_.begin() == contiguous_) {
    ahead_.erase(ahead_.begin());
    ++contiguous_;
  }
  if (contiguous_ > lag_) announce_below(contiguous_ - lag_);
}

void FinalFrames::finish(uint64_t frame_count) {
  if (!listener_) return;
  std::lock_guard lock(mutex_);
  announce_below(frame_count);
}

void FinalFrames::announce_below(uint64_t end) {
  // The listener runs under the lock, so frames reach it in order even from several workers.
  while (announced_ < end) listener_(announced_++);
}

}  // namespace vqx
