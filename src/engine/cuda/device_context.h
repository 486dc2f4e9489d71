#pragma once
// One CUDA device for a run: selection, tracked device allocations (current and peak bytes, for
// --profile) and RAII holders for device and pinned host memory. Allocation happens once per
// geometry, in the metrics' init() and the engine's setup, never per frame.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>

#include "core/error.h"

namespace vqx::cuda {

// Device memory ran out: a RuntimeFailure the engine may answer by running fewer frames at once.
class DeviceMemoryExhausted : public RuntimeFailure {
 public:
  using RuntimeFailure::RuntimeFailure;
};

class DeviceContext {
 public:
  // Makes `device` current; throws RuntimeFailure when it does not exist or cannot be used.
  explicit DeviceContext(int device);
  DeviceContext(const DeviceContext&) = delete;
  DeviceContext& operator=(const DeviceContext&) = delete;

  int device() const { return device_; }
  const cudaDeviceProp& properties() const { return properties_; }
  std::string describe() const;  // "device 0 (NVIDIA H200)"

  // Device memory; throws DeviceMemoryExhausted naming `what`, the size and the free memory.
  void* allocate(size_t bytes, const char* what);
  void release(void* pointer, size_t bytes);
  size_t bytes_in_use() const { return in_use_; }
  size_t peak_bytes() const { return peak_; }

 private:
  int device_;
  cudaDeviceProp properties_{};
  size_t in_use_ = 0;
  size_t peak_ = 0;
};

// Set-up copies and clears that are complete when they return. A plain cudaMemcpy from pageable
// memory may return before its DMA lands, and cudaMemset is asynchronous; both run on the legacy
// stream, which the non-blocking streams metrics enqueue on do not wait for.
void copy_to_device_now(void* device_dst, const void* host_src, size_t bytes, const char* what);
void clear_device_now(void* device_dst, size_t bytes, const char* what);

// Device memory owned by a DeviceContext allocation.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(DeviceContext& context, size_t bytes, const char* what)
      : context_(&context), bytes_(bytes), data_(context.allocate(bytes, what)) {}
  DeviceBuffer(DeviceBuffer&& o) noexcept { *this = std::move(o); }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(context_, o.context_);
    std::swap(bytes_, o.bytes_);
    std::swap(data_, o.data_);
    return *this;
  }
  ~DeviceBuffer() {
    if (data_) context_->release(data_, bytes_);
  }
  template <typename T = void>
  T* get() const {
    return static_cast<T*>(data_);
  }
  size_t bytes() const { return bytes_; }

 private:
  DeviceContext* context_ = nullptr;
  size_t bytes_ = 0;
  void* data_ = nullptr;
};

// Page-locked host memory (so copies run at full bus speed and asynchronously).
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(size_t bytes, const char* what);
  PinnedBuffer(PinnedBuffer&& o) noexcept { *this = std::move(o); }
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    std::swap(bytes_, o.bytes_);
    std::swap(data_, o.data_);
    return *this;
  }
  ~PinnedBuffer();
  uint8_t* get() const { return data_; }
  size_t bytes() const { return bytes_; }

 private:
  size_t bytes_ = 0;
  uint8_t* data_ = nullptr;
};

// A CUDA event or stream with RAII.
class Event {
 public:
  // Events that only order streams (fork, join) need no timestamp: timing=false is cheaper.
  explicit Event(bool timing = true);
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event();
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

class Stream {
 public:
  // kHighest: the device's greatest stream priority, for side work that should start before
  // queued work of the default-priority streams.
  enum class Priority { kDefault, kHighest };
  explicit Stream(Priority priority = Priority::kDefault);
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream();
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// An instantiated CUDA graph with RAII. capture() records what `enqueue` puts on `stream` (work
// it forks to other streams included, as long as it joins them back) and instantiates it; an
// exception from `enqueue` ends the capture and propagates.
class GraphExec {
 public:
  GraphExec() = default;
  GraphExec(GraphExec&& o) noexcept { std::swap(exec_, o.exec_); }
  GraphExec& operator=(GraphExec&& o) noexcept {
    std::swap(exec_, o.exec_);
    return *this;
  }
  ~GraphExec();
  static GraphExec capture(cudaStream_t stream, const std::function<void()>& enqueue);
  explicit operator bool() const { return exec_ != nullptr; }
  void launch(cudaStream_t stream) const;

 private:
  cudaGraphExec_t exec_ = nullptr;
};

// Milliseconds between two completed events.
float elapsed_ms(const Event& begin, const Event& end);

}  // namespace vqx::cuda
