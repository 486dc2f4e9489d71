#include "core/thread_pool.h"

#include <fmt/format.h>

#include <atomic>
#include <exception>
#include <memory>
#include <system_error>

#include "core/error.h"

namespace vqx {

namespace {

// Lets the workers finish the queue, then joins them.
void stop_workers(std::mutex& mutex, bool& stopping, std::condition_variable& wake,
                  std::vector<std::thread>& threads) {
  {
    std::lock_guard lock(mutex);
    stopping = true;
  }
  wake.notify_all();
  for (auto& t : threads) t.join();
}

}  // namespace

// Throws RuntimeFailure when the system refuses a thread (a process or memory limit), after
// stopping the ones already started: a failed constructor's members would otherwise be destroyed
// while joinable, which terminates the process.
ThreadPool::ThreadPool(unsigned workers) {
  try {
    for (unsigned i = 0; i < workers; ++i) threads_.emplace_back([this] { worker_loop(); });
  } catch (const std::system_error& e) {
    stop_workers(mutex_, stopping_, wake_, threads_);
    throw RuntimeFailure(fmt::format("cannot start {} worker threads (started {}): {}", workers,
                                     threads_.size(), e.what()));
  }
}

ThreadPool::~ThreadPool() { stop_workers(mutex_, stopping_, wake_, threads_); }

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
      ++idle_;
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      --idle_;
      if (queue_.empty()) return;
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

void ThreadPool::submit_helpers(size_t count, const std::function<void()>& helper) {
  {
    std::lock_guard lock(mutex_);
    // Helpers already queued will wake workers that count as idle here; asking for more than the
    // idle workers minus those only adds queue traffic.
    size_t waiting = queue_.size();
    size_t free_workers = idle_ > waiting ? idle_ - waiting : 0;
    if (count > free_workers) count = free_workers;
    for (size_t i = 0; i < count; ++i) queue_.push_front(helper);
  }
  for (size_t i = 0; i < count; ++i) wake_.notify_one();
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
  submit_helpers(chunks - 1, [state] { state->drain(); });
  state->drain();
  std::unique_lock lock(state->mutex);
  state->finished.wait(lock, [&] { return state->done.load() == state->chunks; });
  if (state->error) std::rethrow_exception(state->error);
}

}  // namespace vqx
