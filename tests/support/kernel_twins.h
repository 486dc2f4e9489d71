#pragma once
// Helpers of the twin tests of the CPU kernel tables (core/cpu_features.h): seeded test planes,
// the distinct tables this host can run, and whole-metric runs whose outputs are compared bit for
// bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/thread_pool.h"
#include "engine/metric.h"
#include "support/cpu_levels.h"

namespace vqx::test {

// Test planes. kNatural: smooth ramp plus noise and hard edges; kExtreme: every sample 0 or the
// maximum (the widest intermediate values); kBlocks: flat blocks of random levels (flat regions,
// VIF's sigma1 below the noise variance, all-zero motion rows); kNoise: uniform noise.
enum class Pattern { kNatural, kExtreme, kBlocks, kNoise };
inline constexpr Pattern kAllPatterns[] = {Pattern::kNatural, Pattern::kExtreme, Pattern::kBlocks,
                                           Pattern::kNoise};

template <typename Sample>
std::vector<Sample> test_plane(uint32_t w, uint32_t h, unsigned bpc, uint32_t seed,
                               Pattern pattern) {
  std::mt19937 rng(seed);
  std::vector<Sample> p(size_t(w) * h);
  const uint32_t mx = uint32_t((uint64_t{1} << bpc) - 1);
  std::vector<uint32_t> levels(64);
  for (auto& l : levels) l = uint32_t(rng() % (uint64_t{mx} + 1));
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      uint32_t v = 0;
      switch (pattern) {
        case Pattern::kNatural:
          v = std::min<uint32_t>(mx, ((x * 7 + y * 3) % (mx + 1)) / 2 + rng() % (mx / 4 + 1) +
                                         ((x / 9 + y / 5) % 3 == 0 ? mx / 3 : 0));
          break;
        case Pattern::kExtreme:
          v = (rng() & 1) ? mx : 0;
          break;
        case Pattern::kBlocks:
          v = levels[((x / 11) * 7 + (y / 13) * 3 + seed) % levels.size()];
          break;
        case Pattern::kNoise:
          v = uint32_t(rng() % (uint64_t{mx} + 1));
          break;
      }
      p[size_t(y) * w + x] = Sample(v);
    }
  return p;
}

inline std::string describe(uint32_t w, uint32_t h, unsigned bpc, Pattern pattern) {
  return std::to_string(w) + "x" + std::to_string(h) + " " + std::to_string(bpc) +
         "-bit pattern " + std::to_string(int(pattern));
}

// The tables to check against the plain one: each level this host runs and the host's own table,
// leaving out a table whose entries equal those of one already listed (same code).
template <typename Table, typename Make>
std::vector<std::pair<std::string, Table>> tables_to_check(const Make& make, const Table& host) {
  std::vector<std::pair<std::string, Table>> out;
  auto add = [&](std::string name, const Table& t) {
    for (const auto& [n, seen] : out)
      if (std::memcmp(&seen, &t, sizeof(Table)) == 0) return;
    out.emplace_back(std::move(name), t);
  };
  for (const CpuLevel& level : host_cpu_levels()) add(level.name, make(level.features));
  add("host", host);
  return out;
}

// Every value a metric wrote, by (frame, output index).
using MetricValues = std::map<std::pair<uint64_t, size_t>, double>;

class CollectingWriter final : public FeatureWriter {
 public:
  void put(uint64_t frame, size_t feature, double value) override {
    std::lock_guard lock(mutex_);
    values[{frame, feature}] = value;
  }
  void put_aggregate(const std::string&, double) override {}
  MetricValues values;

 private:
  std::mutex mutex_;
};

// Runs `metric` on the pairs in frame order with a pool of `workers`, then flushes it.
inline MetricValues run_cpu_metric(CpuMetric& metric, const std::vector<Picture>& ref,
                                   const std::vector<Picture>& dis, unsigned workers = 1) {
  ThreadPool pool(workers);
  metric.init(MetricContext{ref.at(0).format(), &pool});
  CollectingWriter out;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (metric.history() > 0) {
      std::vector<EarlierFrame> earlier;  // newest first, as the engine passes them
      for (size_t k = 1; k <= metric.history() && k <= i; ++k)
        earlier.push_back({&ref[i - k], &dis[i - k]});
      metric.prepare(ref[i], dis[i], earlier, i);
    }
    metric.extract(ref[i], dis[i], i, out);
  }
  metric.flush(out);
  return out.values;
}

// Requires equal value sets, bit for bit.
inline void expect_same_values(const MetricValues& expected, const MetricValues& actual,
                               const std::string& what) {
  ASSERT_EQ(expected.size(), actual.size()) << what;
  ASSERT_FALSE(expected.empty()) << what;
  for (const auto& [key, value] : expected) {
    auto it = actual.find(key);
    ASSERT_NE(it, actual.end()) << what << ": frame " << key.first << " output " << key.second;
    EXPECT_EQ(std::memcmp(&value, &it->second, sizeof(double)), 0)
        << what << ": frame " << key.first << " output " << key.second << ": " << value
        << " vs " << it->second;
  }
}

}  // namespace vqx::test
