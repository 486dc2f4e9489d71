#pragma once
// Per-frame plots of long clips: the points of a series fall into at most `max_buckets` buckets of
// consecutive points, and each bucket keeps its extremes (min and max, with their frames), so a
// 100,000-frame plot stays a few thousand points and no single-frame dip or spike disappears.
//
// Bucket k of n points in B buckets holds the points [floor(k * n / B), floor((k + 1) * n / B)):
// every bucket holds floor(n / B) or ceil(n / B) points, and every point is in exactly one. With
// n <= B every point is a bucket of its own.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace vqx {

struct PlotPoint {
  uint64_t frame;
  double value;
};

struct PlotBucket {
  uint64_t first_frame, last_frame;  // of the bucket's first and last point
  double min, max;
  uint64_t min_frame, max_frame;  // the first point with the min, and with the max
};

// `points` in frame order. No bucket is empty; an empty series gives none.
std::vector<PlotBucket> downsample_min_max(std::span<const PlotPoint> points, size_t max_buckets);

// The points [begin, end) of bucket `k` of `n` points in `buckets` buckets, as defined above.
struct BucketRange {
  size_t begin, end;
};
BucketRange bucket_range(size_t k, size_t n, size_t buckets);

}  // namespace vqx
