#include "core/thread_pool.h"

#include <atomic>
#include <exception>
#include <memory>

namespace vqx {

ThreadPool::ThreadPool(unsigned workers) {
  for (unsigned i = 0; i < workers; ++i) threads_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

void ThreadPool::submit(std::function<void()> task) {
  if (threads_.empty()) {
    task();
    return;
  }
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(task));
  }
  wake_.notify_one();
}

void ThreadPool::worker_loop() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

namespace {

struct LoopState {
  size_t n = 0, grain = 1, chunks = 0;
  const std::function<void(size_t, size_t)>* body = nullptr;
  std::atomic<size_t> next{0};
  std::atomic<size_t> done{0};
  std::mutex mutex;
  std::condition_variable finished;
  std::exception_ptr error;

  // Claims and runs chunks until none are left; returns after its own chunks are accounted for.
  void drain() {
    for (;;) {
      size_t c = next.fetch_add(1);
      if (c >= chunks) return;
      size_t begin = c * grain;
      size_t end = begin + grain < n ? begin + grain : n;
      try {
        (*body)(begin, end);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!error) error = std::current_exception();
      }
      if (done.fetch_add(1) + 1 == chunks) {
        std::lock_guard lock(mutex);
        finished.notify_all();
      }
    }
  }
};

}  // namespace

void ThreadPool::parallel_for(size_t n, size_t grain,
                              const std::function<void(size_t, size_t)>& body) {
  if (n == 0) return;
  if (grain == 0) grain = 1;
  size_t chunks = (n + grain - 1) / grain;
  if (threads_.empty() || chunks == 1) {
    for (size_t b = 0; b < n; b += grain) body(b, b + grain < n ? b + grain : n);
    return;
  }
  auto state = std::make_shared<LoopState>();
  state->n = n;
  state->grain = grain;
  state->chunks = chunks;
  state->body = &body;
  size_t helpers = chunks - 1 < threads_.size() ? chunks - 1 : threads_.size();
  for (size_t i = 0; i < helpers; ++i) submit([state] { state->drain(); });
  state->drain();
  std::unique_lock lock(state->mutex);
  state->finished.wait(lock, [&] { return state->done.load() == state->chunks; });
  if (state->error) std::rethrow_exception(state->error);
}

}  // namespace vqx
