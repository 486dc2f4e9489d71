// The worst-frame choice of the HTML report (output/worst_frames.h): the N lowest scores (highest
// for CAMBI), ties to the earlier frame, independent of the order frames arrive in.
#include "output/worst_frames.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace vqx {
namespace {

// A thumbnail that remembers its frame, so the test sees that each stays with its frame.
ThumbnailPair tagged(uint64_t frame) {
  ThumbnailPair p;
  p.reference = {1, 1, {uint8_t(frame), 0, 0}};
  p.distorted = {1, 1, {0, uint8_t(frame), 0}};
  return p;
}

std::vector<uint64_t> frames_of(const std::vector<WorstFrame>& worst) {
  std::vector<uint64_t> out;
  for (const auto& w : worst) {
    EXPECT_EQ(w.thumbnails.reference.rgb[0], uint8_t(w.frame));
    EXPECT_EQ(w.thumbnails.distorted.rgb[1], uint8_t(w.frame));
    out.push_back(w.frame);
  }
  return out;
}

TEST(WorstFrames, KeepsTheLowestScoresWorstFirst) {
  const std::vector<double> scores = {90, 40, 95, 60, 20, 80, 40, 99};
  WorstFrames worst(3, false);
  for (uint64_t f = 0; f < scores.size(); ++f) worst.offer(f, scores[f], tagged(f));
  EXPECT_EQ(worst.size(), 3u);
  // 20 (frame 4), then the two 40s, the earlier first.
  EXPECT_EQ(frames_of(worst.worst_first()), (std::vector<uint64_t>{4, 1, 6}));
}

TEST(WorstFrames, HigherIsWorseForCambi) {
  EXPECT_TRUE(higher_is_worse("cambi"));
  EXPECT_TRUE(higher_is_worse("cambi_full_reference"));
  EXPECT_FALSE(higher_is_worse("vmaf"));
  EXPECT_FALSE(higher_is_worse("psnr_y"));
  WorstFrames worst(2, true);
  const std::vector<double> scores = {1.5, 7.0, 0.0, 7.0, 3.0};
  for (uint64_t f = 0; f < scores.size(); ++f) worst.offer(f, scores[f], tagged(f));
  EXPECT_EQ(frames_of(worst.worst_first()), (std::vector<uint64_t>{1, 3}));
}

TEST(WorstFrames, WouldKeepSaysWhatOfferDoes) {
  WorstFrames worst(2, false);
  EXPECT_TRUE(worst.would_keep(5, 50));
  worst.offer(5, 50, tagged(5));
  worst.offer(6, 30, tagged(6));
  EXPECT_FALSE(worst.would_keep(7, 60));
  EXPECT_FALSE(worst.would_keep(7, 50));  // a tie goes to the earlier frame 5
  EXPECT_TRUE(worst.would_keep(4, 50));
  EXPECT_TRUE(worst.would_keep(8, 49.9));
  EXPECT_FALSE(worst.would_keep(9, NAN));
  worst.offer(9, NAN, tagged(9));
  EXPECT_EQ(frames_of(worst.worst_first()), (std::vector<uint64_t>{6, 5}));
  WorstFrames none(0, false);
  none.offer(1, 1.0, tagged(1));
  EXPECT_EQ(none.size(), 0u);
}

// The same scores offered in any order choose the same frames as sorting them all.
TEST(WorstFrames, OrderOfArrivalDoesNotMatter) {
  std::mt19937 random(11);
  std::uniform_int_distribution<int> score(0, 40);  // many ties
  std::vector<double> scores(500);
  for (double& s : scores) s = score(random);
  std::vector<uint64_t> expected(scores.size());
  std::iota(expected.begin(), expected.end(), 0);
  std::stable_sort(expected.begin(), expected.end(), [&](uint64_t a, uint64_t b) { return scores[a] < scores[b]; });
  expected.resize(6);
  for (int trial = 0; trial < 5; ++trial) {
    std::vector<uint64_t> order(scores.size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), random);
    WorstFrames worst(6, false);
    for (uint64_t f : order) worst.offer(f, scores[f], tagged(f));
    EXPECT_EQ(frames_of(worst.worst_first()), expected) << "trial " << trial;
  }
}

}  // namespace
}  // namespace vqx
