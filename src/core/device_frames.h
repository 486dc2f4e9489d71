#pragma once
// Frames that their source keeps in device memory (NVDEC's): the CUDA engine copies each one into
// its own frame buffer on the device, so no decoded sample crosses to the host. Pointers and
// streams are the CUDA runtime's, passed untyped so that core stays free of CUDA.
#include <cstddef>
#include <cstdint>

namespace vqx {

class DeviceFrames {
 public:
  virtual ~DeviceFrames() = default;
  // The caller holds up to `slots` frames at once, each until it asks for its slot again.
  virtual void reserve_slots(size_t slots) = 0;
  // Host side of the next frame (decoding runs ahead on threads of its own): holds it for `slot`,
  // releasing what the slot held. False at the end of the stream; throws as FrameSource::read().
  virtual bool next(size_t slot) = 0;
  // Enqueues on `cuda_stream` (a cudaStream_t) what writes the frame held for `slot` into `out`
  // (device memory, a Picture of the source's format()).
  virtual void enqueue_copy(size_t slot, uint8_t* out, void* cuda_stream) = 0;
};

}  // namespace vqx
