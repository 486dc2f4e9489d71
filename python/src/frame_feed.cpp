#include "frame_feed.h"

#include <cstring>

namespace vqx::python {

FrameFeed::FrameFeed(std::string name, const PictureFormat& format, size_t capacity)
    : FrameSource(std::move(name)), format_(format), capacity_(capacity) {}

FrameFeed::~FrameFeed() {
  for (const ReleasedFrame& frame : take_released()) device::release(frame);
}

bool FrameFeed::read(Picture& picture) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return aborted_ || closed_ || !host_queue_.empty(); });
  if (aborted_ || host_queue_.empty()) return false;
  Picture frame = std::move(host_queue_.front());
  host_queue_.pop_front();
  changed_.notify_all();
  lock.unlock();
  std::memcpy(picture.bytes(), frame.bytes(), frame.size_bytes());
  lock.lock();
  ++host_reads_;
  ++frames_read_;
  if (spare_.size() < capacity_) spare_.push_back(std::move(frame));
  return true;
}

Picture FrameFeed::blank() {
  {
    std::lock_guard lock(mutex_);
    if (!spare_.empty()) {
      Picture picture = std::move(spare_.back());
      spare_.pop_back();
      return picture;
    }
  }
  return Picture(format_);
}

bool FrameFeed::push(Picture picture) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return aborted_ || host_queue_.size() < capacity_; });
  if (aborted_) return false;
  host_queue_.push_back(std::move(picture));
  changed_.notify_all();
  return true;
}

bool FrameFeed::push(const DeviceFrame& frame) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return aborted_ || device_queue_.size() < capacity_; });
  if (aborted_) return false;
  device_queue_.push_back(frame);
  changed_.notify_all();
  return true;
}

void FrameFeed::close() {
  std::lock_guard lock(mutex_);
  closed_ = true;
  changed_.notify_all();
}

void FrameFeed::abort() {
  std::lock_guard lock(mutex_);
  aborted_ = true;
  changed_.notify_all();
}

std::vector<ReleasedFrame> FrameFeed::take_released() {
  std::lock_guard lock(mutex_);
  std::vector<ReleasedFrame> out;
  out.swap(released_);
  // After the run (or an abort) the engine asks for nothing more: what the slots and the queue
  // hold goes too.
  if (closed_ || aborted_) {
    for (size_t s = 0; s < slots_.size(); ++s)
      if (slots_[s].token) {
        out.push_back({slots_[s].token, slots_[s].ready, copied_[s]});
        slots_[s] = DeviceFrame{};
        copied_[s] = nullptr;
      }
    if (aborted_) {
      for (const DeviceFrame& frame : device_queue_) out.push_back({frame.token, frame.ready, nullptr});
      device_queue_.clear();
    }
  }
  return out;
}

void FrameFeed::reserve_slots(size_t slots) {
  std::lock_guard lock(mutex_);
  slots_.resize(slots);
  copied_.resize(slots, nullptr);
}

bool FrameFeed::next(size_t slot) {
  std::unique_lock lock(mutex_);
  if (slots_[slot].token) {
    released_.push_back({slots_[slot].token, slots_[slot].ready, copied_[slot]});
    slots_[slot] = DeviceFrame{};
    copied_[slot] = nullptr;
  }
  changed_.wait(lock, [&] { return aborted_ || closed_ || !device_queue_.empty(); });
  if (aborted_ || device_queue_.empty()) return false;
  slots_[slot] = device_queue_.front();
  device_queue_.pop_front();
  ++frames_read_;
  changed_.notify_all();
  return true;
}

void FrameFeed::enqueue_copy(size_t slot, uint8_t* out, void* cuda_stream) {
  DeviceFrame frame;
  {
    std::lock_guard lock(mutex_);
    frame = slots_[slot];
  }
  void* copied = device::enqueue_copy(frame, format_, out, cuda_stream);
  std::lock_guard lock(mutex_);
  if (copied_[slot]) released_.push_back({0, nullptr, copied_[slot]});  // a second copy of one slot
  copied_[slot] = copied;
  ++device_copies_;
}

}  // namespace vqx::python
