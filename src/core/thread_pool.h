#pragma once
// A fixed pool of worker threads. parallel_for may be called from inside a task: the caller works
// on its own loop too, so nesting never deadlocks, and the split into chunks depends only on the
// loop size and grain, never on the thread count, so results are the same for any --threads.
// A loop asks for help only from workers that are idle when it starts, and its helpers go ahead of
// queued tasks: where whole frames already keep every worker busy, a loop runs in its caller with
// no queue traffic; where they do not, the idle workers join the frames in flight first.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace vqx {

class ThreadPool {
 public:
  // `workers` = 0 runs everything in the calling thread.
  explicit ThreadPool(unsigned workers);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned workers() const { return unsigned(threads_.size()); }

  // Queues a task; with no workers it runs at once.
  void submit(std::function<void()> task);

  // Calls body(begin, end) over [0, n) in chunks of `grain` indices and returns when all are done.
  // Exceptions from the body are rethrown (the first one) after every chunk has finished.
  void parallel_for(size_t n, size_t grain, const std::function<void(size_t, size_t)>& body);

 private:
  void worker_loop();
  // Queues `count` copies of `helper` ahead of the other tasks, at most one per idle worker.
  void submit_helpers(size_t count, const std::function<void()>& helper);
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  size_t idle_ = 0;  // workers waiting for a task
  bool stopping_ = false;
};

}  // namespace vqx
