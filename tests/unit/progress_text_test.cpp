// The progress line's text and the total it counts towards (output/progress_text.h).
#include "output/progress_text.h"

#include <gtest/gtest.h>

namespace vqx {
namespace {

TEST(ProgressText, WithAndWithoutATotal) {
  EXPECT_EQ(progress_text(120, 480, 4.0), "120/480 frames (25.0%), 30.00 FPS, ETA 0:12");
  EXPECT_EQ(progress_text(1, std::nullopt, 0.5), "1 frame, 2.00 FPS");
  EXPECT_EQ(progress_text(37, std::nullopt, 2.0), "37 frames, 18.50 FPS");
  // More frames than the estimate said: the total is dropped, not a negative ETA.
  EXPECT_EQ(progress_text(500, 480, 10.0), "500 frames, 50.00 FPS");
  EXPECT_EQ(progress_text(480, 480, 10.0), "480/480 frames (100.0%), 48.00 FPS, ETA 0:00");
  // No time yet: no rate, so no ETA.
  EXPECT_EQ(progress_text(0, 480, 0.0), "0/480 frames (0.0%), 0.00 FPS");
}

TEST(ProgressText, EtaFormat) {
  EXPECT_EQ(progress_text(10, 100010, 1.0), "10/100010 frames (0.0%), 10.00 FPS, ETA 2:46:40");  // 10000 s
  EXPECT_EQ(progress_text(10, 6010, 1.0), "10/6010 frames (0.2%), 10.00 FPS, ETA 10:00");
  EXPECT_EQ(progress_text(2, 5, 1.0), "2/5 frames (40.0%), 2.00 FPS, ETA 0:02");  // 1.5 s rounds up
}

TEST(ProgressText, FramesToScore) {
  EXPECT_EQ(frames_to_score(48, 0, 48, 0, 0), 48u);
  EXPECT_EQ(frames_to_score(48, 3, 40, 0, 0), 40u);      // the shorter input ends the run
  EXPECT_EQ(frames_to_score(48, 10, 40, 0, 0), 38u);
  EXPECT_EQ(frames_to_score(48, 0, std::nullopt, 0, 0), 48u);  // a pipe: the file's count
  EXPECT_EQ(frames_to_score(48, 0, 48, 0, 12), 12u);
  EXPECT_EQ(frames_to_score(std::nullopt, 0, std::nullopt, 0, 12), 12u);
  EXPECT_EQ(frames_to_score(std::nullopt, 0, std::nullopt, 0, 0), std::nullopt);
  EXPECT_EQ(frames_to_score(5, 9, 48, 0, 0), 0u);  // skipping more than there is
}

}  // namespace
}  // namespace vqx
