#include "engine/cuda/frame_upload.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"
#include "engine/cuda/cuda_check.h"
#include "engine/cuda/metric_instances.h"

namespace vqx::cuda {

size_t frame_stride(const PictureFormat& format) { return align_block(format.frame_bytes()); }

InputsUpload::InputsUpload(DeviceContext& device, FrameSource& reference, FrameSource& distorted,
                           size_t slot_count, std::optional<ScaleMode> scale,
                           std::function<void(const std::string&)> warn)
    : inputs_{&reference, &distorted},
      device_frames_{reference.device_frames(), distorted.device_frames()},
      warn_(std::move(warn)),
      readers_(1),
      stride_(frame_stride(reference.format())) {
  const PictureFormat& ref = reference.format();
  const PictureFormat& dis = distorted.format();
  if (dis.width != ref.width || dis.height != ref.height) {
    if (!scale)
      throw InputError(fmt::format("geometry mismatch: reference is {}x{}, distorted is {}x{}",
                                   ref.width, ref.height, dis.width, dis.height));
    scaler_.emplace(device, dis, ref, *scale);
    rung_ = DeviceBuffer(device, dis.frame_bytes(), "distorted frames before scaling");
  }
  staging_stride_ = std::max(stride_, frame_stride(dis));
  slots_.reserve(slot_count);
  for (size_t i = 0; i < slot_count; ++i) {
    Staging s;
    s.pair = PinnedBuffer(staging_stride_ + dis.frame_bytes(), "frame buffers");
    s.pictures[0] = Picture(ref, {s.pair.get(), ref.frame_bytes()});
    s.pictures[1] = Picture(dis, {s.pair.get() + staging_stride_, dis.frame_bytes()});
    slots_.push_back(std::move(s));
  }
  for (DeviceFrames* frames : device_frames_)
    if (frames) frames->reserve_slots(slot_count);
}

bool InputsUpload::read(size_t slot, uint64_t index) {
  Staging& s = slots_[slot];
  bool have[2] = {false, false};
  readers_.parallel_for(2, 1, [&](size_t i, size_t) {
    have[i] = device_frames_[i] ? device_frames_[i]->next(slot) : inputs_[i]->read(s.pictures[i]);
  });
  if (have[0] && have[1]) return true;
  if (have[0] != have[1] && warn_)
    warn_(fmt::format("{} ended before {}; scoring the first {} frames",
                      inputs_[have[0] ? 1 : 0]->name(), inputs_[have[0] ? 0 : 1]->name(), index));
  return false;
}

const Picture* InputsUpload::host_picture(size_t slot, size_t input) const {
  return device_frames_[input] ? nullptr : &slots_[slot].pictures[input];
}

void InputsUpload::upload_input(size_t i, size_t slot, uint8_t* out, cudaStream_t stream) {
  if (device_frames_[i]) {
    device_frames_[i]->enqueue_copy(slot, out, stream);
    return;
  }
  const Picture& picture = slots_[slot].pictures[i];
  check(cudaMemcpyAsync(out, picture.bytes(), picture.size_bytes(), cudaMemcpyHostToDevice, stream),
        "frame upload");
}

void InputsUpload::upload(size_t slot, uint8_t* device_pair, cudaStream_t stream) {
  if (!scaler_ && !device_frames_[0] && !device_frames_[1]) {
    // One copy for both pictures: the host buffer has the device buffer's layout.
    check(cudaMemcpyAsync(device_pair, slots_[slot].pair.get(),
                          stride_ + slots_[slot].pictures[1].size_bytes(), cudaMemcpyHostToDevice,
                          stream),
          "frame upload");
    return;
  }
  upload_input(0, slot, device_pair, stream);
  if (!scaler_) {
    upload_input(1, slot, device_pair + stride_, stream);
    return;
  }
  // One rung buffer serves every frame: the copy stream runs the uploads and scales in order.
  upload_input(1, slot, rung_.get<uint8_t>(), stream);
  scaler_->enqueue(rung_.get<uint8_t>(), device_pair + stride_, stream);
}

}  // namespace vqx::cuda
