#include "engine/engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <exception>
#include <mutex>

#include "engine/column_writer.h"
#include "engine/cuda_backend.h"
#include "engine/final_frames.h"
#include "core/error.h"
#include "core/thread_pool.h"

namespace vqx {
namespace {

// Runs one temporal metric's per-frame steps strictly in frame order without blocking a worker:
// a step whose turn has not come is kept and runs on the thread that finishes the step before it.
// Steps must not throw.
class FrameSequencer {
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

struct FramePair {
  Picture ref, dis;
};

// A fixed set of frame buffers handed out to the reading thread and returned by workers.
class BufferPool {
 public:
  BufferPool(size_t count, const PictureFormat& format) {
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

uint64_t run_final_lag(const std::vector<CpuInstance>& instances) {
  uint64_t lag = 0;
  for (const auto& inst : instances) lag = std::max(lag, inst.metric->final_lag());
  return lag;
}

std::unique_ptr<RunReport> run_cpu(FrameSource& reference, FrameSource& distorted,
                                   const std::vector<MetricRequest>& requests,
                                   const RunSettings& settings) {
  auto report = std::make_unique<RunReport>();
  report->backend = "cpu";
  report->format = reference.format();
  ResultTable& table = report->table;
  table.set_subsample(settings.subsample);

  auto instances = make_cpu_instances(requests, table);
  unsigned history = 0;
  for (auto& inst : instances) history = std::max(history, inst.metric->history());
  // The buffers outlive the pool, whose destructor joins the workers that hand them back. The
  // last `history` frames stay held for the metrics that read them.
  const size_t in_flight = cpu_frame_buffers(settings.threads, reference.format());
  BufferPool buffers(in_flight + history, reference.format());
  ThreadPool pool(settings.threads);
  MetricContext context{reference.format(), &pool};
  for (auto& inst : instances) inst.metric->init(context);

  std::vector<std::unique_ptr<FrameSequencer>> sequencers;
  for (size_t i = 0; i < instances.size(); ++i)
    sequencers.push_back(std::make_unique<FrameSequencer>());

  skip_frames(reference, settings.skip_ref);
  skip_frames(distorted, settings.skip_dist);

  auto start = std::chrono::steady_clock::now();
  std::mutex error_mutex;
  std::exception_ptr error;
  std::atomic<bool> failed{false};

  auto record_failure = [&] {
    std::lock_guard lock(error_mutex);
    if (!error) error = std::current_exception();
    failed = true;
  };
  FinalFrames finals(run_final_lag(instances), final_frame_listener(settings, table));

  // A frame's pictures and those it reads of earlier frames. The buffers return to `buffers` when
  // the last step holding them is done: once every buffer is back, no task touches the run's state.
  using HeldPair = std::shared_ptr<FramePair>;
  struct FrameWork {
    HeldPair pair;
    std::vector<HeldPair> earlier;  // newest first
    std::atomic<size_t> steps_left{1};
  };
  auto step_done = [&](FrameWork& work, uint64_t frame) {
    if (work.steps_left.fetch_sub(1) != 1) return;
    try {
      if (!failed) finals.handled(frame);
    } catch (...) {
      record_failure();
    }
  };
  auto process = [&](const std::shared_ptr<FrameWork>& work, uint64_t frame) {
    const Picture& ref = work->pair->ref;
    const Picture& dis = work->pair->dis;
    std::vector<EarlierFrame> earlier;
    for (const HeldPair& p : work->earlier) earlier.push_back({&p->ref, &p->dis});
    bool selected = table.frame_selected(frame);
    for (auto& inst : instances) work->steps_left += inst.metric->temporal() ? 1 : 0;
    for (size_t i = 0; i < instances.size(); ++i) {
      CpuMetric& m = *instances[i].metric;
      if (!m.temporal()) {
        if (!selected) continue;
        try {
          ColumnWriter out(table, instances[i].columns, frame);
          if (!failed) m.extract(ref, dis, frame, out);
        } catch (...) {
          record_failure();
        }
        continue;
      }
      try {
        const size_t reads = std::min<size_t>(m.history(), earlier.size());
        if (!failed && m.history() > 0)
          m.prepare(ref, dis, std::span(earlier).first(reads), frame);
      } catch (...) {
        record_failure();
      }
      // Every frame takes its turn, also after a failure, so that no later step waits forever.
      sequencers[i]->run_in_order(frame, [&, work, i, frame, metric = &m] {
        try {
          ColumnWriter out(table, instances[i].columns, frame);
          if (!failed) metric->extract(work->pair->ref, work->pair->dis, frame, out);
        } catch (...) {
          record_failure();
        }
        step_done(*work, frame);
      });
    }
    step_done(*work, frame);
  };

  uint64_t frame = 0;
  std::deque<HeldPair> recent;  // the last `history` frames, newest first
  try {
    while (!failed && (settings.frame_cnt == 0 || frame < settings.frame_cnt)) {
      FramePair* pair = buffers.take();
      bool have_ref = false, have_dis = false;
      try {
        have_ref = reference.read(pair->ref);
        have_dis = distorted.read(pair->dis);
      } catch (...) {
        buffers.give(pair);
        throw;
      }
      if (!have_ref || !have_dis) {
        buffers.give(pair);
        if (have_ref != have_dis && settings.warn)
          settings.warn(fmt::format("{} ended before {}; scoring the first {} frames",
                                    have_ref ? distorted.name() : reference.name(),
                                    have_ref ? reference.name() : distorted.name(), frame));
        break;
      }
      uint64_t index = frame++;
      if (settings.progress) settings.progress(frame);
      auto work = std::make_shared<FrameWork>();
      work->pair = HeldPair(pair, [&buffers](FramePair* p) { buffers.give(p); });
      work->earlier.assign(recent.begin(), recent.end());
      if (history > 0) {
        recent.push_front(work->pair);
        if (recent.size() > history) recent.pop_back();
      }
      if (settings.frame_read) settings.frame_read(index, work->pair->ref, work->pair->dis, table);
      pool.submit([&, work, index] { process(work, index); });
    }
  } catch (...) {
    failed = true;
    recent.clear();
    buffers.wait_all_free();
    throw;
  }
  recent.clear();
  buffers.wait_all_free();
  if (error) std::rethrow_exception(error);
  if (frame == 0) throw InputError("no frames to score: the inputs hold no frame after skipping");
  table.set_frame_count(frame);
  for (auto& inst : instances) {
    ColumnWriter out(table, inst.columns, ResultTable::kFlushCall);
    inst.metric->flush(out);
  }
  finals.finish(frame);
  report->wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace

FinalFrames::Listener final_frame_listener(const RunSettings& settings, const ResultTable& table) {
  if (!settings.frame_final) return {};
  return [&settings, &table](uint64_t frame) { settings.frame_final(frame, table); };
}

size_t cpu_frame_buffers(unsigned threads, const PictureFormat& format) {
  if (threads == 0) return 1;
  constexpr size_t kBudgetBytes = size_t{2} << 30;
  const size_t by_memory = kBudgetBytes / std::max<size_t>(1, 2 * format.frame_bytes());
  return std::clamp<size_t>(by_memory, 2, size_t{threads} * 2);
}

void skip_frames(FrameSource& reader, uint64_t count) {
  if (count == 0) return;
  uint64_t skipped = reader.skip(count);
  if (skipped < count)
    throw InputError(fmt::format("{}: cannot skip {} frames, it has only {}", reader.name(), count,
                                 skipped));
}

// `scaled`: the distorted frames are scaled to the reference's size on the way (CUDA --scale).
void check_same_layout(const FrameSource& reference, const FrameSource& distorted, bool scaled) {
  const PictureFormat& r = reference.format();
  const PictureFormat& d = distorted.format();
  if (!scaled && (r.width != d.width || r.height != d.height))
    throw InputError(fmt::format("geometry mismatch: reference is {}x{}, distorted is {}x{}",
                                 r.width, r.height, d.width, d.height));
  if (r.subsampling != d.subsampling)
    throw InputError(fmt::format("chroma format mismatch: reference is {}, distorted is {}",
                                 to_string(r.subsampling), to_string(d.subsampling)));
  if (r.color != d.color)
    throw InputError("colour model mismatch: one input is RGB (PNG), the other Y'CbCr");
  if (r.bit_depth != d.bit_depth)
    throw InputError(fmt::format("bit depth mismatch: reference is {}-bit, distorted is {}-bit",
                                 r.bit_depth, d.bit_depth));
}

std::vector<size_t> add_columns(ResultTable& table, const std::vector<std::string>& names,
                                const std::string& spec_text) {
  std::vector<size_t> columns;
  for (const auto& name : names) {
    if (table.find_feature(name))
      throw UsageError(fmt::format(
          "feature '{}' would write '{}' a second time; give each instance options that name its "
          "outputs differently",
          spec_text, name));
    columns.push_back(table.add_feature(name));
  }
  return columns;
}

std::vector<CpuInstance> make_cpu_instances(const std::vector<MetricRequest>& requests,
                                            ResultTable& table) {
  std::vector<CpuInstance> instances;
  for (const auto& req : requests) {
    CpuInstance inst;
    inst.metric = req.metric->make_cpu(req.options);
    inst.columns = add_columns(table, inst.metric->feature_names(), req.spec_text);
    instances.push_back(std::move(inst));
  }
  return instances;
}

BackendChoice choose_backend(const std::vector<MetricRequest>& requests,
                             const RunSettings& settings) {
  const unsigned threads = std::max(1u, settings.threads);
  const std::string cpu = fmt::format("cpu ({} thread{}", threads, threads == 1 ? "" : "s");
  if (settings.backend == Backend::kCpu) return {Backend::kCpu, cpu + ")"};
#ifdef VQX_HAVE_CUDA
  constexpr bool kHaveCuda = true;
#else
  constexpr bool kHaveCuda = false;
#endif
  const std::string no_device =
      kHaveCuda ? fmt::format("no usable CUDA device {}", settings.gpu)
                : std::string("this vqx was built without CUDA (configure with VQX_CUDA=ON)");
  const bool device = cuda_device_available(settings.gpu);
  const MetricRequest* without_twin = nullptr;
  for (const auto& r : requests)
    if (!r.metric->make_cuda && !without_twin) without_twin = &r;
  if (settings.backend == Backend::kCuda) {
    if (!device)
      throw RuntimeFailure(fmt::format("--backend cuda --gpu {}: {}{}", settings.gpu, no_device,
                                       kHaveCuda ? " (no such index, or no driver)" : ""));
    if (without_twin)
      throw UsageError(fmt::format("feature '{}' has no CUDA implementation yet; use --backend cpu",
                                   without_twin->metric->name));
  } else {
    if (!device) return {Backend::kCpu, fmt::format("{}; {})", cpu, no_device)};
    if (without_twin)
      return {Backend::kCpu,
              fmt::format("{}; '{}' has no CUDA implementation)", cpu, without_twin->spec_text)};
  }
  return {Backend::kCuda,
          fmt::format("cuda ({}, device {})", cuda_device_name(settings.gpu), settings.gpu)};
}

std::unique_ptr<RunReport> run_metrics(FrameSource& reference, FrameSource& distorted,
                                       const std::vector<MetricRequest>& requests,
                                       const RunSettings& settings) {
  if (requests.empty()) throw UsageError("no feature requested; add --feature NAME");
  check_same_layout(reference, distorted, settings.scale.has_value());
  const BackendChoice choice = choose_backend(requests, settings);
  if (choice.backend != Backend::kCuda) check_same_layout(reference, distorted, false);
  if (settings.backend_chosen) settings.backend_chosen(choice);
  if (choice.backend == Backend::kCuda) return run_cuda(reference, distorted, requests, settings);
  return run_cpu(reference, distorted, requests, settings);
}

}  // namespace vqx
