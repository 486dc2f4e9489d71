// Min/max downsampling of per-frame plots (output/plot_downsample.h): exact bucket boundaries,
// every point in one bucket, and each bucket's extremes kept, so no dip disappears.
#include "output/plot_downsample.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace vqx {
namespace {

std::vector<PlotPoint> series(const std::vector<double>& values, uint64_t first_frame = 0) {
  std::vector<PlotPoint> points;
  for (size_t i = 0; i < values.size(); ++i) points.push_back({first_frame + i, values[i]});
  return points;
}

TEST(PlotDownsample, BucketBoundariesAreFloorOfKTimesNOverB) {
  // 10 points in 4 buckets: floor(10k/4) = 0, 2, 5, 7, 10.
  const size_t starts[] = {0, 2, 5, 7, 10};
  for (size_t k = 0; k < 4; ++k) {
    const BucketRange r = bucket_range(k, 10, 4);
    EXPECT_EQ(r.begin, starts[k]) << k;
    EXPECT_EQ(r.end, starts[k + 1]) << k;
  }
  // 7 points in 3 buckets: 0, 2, 4, 7.
  EXPECT_EQ(bucket_range(0, 7, 3).end, 2u);
  EXPECT_EQ(bucket_range(1, 7, 3).end, 4u);
  EXPECT_EQ(bucket_range(2, 7, 3).end, 7u);
  // Lengths where k * n needs more than 64 bits still divide exactly.
  const size_t huge = size_t(1) << 62;
  EXPECT_EQ(bucket_range(3, huge, 4).begin, 3 * (huge / 4));
  EXPECT_EQ(bucket_range(3, huge, 4).end, huge);
}

TEST(PlotDownsample, WorkedBuckets) {
  const auto points = series({5, 1, 7, 3, 3, 9, 2, 8, 4, 6});  // buckets [0,2) [2,5) [5,7) [7,10)
  const auto b = downsample_min_max(points, 4);
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(b[0].first_frame, 0u); EXPECT_EQ(b[0].last_frame, 1u);
  EXPECT_EQ(b[0].min, 1); EXPECT_EQ(b[0].min_frame, 1u); EXPECT_EQ(b[0].max, 5); EXPECT_EQ(b[0].max_frame, 0u);
  EXPECT_EQ(b[1].first_frame, 2u); EXPECT_EQ(b[1].last_frame, 4u);
  EXPECT_EQ(b[1].min, 3); EXPECT_EQ(b[1].min_frame, 3u);  // the first of the two 3s
  EXPECT_EQ(b[1].max, 7); EXPECT_EQ(b[1].max_frame, 2u);
  EXPECT_EQ(b[2].min, 2); EXPECT_EQ(b[2].max, 9); EXPECT_EQ(b[2].max_frame, 5u);
  EXPECT_EQ(b[3].first_frame, 7u); EXPECT_EQ(b[3].last_frame, 9u);
  EXPECT_EQ(b[3].min, 4); EXPECT_EQ(b[3].max, 8);
}

TEST(PlotDownsample, ShortSeriesKeepsEveryPoint) {
  const auto points = series({3, 1, 2}, 40);
  const auto b = downsample_min_max(points, 1000);
  ASSERT_EQ(b.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(b[i].first_frame, 40 + i);
    EXPECT_EQ(b[i].last_frame, 40 + i);
    EXPECT_EQ(b[i].min, points[i].value);
    EXPECT_EQ(b[i].max, points[i].value);
  }
  EXPECT_TRUE(downsample_min_max({}, 10).empty());
  EXPECT_EQ(downsample_min_max(points, 0).size(), 1u);  // at least one bucket
}

// A 100,000-frame series with single-frame dips: every dip is some bucket's min, the buckets
// tile the frames without gap or overlap, and the global extremes survive.
TEST(PlotDownsample, SingleFrameDipsSurviveALongClip) {
  constexpr size_t kFrames = 100000, kBuckets = 997;
  std::mt19937 random(7);
  std::uniform_real_distribution<double> noise(90.0, 95.0);
  std::vector<double> values(kFrames);
  for (double& v : values) v = noise(random);
  const std::vector<uint64_t> dips = {0, 1234, 50000, 50001, 77777, kFrames - 1};
  for (uint64_t f : dips) values[f] = 10.0 + double(f % 7);
  const auto points = series(values);
  const auto b = downsample_min_max(points, kBuckets);
  ASSERT_EQ(b.size(), kBuckets);
  uint64_t next = 0;
  for (const PlotBucket& bucket : b) {
    EXPECT_EQ(bucket.first_frame, next);
    const size_t size = bucket.last_frame - bucket.first_frame + 1;
    EXPECT_TRUE(size == kFrames / kBuckets || size == kFrames / kBuckets + 1) << size;
    EXPECT_EQ(bucket.min, *std::min_element(values.begin() + bucket.first_frame, values.begin() + bucket.last_frame + 1));
    EXPECT_EQ(bucket.max, *std::max_element(values.begin() + bucket.first_frame, values.begin() + bucket.last_frame + 1));
    EXPECT_EQ(values[bucket.min_frame], bucket.min);
    EXPECT_EQ(values[bucket.max_frame], bucket.max);
    next = bucket.last_frame + 1;
  }
  EXPECT_EQ(next, kFrames);
  for (uint64_t f : dips) {
    const auto it = std::find_if(b.begin(), b.end(), [&](const PlotBucket& x) { return x.last_frame >= f; });
    ASSERT_NE(it, b.end());
    EXPECT_LE(it->min, values[f]) << "the dip at frame " << f << " is lost";
  }
}

}  // namespace
}  // namespace vqx
