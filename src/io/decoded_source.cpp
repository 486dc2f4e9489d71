#include "io/decoded_source.h"

#include <fmt/format.h>

#include "core/error.h"
#include "io/av_decoder.h"
#include "io/pixel_convert.h"

extern "C" {
#include <libavutil/pixdesc.h>
}

namespace vqx {
namespace {

class DecodedSource final : public FrameSource {
 public:
  DecodedSource(std::unique_ptr<AvDemuxer> demuxer, const DecoderSettings& settings)
      : FrameSource(demuxer->label()),
        demuxer_(std::move(demuxer)),
        decoder_(demuxer_->stream(), name_, settings.threads),
        frame_(av::make_frame()) {
    refuse_interlaced(demuxer_->stream().codecpar->field_order);
    decoder_.on_skipped_pictures(settings.warn);
    if (!decoder_.decode(*demuxer_, frame_.get()))
      throw InputError(fmt::format("{}: no frame could be decoded (the stream is empty, truncated or damaged)", name_));
    decoded_ = decoded_format_of(*frame_, name_);
    pixel_format_ = frame_->format;
    pending_ = true;
  }

  const PictureFormat& format() const override { return decoded_.picture; }
  const std::string& decoder() const { return decoder_.description(); }

  bool read(Picture& picture) override {
    if (!pending_) {
      if (!decoder_.decode(*demuxer_, frame_.get())) return false;
      check_unchanged();
    }
    pending_ = false;
    convert_frame(*frame_, decoded_.samples, picture);
    av_frame_unref(frame_.get());
    ++frames_read_;
    return true;
  }

 private:
  // As the Y4M reader, which refuses what `ffmpeg -f yuv4mpegpipe` writes for such a stream.
  void refuse_interlaced(AVFieldOrder order) const {
    if (order == AV_FIELD_TT || order == AV_FIELD_TB || order == AV_FIELD_BT || order == AV_FIELD_BB)
      throw InputError(fmt::format("{}: interlaced video is not supported; deinterlace it first", name_));
  }

  // vqx scores a stream of one size and layout; a change mid-stream (a spliced or adaptive
  // stream) is refused rather than scored against the wrong geometry.
  void check_unchanged() const {
    const PictureFormat& f = decoded_.picture;
    if (uint32_t(frame_->width) != f.width || uint32_t(frame_->height) != f.height)
      throw InputError(fmt::format("{}: frame {}: the picture size changes from {}x{} to {}x{}", name_,
                                   frames_read_, f.width, f.height, frame_->width, frame_->height));
    if (frame_->format != pixel_format_)
      throw InputError(fmt::format("{}: frame {}: the pixel format changes from {} to {}", name_, frames_read_,
                                   av_get_pix_fmt_name(AVPixelFormat(pixel_format_)),
                                   av_get_pix_fmt_name(AVPixelFormat(frame_->format))));
  }

  std::unique_ptr<AvDemuxer> demuxer_;
  AvDecoder decoder_;
  av::FramePtr frame_;
  DecodedFormat decoded_;
  int pixel_format_ = AV_PIX_FMT_NONE;
  bool pending_ = false;  // frame_ holds the first frame, decoded to learn the format
};

}  // namespace

std::unique_ptr<FrameSource> open_decoded(std::unique_ptr<AvDemuxer> demuxer, const DecoderSettings& settings,
                                          DecodedSourceInfo* info) {
  auto source = std::make_unique<DecodedSource>(std::move(demuxer), settings);
  if (info) info->decoder = source->decoder();
  return source;
}

}  // namespace vqx
