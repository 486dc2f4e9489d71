#pragma once
// --scale on the CPU: libswscale itself, called as
// `ffmpeg -vf scale=W:H:flags=<mode>+accurate_rnd+bitexact` calls it for progressive frames (one
// context, the same planar format in and out, SWS_ACCURATE_RND | SWS_BITEXACT, so the pixels do
// not depend on the machine's SIMD). The CUDA twin (engine/cuda/device_scaler.h) gives the same
// samples; core/scale_filter.h holds the modes.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

#include "core/frame_source.h"
#include "core/picture.h"
#include "core/scale_filter.h"

struct SwsContext;

namespace vqx {

class PictureScaler {
 public:
  // Pictures of format `in` to `width` x `height`. Throws InputError for pictures libswscale has
  // no planar Y'CbCr format for (RGB from PNG; depths 11, 13 and 15).
  PictureScaler(const PictureFormat& in, uint32_t width, uint32_t height, ScaleMode mode);
  ~PictureScaler();
  PictureScaler(const PictureScaler&) = delete;
  PictureScaler& operator=(const PictureScaler&) = delete;

  const PictureFormat& output_format() const { return out_; }
  void scale(const Picture& in, Picture& out);

 private:
  static constexpr size_t kRowAlignment = 64;
  // Storage from `new (std::align_val_t(kRowAlignment)) uint8_t[]` is freed with the same
  // alignment (a plain delete[] is a new/delete mismatch).
  struct AlignedDelete {
    void operator()(uint8_t* p) const { ::operator delete[](p, std::align_val_t(kRowAlignment)); }
  };
  // libswscale's SIMD reads and writes past the last sample of a row (and row), as FFmpeg's
  // frames allow: the planes it works on are padded copies.
  struct PaddedPlanes {
    std::unique_ptr<uint8_t[], AlignedDelete> storage;
    uint8_t* data[4] = {};
    int stride[4] = {};
  };
  static PaddedPlanes padded(const PictureFormat& format);

  PictureFormat in_, out_;
  SwsContext* context_ = nullptr;
  PaddedPlanes source_, destination_;
};

// The frames of `source` scaled to `width` x `height`; the same frames when the size is already
// that. Throws as PictureScaler.
std::unique_ptr<FrameSource> scale_frames(std::unique_ptr<FrameSource> source, uint32_t width,
                                          uint32_t height, ScaleMode mode);

}  // namespace vqx
