#pragma once
// Tells a listener, in frame order and one call at a time, when every value of a frame is in the
// result table: once every frame up to `frame + lag` has been handled by all metrics (lag: the
// largest final_lag() of the run), or at the end of the run for the last frames. A run whose
// metrics are split between `parts` sides (a CUDA run's device metrics and the CPU metrics beside
// them) counts a frame handled once every side has handled it.
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <set>

namespace vqx {

class FinalFrames {
 public:
  using Listener = std::function<void(uint64_t frame)>;
  // An empty listener makes every call a no-op.
  FinalFrames(uint64_t lag, Listener listener, unsigned parts = 1)
      : lag_(lag), listener_(std::move(listener)), parts_(parts) {}

  // Every metric of one side has handled `frame`. Thread-safe; frames may come in any order.
  void handled(uint64_t frame);
  // After the end-of-clip flush: the frames [0, frame_count) not yet announced.
  void finish(uint64_t frame_count);

 private:
  void announce_below(uint64_t end);  // with mutex_ held

  const uint64_t lag_;
  const Listener listener_;
  const unsigned parts_;
  std::mutex mutex_;
  std::map<uint64_t, unsigned> partly_;  // frames handled by some sides, and by how many
  std::set<uint64_t> ahead_;  // handled frames beyond the contiguous run [0, contiguous_)
  uint64_t contiguous_ = 0;
  uint64_t announced_ = 0;
};

}  // namespace vqx
