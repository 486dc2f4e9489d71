#pragma once
// The CPU side of a run: CPU metrics scoring the frame pairs a reader hands in, on a thread pool.
// Non-temporal metrics score frames concurrently; a temporal metric's prepare() runs on any frame
// at once and its extract() strictly in frame order, without holding a worker while it waits. The
// pass keeps the last history() frames for the metrics that read earlier frames.
//
// The CPU backend reads every frame pair into the pass; the CUDA backend hands it a copy of the
// host frames it uploads, for the requested metrics that have no CUDA twin (one decode, one pass).
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/picture.h"
#include "core/thread_pool.h"
#include "engine/engine.h"
#include "engine/result_table.h"

namespace vqx {

struct FramePair {
  Picture ref, dis;
};

// The largest final_lag() of `instances` (0 for none).
uint64_t cpu_final_lag(const std::vector<CpuInstance>& instances);

class CpuPass {
 public:
  // Initialises `instances` (whose columns are already in `table`) for `format`, then takes as
  // many frame buffers as `memory_limit` (0: default_memory_limit()) allows with the metrics'
  // workspaces (cpu_frame_buffers). `handled` hears each frame once every metric of the pass is
  // done with it, from a worker thread.
  CpuPass(std::vector<CpuInstance> instances, const PictureFormat& format, unsigned threads,
          uint64_t memory_limit, ResultTable& table, std::function<void(uint64_t frame)> handled);
  // Waits for the work in flight (skipping what has not started) before the buffers go away.
  ~CpuPass();
  CpuPass(const CpuPass&) = delete;
  CpuPass& operator=(const CpuPass&) = delete;

  // A free frame pair to read into; blocks until a worker returns one.
  FramePair& acquire();
  // Gives back a pair from acquire() that holds no frame (an input ended).
  void release(FramePair& pair);
  // Scores `pair` as frame `frame` (frames come in order, from one thread); the pair returns to
  // the free list when its last step is done.
  void submit(FramePair& pair, uint64_t frame);
  // Frame pairs for the frames in flight (besides those kept for temporal metrics' history).
  size_t frames_in_flight() const { return buffer_count_ - history_; }
  // When the memory limit holds fewer frames in flight than workers, a line saying so.
  std::optional<std::string> memory_notice() const;
  // A metric has thrown; later frames are skipped and finish() rethrows.
  bool failed() const { return failed_; }
  // After the last submit(): waits for every frame, rethrows the first failure, then runs each
  // metric's end-of-clip flush into the table.
  void finish();

 private:
  class Buffers;
  class Sequencer;
  using HeldPair = std::shared_ptr<FramePair>;
  struct FrameWork;
  void process(const std::shared_ptr<FrameWork>& work, uint64_t frame);
  void step_done(FrameWork& work, uint64_t frame);
  void record_failure();
  void wait_for_buffers();

  std::vector<CpuInstance> instances_;
  ResultTable& table_;
  std::function<void(uint64_t)> handled_;
  unsigned history_ = 0;
  size_t buffer_count_ = 0;
  uint64_t memory_limit_ = 0;
  std::atomic<bool> failed_{false};
  std::mutex error_mutex_;
  std::exception_ptr error_;
  std::vector<std::unique_ptr<Sequencer>> sequencers_;
  // The buffers outlive the pool, whose destructor joins the workers that hand them back, and the
  // recent frames, which hold some of them.
  std::unique_ptr<Buffers> buffers_;
  std::unique_ptr<ThreadPool> pool_;
  std::deque<HeldPair> recent_;  // the last history_ frames, newest first
};

}  // namespace vqx
