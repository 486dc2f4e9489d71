#pragma once
// libvmaf's integer motion (shared/spec/vmaf.md section 4), after the SAD of the row kernel
// (motion_kernels.h):
//   motion_score     4.2: SAD -> the per-frame score
//   motion_post      4.3: the motion2 / motion3 sequences of a whole clip
//   MotionPostStream 4.3 frame by frame, as soon as each frame's values are known
#include <cstdint>
#include <functional>
#include <vector>

namespace vqx::integer_motion {

// 5-tap Q16 blur (the VIF scale-2 filter), border rule of vmaf.md 2.3.
inline constexpr int32_t kBlur[5] = {3571, 16004, 26386, 16004, 3571};

// min(((sad / 256) / (w*h)) * fps_weight, max_val), f64 in this order.
double motion_score(uint64_t sad, uint32_t w, uint32_t h, double fps_weight, double max_val);

struct MotionPostOptions {
  bool five_frame_window = false;
  bool moving_average = false;
  double blend_factor = 1.0;
  double blend_offset = 40.0;
  double max_val = 10000.0;
};

// 4.3: from the per-frame scores S[0..N-1], the motion2 and motion3 values of every frame.
void motion_post(const std::vector<double>& scores, const MotionPostOptions& options,
                 std::vector<double>& motion2, std::vector<double>& motion3);

// 4.3 for one frame k of a clip whose first `n_frames` scores are in `scores`: the values
// motion_post gives frame k, read from S[min(k-1, m0) .. k+1] and, for k < m0, S[m0].
struct MotionPostValues {
  double motion2, motion3;
};
MotionPostValues motion_post_frame(const std::vector<double>& scores, const MotionPostOptions& options,
                                   size_t k, size_t n_frames);

// The same values as motion_post, given out while the clip is read: frame k's once the score of
// frame k + lag() is known (the next frame decides whether k is the last, and frame 0's motion3
// needs S[m0]), the last lag() frames' at the end. With force_zero every value is 0.
class MotionPostStream {
 public:
  using Emit = std::function<void(uint64_t frame, const MotionPostValues& values)>;
  MotionPostStream(const MotionPostOptions& options, bool force_zero)
      : options_(options), force_zero_(force_zero) {}
  uint64_t lag() const { return options_.five_frame_window ? 2 : 1; }
  // The score of the next frame (frames in order, from 0).
  void add(double score, const Emit& emit);
  // End of clip: the frames not yet given out.
  void finish(const Emit& emit);

 private:
  MotionPostValues values(size_t k, size_t n_frames) const;

  MotionPostOptions options_;
  bool force_zero_;
  std::vector<double> scores_;
};

}  // namespace vqx::integer_motion
