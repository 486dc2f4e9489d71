#pragma once
// Per-frame scratch for metrics whose frames run concurrently: each extract() leases one object
// and gives it back, so large buffers are reused across frames instead of reallocated.
#include <memory>
#include <mutex>
#include <vector>

namespace vqx::ssim {

template <typename T>
class ScratchPool {
 public:
  class Lease {
   public:
    Lease(ScratchPool& pool, std::unique_ptr<T> item) : pool_(pool), item_(std::move(item)) {}
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() { pool_.give_back(std::move(item_)); }
    T& operator*() { return *item_; }
    T* operator->() { return item_.get(); }

   private:
    ScratchPool& pool_;
    std::unique_ptr<T> item_;
  };

  Lease acquire() {
    std::lock_guard lock(mutex_);
    if (free_.empty()) return Lease(*this, std::make_unique<T>());
    std::unique_ptr<T> item = std::move(free_.back());
    free_.pop_back();
    return Lease(*this, std::move(item));
  }

 private:
  void give_back(std::unique_ptr<T> item) {
    std::lock_guard lock(mutex_);
    free_.push_back(std::move(item));
  }
  std::mutex mutex_;
  std::vector<std::unique_ptr<T>> free_;
};

}  // namespace vqx::ssim
