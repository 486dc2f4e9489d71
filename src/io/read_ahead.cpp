#include "io/read_ahead.h"

#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace vqx {
namespace {

class ReadAheadSource final : public FrameSource {
 public:
  ReadAheadSource(std::unique_ptr<FrameSource> source, size_t depth)
      : FrameSource(source->name()), source_(std::move(source)) {
    for (size_t i = 0; i < (depth < 1 ? 1 : depth); ++i) slots_.emplace_back(source_->format());
    thread_ = std::thread([this] { fill(); });
  }

  ~ReadAheadSource() override {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }

  const PictureFormat& format() const override { return source_->format(); }

  bool read(Picture& picture) override {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return filled_ > 0 || finished_; });
    if (filled_ == 0) {
      if (error_) std::rethrow_exception(error_);
      return false;
    }
    const Picture& slot = slots_[head_];
    lock.unlock();  // the reading thread leaves filled slots alone
    std::memcpy(picture.bytes(), slot.bytes(), slot.size_bytes());
    lock.lock();
    head_ = (head_ + 1) % slots_.size();
    --filled_;
    ++frames_read_;
    changed_.notify_all();
    return true;
  }

 private:
  void fill() {
    for (;;) {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return filled_ < slots_.size() || stop_; });
      if (stop_) return;
      Picture& slot = slots_[(head_ + filled_) % slots_.size()];
      lock.unlock();
      bool got = false;
      std::exception_ptr error;
      try {
        got = source_->read(slot);
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      if (got) {
        ++filled_;
      } else {
        error_ = error;
        finished_ = true;
      }
      changed_.notify_all();
      if (finished_) return;
    }
  }

  std::unique_ptr<FrameSource> source_;
  std::vector<Picture> slots_;  // a ring: filled_ frames from head_ on
  std::mutex mutex_;
  std::condition_variable changed_;
  size_t head_ = 0, filled_ = 0;
  bool finished_ = false, stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace

std::unique_ptr<FrameSource> read_ahead(std::unique_ptr<FrameSource> source, size_t depth) {
  return std::make_unique<ReadAheadSource>(std::move(source), depth);
}

}  // namespace vqx
