#pragma once
// Reusable per-frame buffers for extractors whose extract() may run for several frames at once.
// Allocating and zero-filling the frame-sized bands on every call cost about a tenth of the CPU
// time at 4K (page faults, memset); a pool hands each concurrent call its own workspace and keeps
// it for the next one, so memory grows only with the number of frames in flight. The contents
// are left as the previous call wrote them: every user overwrites what it reads.
#include <memory>
#include <mutex>
#include <vector>

namespace vqx::vmaf_common {

template <typename Workspace>
class WorkspacePool {
 public:
  // Returns the workspace to the pool when destroyed.
  class Lease {
   public:
    Lease(WorkspacePool& pool, std::unique_ptr<Workspace> ws) : pool_(pool), ws_(std::move(ws)) {}
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() { pool_.release(std::move(ws_)); }
    Workspace& operator*() { return *ws_; }
    Workspace* operator->() { return ws_.get(); }

   private:
    WorkspacePool& pool_;
    std::unique_ptr<Workspace> ws_;
  };

  Lease acquire() {
    std::lock_guard lock(mutex_);
    if (free_.empty()) return Lease(*this, std::make_unique<Workspace>());
    std::unique_ptr<Workspace> ws = std::move(free_.back());
    free_.pop_back();
    return Lease(*this, std::move(ws));
  }

 private:
  void release(std::unique_ptr<Workspace> ws) {
    std::lock_guard lock(mutex_);
    free_.push_back(std::move(ws));
  }

  std::mutex mutex_;
  std::vector<std::unique_ptr<Workspace>> free_;
};

}  // namespace vqx::vmaf_common
