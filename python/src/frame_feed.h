#pragma once
// One input of a vqx.Scorer: frames handed over one at a time by the Python thread and read by
// the engine, which runs on a thread of its own for the whole clip so that temporal metrics see
// every frame in order across calls. Host frames are copied in and read through read(); frames
// in device memory are read in place through DeviceFrames, so the CUDA engine copies them
// device to device into its frame buffers and no sample crosses to the host.
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "core/frame_source.h"
#include "core/picture.h"

namespace vqx::python {

// A frame in device memory: each plane's first sample and row pitch in bytes (rows of
// plane_width samples, tight or padded), and the CUDA event that marks it written (recorded on
// the producer's stream).
struct DeviceFrame {
  const uint8_t* planes[3] = {nullptr, nullptr, nullptr};
  size_t pitch[3] = {0, 0, 0};
  void* ready = nullptr;  // cudaEvent_t
  uint64_t token = 0;     // names the Python objects that own the memory
};

// A device frame the engine no longer reads: its owners may go once `copied` has completed.
struct ReleasedFrame {
  uint64_t token = 0;
  void* ready = nullptr;   // cudaEvent_t, to destroy
  void* copied = nullptr;  // cudaEvent_t recorded after the engine's copy, or null
};

class FrameFeed final : public FrameSource, private DeviceFrames {
 public:
  FrameFeed(std::string name, const PictureFormat& format, size_t capacity);
  ~FrameFeed() override;

  const PictureFormat& format() const override { return format_; }
  bool read(Picture& picture) override;
  DeviceFrames* device_frames() override { return device_ ? this : nullptr; }

  // Before the engine starts: whether frames come in device memory.
  void set_device(bool device) { device_ = device; }

  // Producer side. Each blocks while `capacity` frames wait; returns false when the feed was
  // aborted (the engine failed or the scorer goes away) and the frame was not taken.
  bool push(Picture picture);
  bool push(const DeviceFrame& frame);
  // A host picture to fill and push, recycled from frames the engine has read.
  Picture blank();
  // No more frames: read() and next() return false once the queue is empty.
  void close();
  // Wakes every waiter; later pushes and reads fail.
  void abort();

  // Device frames the engine is done with, for the Python thread to release.
  std::vector<ReleasedFrame> take_released();

  uint64_t host_frames_read() const { return host_reads_; }
  uint64_t device_frames_copied() const { return device_copies_; }

 private:
  // DeviceFrames
  void reserve_slots(size_t slots) override;
  bool next(size_t slot) override;
  void enqueue_copy(size_t slot, uint8_t* out, void* cuda_stream) override;

  PictureFormat format_;
  size_t capacity_;
  bool device_ = false;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Picture> host_queue_;
  std::vector<Picture> spare_;  // host pictures already read, for blank()
  std::deque<DeviceFrame> device_queue_;
  std::vector<DeviceFrame> slots_;       // what each engine slot holds (token 0: nothing)
  std::vector<void*> copied_;            // per slot: the event after its copy, or null
  std::vector<ReleasedFrame> released_;
  bool closed_ = false;
  bool aborted_ = false;
  std::atomic<uint64_t> host_reads_ = 0;
  std::atomic<uint64_t> device_copies_ = 0;
};

// CUDA steps of device frames (device_feed.cpp); without CUDA they throw RuntimeFailure.
namespace device {
bool built();
// Records an event on `stream` (a cudaStream_t; 0 the legacy default stream) of `gpu`.
void* record_ready(int gpu, uintptr_t stream);
// Enqueues on `stream` the wait for frame.ready and the copy of every plane into `out` (a Picture
// of `format` in device memory); returns the event recorded after it.
void* enqueue_copy(const DeviceFrame& frame, const PictureFormat& format, uint8_t* out, void* stream);
// Waits for `copied` (when not null) and destroys both events.
void release(const ReleasedFrame& frame);
}  // namespace device

}  // namespace vqx::python
