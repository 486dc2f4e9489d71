#include "core/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

namespace vqx {
namespace {

TEST(ThreadPool, ParallelForCoversEveryIndexOnce) {
  for (unsigned workers : {0u, 1u, 3u}) {
    ThreadPool pool(workers);
    std::vector<std::atomic<int>> hits(1001);
    pool.parallel_for(hits.size(), 7, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) hits[i]++;
    });
    for (auto& h : hits) EXPECT_EQ(h.load(), 1);
  }
}

TEST(ThreadPool, NestedLoopsFromTasksDoNotDeadlock) {
  ThreadPool pool(2);
  std::atomic<int> total{0};
  std::atomic<int> done{0};
  for (int t = 0; t < 8; ++t)
    pool.submit([&] {
      pool.parallel_for(100, 3, [&](size_t b, size_t e) { total += int(e - b); });
      done++;
    });
  while (done.load() < 8) std::this_thread::yield();
  EXPECT_EQ(total.load(), 800);
}

TEST(ThreadPool, RethrowsAfterAllChunks) {
  ThreadPool pool(2);
  std::atomic<int> ran{0};
  EXPECT_THROW(pool.parallel_for(10, 1,
                                 [&](size_t b, size_t) {
                                   ran++;
                                   if (b == 3) throw std::runtime_error("x");
                                 }),
               std::runtime_error);
  EXPECT_EQ(ran.load(), 10);
}

}  // namespace
}  // namespace vqx
