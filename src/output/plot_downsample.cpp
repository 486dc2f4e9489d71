#include "output/plot_downsample.h"

#include <algorithm>

namespace vqx {

BucketRange bucket_range(size_t k, size_t n, size_t buckets) {
  // 128-bit products: k * n overflows 64 bits only for absurd lengths, but it must never wrap.
  const auto at = [&](size_t i) { return size_t((unsigned __int128)i * n / buckets); };
  return {at(k), at(k + 1)};
}

std::vector<PlotBucket> downsample_min_max(std::span<const PlotPoint> points, size_t max_buckets) {
  const size_t n = points.size();
  const size_t buckets = std::min(n, std::max<size_t>(1, max_buckets));
  std::vector<PlotBucket> out;
  if (n == 0) return out;
  out.reserve(buckets);
  for (size_t k = 0; k < buckets; ++k) {
    const BucketRange range = bucket_range(k, n, buckets);
    const PlotPoint& first = points[range.begin];
    PlotBucket b{first.frame, points[range.end - 1].frame, first.value, first.value, first.frame, first.frame};
    for (size_t i = range.begin + 1; i < range.end; ++i) {
      const PlotPoint& p = points[i];
      if (p.value < b.min) b.min = p.value, b.min_frame = p.frame;
      if (p.value > b.max) b.max = p.value, b.max_frame = p.frame;
    }
    out.push_back(b);
  }
  return out;
}

}  // namespace vqx
