#include "engine/cpu_pass.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <span>

#include "engine/column_writer.h"

namespace vqx {

// Runs one temporal metric's per-frame steps strictly in frame order without blocking a worker:
// a step whose turn has not come is kept and runs on the thread that finishes the step before it.
// Steps must not throw.
class CpuPass::Sequencer {
 public:
  void run_in_order(uint64_t frame, std::function<void()> step) {
    std::unique_lock lock(mutex_);
    if (frame != next_) {
      waiting_.emplace(frame, std::move(step));
      return;
    }
    for (;;) {
      lock.unlock();
      step();
      lock.lock();
      auto it = waiting_.find(++next_);
      if (it == waiting_.end()) return;
      step = std::move(it->second);
      waiting_.erase(it);
    }
  }

 private:
  std::mutex mutex_;
  std::map<uint64_t, std::function<void()>> waiting_;
  uint64_t next_ = 0;
};

// A fixed set of frame buffers handed out to the reading thread and returned by workers.
class CpuPass::Buffers {
 public:
  Buffers(size_t count, const PictureFormat& format) {
    for (size_t i = 0; i < count; ++i) {
      all_.push_back(std::make_unique<FramePair>(FramePair{Picture(format), Picture(format)}));
      free_.push_back(all_.back().get());
    }
  }
  FramePair* take() {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return !free_.empty(); });
    FramePair* p = free_.back();
    free_.pop_back();
    return p;
  }
  void give(FramePair* p) {
    {
      std::lock_guard lock(mutex_);
      free_.push_back(p);
    }
    cv_.notify_all();
  }
  void wait_all_free() {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return free_.size() == all_.size(); });
  }

 private:
  std::vector<std::unique_ptr<FramePair>> all_;
  std::vector<FramePair*> free_;
  std::mutex mutex_;
  std::condition_variable cv_;
};

// A frame's pictures and those it reads of earlier frames. The buffers return to the free list
// when the last step holding them is done: once every buffer is back, no task touches the pass.
struct CpuPass::FrameWork {
  HeldPair pair;
  std::vector<HeldPair> earlier;  // newest first
  std::atomic<size_t> steps_left{1};
};

CpuPass::CpuPass(std::vector<CpuInstance> instances, const PictureFormat& format, unsigned threads,
                 uint64_t memory_limit, ResultTable& table, std::function<void(uint64_t)> handled)
    : instances_(std::move(instances)), table_(table), handled_(std::move(handled)) {
  for (auto& inst : instances_) history_ = std::max(history_, inst.metric->history());
  pool_ = std::make_unique<ThreadPool>(threads);
  const MetricContext context{format, pool_.get()};
  size_t frame_memory = 0;
  for (auto& inst : instances_) {
    inst.metric->init(context);
    frame_memory += inst.metric->frame_memory_bytes();
  }
  memory_limit_ = memory_limit ? memory_limit : default_memory_limit();
  buffer_count_ =
      cpu_frame_buffers(threads, format, frame_memory, history_, memory_limit_) + history_;
  buffers_ = std::make_unique<Buffers>(buffer_count_, format);
  for (size_t i = 0; i < instances_.size(); ++i) sequencers_.push_back(std::make_unique<Sequencer>());
}

CpuPass::~CpuPass() {
  failed_ = true;
  wait_for_buffers();
}

void CpuPass::wait_for_buffers() {
  recent_.clear();
  buffers_->wait_all_free();
}

std::optional<std::string> CpuPass::memory_notice() const {
  if (frames_in_flight() >= pool_->workers()) return std::nullopt;
  return fmt::format(
      "the memory limit of {} (--memory_limit) holds {} frames in flight for {} threads; the other "
      "threads work inside those frames",
      describe_bytes(memory_limit_), frames_in_flight(), pool_->workers());
}

uint64_t cpu_final_lag(const std::vector<CpuInstance>& instances) {
  uint64_t lag = 0;
  for (const auto& inst : instances) lag = std::max(lag, inst.metric->final_lag());
  return lag;
}

FramePair& CpuPass::acquire() { return *buffers_->take(); }

void CpuPass::release(FramePair& pair) { buffers_->give(&pair); }

void CpuPass::record_failure() {
  std::lock_guard lock(error_mutex_);
  if (!error_) error_ = std::current_exception();
  failed_ = true;
}

void CpuPass::step_done(FrameWork& work, uint64_t frame) {
  if (work.steps_left.fetch_sub(1) != 1) return;
  try {
    if (!failed_ && handled_) handled_(frame);
  } catch (...) {
    record_failure();
  }
}

void CpuPass::submit(FramePair& pair, uint64_t frame) {
  auto work = std::make_shared<FrameWork>();
  Buffers* buffers = buffers_.get();
  work->pair = HeldPair(&pair, [buffers](FramePair* p) { buffers->give(p); });
  work->earlier.assign(recent_.begin(), recent_.end());
  if (history_ > 0) {
    recent_.push_front(work->pair);
    if (recent_.size() > history_) recent_.pop_back();
  }
  pool_->submit([this, work, frame] { process(work, frame); });
}

void CpuPass::process(const std::shared_ptr<FrameWork>& work, uint64_t frame) {
  const Picture& ref = work->pair->ref;
  const Picture& dis = work->pair->dis;
  std::vector<EarlierFrame> earlier;
  for (const HeldPair& p : work->earlier) earlier.push_back({&p->ref, &p->dis});
  const bool selected = table_.frame_selected(frame);
  for (auto& inst : instances_) work->steps_left += inst.metric->temporal() ? 1 : 0;
  for (size_t i = 0; i < instances_.size(); ++i) {
    CpuMetric& m = *instances_[i].metric;
    if (!m.temporal()) {
      if (!selected) continue;
      try {
        ColumnWriter out(table_, instances_[i].columns, frame);
        if (!failed_) m.extract(ref, dis, frame, out);
      } catch (...) {
        record_failure();
      }
      continue;
    }
    try {
      const size_t reads = std::min<size_t>(m.history(), earlier.size());
      if (!failed_ && m.history() > 0)
        m.prepare(ref, dis, std::span(earlier).first(reads), frame);
    } catch (...) {
      record_failure();
    }
    // Every frame takes its turn, also after a failure, so that no later step waits forever.
    sequencers_[i]->run_in_order(frame, [this, work, i, frame, metric = &m] {
      try {
        ColumnWriter out(table_, instances_[i].columns, frame);
        if (!failed_) metric->extract(work->pair->ref, work->pair->dis, frame, out);
      } catch (...) {
        record_failure();
      }
      step_done(*work, frame);
    });
  }
  step_done(*work, frame);
}

void CpuPass::finish() {
  wait_for_buffers();
  if (error_) std::rethrow_exception(error_);
  for (auto& inst : instances_) {
    ColumnWriter out(table_, inst.columns, ResultTable::kFlushCall);
    inst.metric->flush(out);
  }
}

}  // namespace vqx
