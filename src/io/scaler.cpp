#include "io/scaler.h"

extern "C" {
#include <libswscale/swscale.h>
}

#include <fmt/format.h>

#include <cstring>

#include "core/error.h"

namespace vqx {
namespace {

std::optional<AVPixelFormat> planar_format(const PictureFormat& f) {
  if (f.color != ColorModel::kYCbCr) return std::nullopt;
  const int index = f.bit_depth == 8 ? 0 : f.bit_depth == 9 ? 1 : f.bit_depth == 10 ? 2
                  : f.bit_depth == 12 ? 3 : f.bit_depth == 14 ? 4 : f.bit_depth == 16 ? 5 : -1;
  if (index < 0) return std::nullopt;
  static constexpr AVPixelFormat kFormats[4][6] = {
      {AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUV420P9LE, AV_PIX_FMT_YUV420P10LE, AV_PIX_FMT_YUV420P12LE,
       AV_PIX_FMT_YUV420P14LE, AV_PIX_FMT_YUV420P16LE},
      {AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUV422P9LE, AV_PIX_FMT_YUV422P10LE, AV_PIX_FMT_YUV422P12LE,
       AV_PIX_FMT_YUV422P14LE, AV_PIX_FMT_YUV422P16LE},
      {AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUV444P9LE, AV_PIX_FMT_YUV444P10LE, AV_PIX_FMT_YUV444P12LE,
       AV_PIX_FMT_YUV444P14LE, AV_PIX_FMT_YUV444P16LE},
      {AV_PIX_FMT_GRAY8, AV_PIX_FMT_GRAY9LE, AV_PIX_FMT_GRAY10LE, AV_PIX_FMT_GRAY12LE, AV_PIX_FMT_GRAY14LE,
       AV_PIX_FMT_GRAY16LE}};
  return kFormats[int(f.subsampling)][index];
}

int mode_flag(ScaleMode mode) {
  switch (mode) {
    case ScaleMode::kBicubic: return SWS_BICUBIC;
    case ScaleMode::kBilinear: return SWS_BILINEAR;
    case ScaleMode::kLanczos: return SWS_LANCZOS;
    case ScaleMode::kSpline: return SWS_SPLINE;
    case ScaleMode::kNeighbor: return SWS_POINT;
  }
  return SWS_BICUBIC;
}

static_assert(int(ChromaSubsampling::k420) == 0 && int(ChromaSubsampling::k422) == 1 &&
              int(ChromaSubsampling::k444) == 2 && int(ChromaSubsampling::k400) == 3);

class ScaledSource final : public FrameSource {
 public:
  ScaledSource(std::unique_ptr<FrameSource> source, uint32_t width, uint32_t height, ScaleMode mode)
      : FrameSource(source->name()),
        source_(std::move(source)),
        scaler_(source_->format(), width, height, mode),
        native_(source_->format()) {}

  const PictureFormat& format() const override { return scaler_.output_format(); }

  bool read(Picture& picture) override {
    if (!source_->read(native_)) return false;
    scaler_.scale(native_, picture);
    ++frames_read_;
    return true;
  }

 private:
  std::unique_ptr<FrameSource> source_;
  PictureScaler scaler_;
  Picture native_;
};

}  // namespace

PictureScaler::PictureScaler(const PictureFormat& in, uint32_t width, uint32_t height, ScaleMode mode)
    : in_(in), out_(in) {
  out_.width = width;
  out_.height = height;
  auto format = planar_format(in);
  if (!format)
    throw InputError(fmt::format("--scale: libswscale cannot scale {} pictures{}", in.describe(),
                                 in.color == ColorModel::kRGB ? " (RGB)" : ""));
  validate_format(out_, "--scale");
  context_ = sws_getContext(int(in.width), int(in.height), *format, int(width), int(height), *format,
                            mode_flag(mode) | SWS_ACCURATE_RND | SWS_BITEXACT, nullptr, nullptr, nullptr);
  if (!context_)
    throw InputError(fmt::format("--scale {}: libswscale cannot scale {} to {}x{}", to_string(mode),
                                 in.describe(), width, height));
  source_ = padded(in_);
  destination_ = padded(out_);
}

PictureScaler::~PictureScaler() { sws_freeContext(context_); }

PictureScaler::PaddedPlanes PictureScaler::padded(const PictureFormat& f) {
  PaddedPlanes planes;
  size_t offsets[4] = {}, total = 0;
  for (unsigned p = 0; p < f.plane_count(); ++p) {
    planes.stride[p] = int((f.plane_width(p) * f.bytes_per_sample() + kRowAlignment - 1) / kRowAlignment *
                           kRowAlignment);
    offsets[p] = total;
    total += size_t(planes.stride[p]) * (f.plane_height(p) + 2) + kRowAlignment;
  }
  planes.storage.reset(new (std::align_val_t(kRowAlignment)) uint8_t[total + kRowAlignment]());
  for (unsigned p = 0; p < f.plane_count(); ++p) planes.data[p] = planes.storage.get() + offsets[p];
  return planes;
}

void PictureScaler::scale(const Picture& in, Picture& out) {
  const size_t bytes = in_.bytes_per_sample();
  for (unsigned p = 0; p < in_.plane_count(); ++p) {
    const size_t row = size_t{in_.plane_width(p)} * bytes;
    for (uint32_t y = 0; y < in_.plane_height(p); ++y)
      std::memcpy(source_.data[p] + size_t(y) * source_.stride[p], in.bytes() + in_.plane_offset(p) + y * row, row);
  }
  sws_scale(context_, source_.data, source_.stride, 0, int(in_.height), destination_.data, destination_.stride);
  for (unsigned p = 0; p < out_.plane_count(); ++p) {
    const size_t row = size_t{out_.plane_width(p)} * bytes;
    for (uint32_t y = 0; y < out_.plane_height(p); ++y)
      std::memcpy(out.bytes() + out_.plane_offset(p) + y * row, destination_.data[p] + size_t(y) * destination_.stride[p], row);
  }
}

std::unique_ptr<FrameSource> scale_frames(std::unique_ptr<FrameSource> source, uint32_t width,
                                          uint32_t height, ScaleMode mode) {
  if (source->format().width == width && source->format().height == height) return source;
  return std::make_unique<ScaledSource>(std::move(source), width, height, mode);
}

}  // namespace vqx
