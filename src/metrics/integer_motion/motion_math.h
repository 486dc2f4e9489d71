#pragma once
// libvmaf's integer motion (shared/spec/vmaf.md section 4), after the SAD of the row kernel
// (motion_kernels.h):
//   motion_score     4.2: SAD -> the per-frame score
//   motion_post      4.3: the flush-time motion2 / motion3 sequences
#include <cstdint>
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

}  // namespace vqx::integer_motion
