// Integer motion: the per-frame score and the flush-time post-processing (shared/spec/vmaf.md
// 4.2, 4.3).
#include "metrics/integer_motion/motion_math.h"

#include <algorithm>

namespace vqx::integer_motion {

double motion_score(uint64_t sad, uint32_t w, uint32_t h, double fps_weight, double max_val) {
  double score = ((double(sad) / 256.0) / double(w * h)) * fps_weight;  // w*h: unsigned int
  return std::min(score, max_val);
}

namespace {

double blend(const MotionPostOptions& o, double x) {
  return x * o.blend_factor + (1.0 - o.blend_factor) * std::min(o.blend_offset, x);
}

size_t window_start(const MotionPostOptions& o) { return o.five_frame_window ? 2 : 1; }

double motion2_at(const std::vector<double>& s, const MotionPostOptions& o, size_t n,
                  size_t n_frames) {
  const size_t m0 = window_start(o), st = m0;
  if (n < m0) return 0.0;
  if (n + 1 == n_frames) return s[n];
  if (n - st + 1 >= m0) return std::min(s[n - st + 1], s[n + 1]);
  return s[n + 1];
}

// The motion3 of frames before m0, and the previous value of frame m0's moving average.
double stamp(const std::vector<double>& s, const MotionPostOptions& o, size_t n_frames) {
  const size_t m0 = window_start(o);
  return n_frames > m0 ? std::min(blend(o, s[m0]), o.max_val) : 0.0;
}

}  // namespace

MotionPostValues motion_post_frame(const std::vector<double>& s, const MotionPostOptions& o,
                                   size_t k, size_t n_frames) {
  const size_t m0 = window_start(o);
  const double motion2 = motion2_at(s, o, k, n_frames);
  if (k < m0) return {motion2, stamp(s, o, n_frames)};
  const double p = std::min(blend(o, motion2), o.max_val);
  if (!o.moving_average) return {motion2, p};
  const double prev = k - 1 < m0 ? stamp(s, o, n_frames)
                                 : std::min(blend(o, motion2_at(s, o, k - 1, n_frames)), o.max_val);
  return {motion2, (p + prev) / 2.0};
}

void motion_post(const std::vector<double>& s, const MotionPostOptions& o,
                 std::vector<double>& motion2, std::vector<double>& motion3) {
  motion2.assign(s.size(), 0.0);
  motion3.assign(s.size(), 0.0);
  for (size_t k = 0; k < s.size(); ++k) {
    const MotionPostValues v = motion_post_frame(s, o, k, s.size());
    motion2[k] = v.motion2;
    motion3[k] = v.motion3;
  }
}

MotionPostValues MotionPostStream::values(size_t k, size_t n_frames) const {
  if (force_zero_) return {0.0, 0.0};
  return motion_post_frame(scores_, options_, k, n_frames);
}

void MotionPostStream::add(double score, const Emit& emit) {
  scores_.push_back(score);
  // With frame n read, frame n - lag is not the last and S[m0] is known (n >= m0 = lag).
  const size_t n = scores_.size() - 1;
  if (n >= lag()) emit(n - lag(), values(n - lag(), scores_.size()));
}

void MotionPostStream::finish(const Emit& emit) {
  const size_t n_frames = scores_.size();
  for (size_t k = n_frames > lag() ? n_frames - lag() : 0; k < n_frames; ++k)
    emit(k, values(k, n_frames));
}

}  // namespace vqx::integer_motion
