#include "engine/cuda/frame_upload.h"

#include <fmt/format.h>

#include "engine/cuda/cuda_check.h"
#include "engine/cuda/metric_instances.h"

namespace vqx::cuda {

size_t frame_stride(const PictureFormat& format) { return align_block(format.frame_bytes()); }

HostFrameUpload::HostFrameUpload(FrameSource& reference, FrameSource& distorted,
                                 size_t slot_count, std::function<void(const std::string&)> warn)
    : reference_(reference),
      distorted_(distorted),
      warn_(std::move(warn)),
      readers_(1),
      frame_bytes_(reference.format().frame_bytes()),
      stride_(frame_stride(reference.format())) {
  const PictureFormat& format = reference.format();
  slots_.reserve(slot_count);
  for (size_t i = 0; i < slot_count; ++i) {
    Staging s;
    s.pair = PinnedBuffer(2 * stride_, "frame buffers");
    s.ref = Picture(format, {s.pair.get(), frame_bytes_});
    s.dis = Picture(format, {s.pair.get() + stride_, frame_bytes_});
    slots_.push_back(std::move(s));
  }
}

bool HostFrameUpload::read(size_t slot, uint64_t index) {
  Staging& s = slots_[slot];
  bool have[2] = {false, false};
  readers_.parallel_for(2, 1, [&](size_t begin, size_t) {
    have[begin] = begin == 0 ? reference_.read(s.ref) : distorted_.read(s.dis);
  });
  if (have[0] && have[1]) return true;
  if (have[0] != have[1] && warn_)
    warn_(fmt::format("{} ended before {}; scoring the first {} frames",
                      have[0] ? distorted_.name() : reference_.name(),
                      have[0] ? reference_.name() : distorted_.name(), index));
  return false;
}

void HostFrameUpload::upload(size_t slot, uint8_t* device_pair, cudaStream_t stream) {
  // One copy for both pictures: the host buffer has the device buffer's layout.
  check(cudaMemcpyAsync(device_pair, slots_[slot].pair.get(), stride_ + frame_bytes_,
                        cudaMemcpyHostToDevice, stream),
        "frame upload");
}

}  // namespace vqx::cuda
