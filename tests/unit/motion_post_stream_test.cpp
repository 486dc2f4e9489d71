// MotionPostStream gives every frame the motion2/motion3 of motion_post bit for bit, each frame
// once, lag() frames after its score (the last frames at the end), for every option combination.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "metrics/integer_motion/motion_math.h"

namespace vqx::integer_motion {
namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(MotionPostStream, MatchesWholeClipPostProcessing) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> score(0, 30);
  for (bool five : {false, true})
    for (bool average : {false, true})
      for (double blend : {1.0, 0.3})
        for (bool force_zero : {false, true})
          for (size_t n = 1; n <= 9; ++n) {
            MotionPostOptions o;
            o.five_frame_window = five;
            o.moving_average = average;
            o.blend_factor = blend;
            o.max_val = 25;
            std::vector<double> s(n);
            for (double& v : s) v = score(rng);
            std::vector<double> motion2, motion3;
            if (force_zero) {
              motion2.assign(n, 0.0);
              motion3.assign(n, 0.0);
            } else {
              motion_post(s, o, motion2, motion3);
            }
            MotionPostStream stream(o, force_zero);
            std::vector<int> given(n, 0);
            size_t added = 0;
            auto check = [&](uint64_t k, const MotionPostValues& v) {
              ASSERT_LT(k, n);
              ++given[k];
              EXPECT_TRUE(same_bits(v.motion2, motion2[k])) << "n=" << n << " k=" << k;
              EXPECT_TRUE(same_bits(v.motion3, motion3[k])) << "n=" << n << " k=" << k;
            };
            for (double v : s) {
              stream.add(v, [&](uint64_t k, const MotionPostValues& values) {
                EXPECT_EQ(k + stream.lag(), added) << "given out as soon as known";
                check(k, values);
              });
              ++added;
            }
            stream.finish(check);
            for (size_t k = 0; k < n; ++k) EXPECT_EQ(given[k], 1) << "n=" << n << " k=" << k;
          }
}

}  // namespace
}  // namespace vqx::integer_motion
