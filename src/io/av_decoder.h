#pragma once
// libavcodec's decoder for one stream: packets in decode order in, frames in presentation order
// out. In software with frame threads, or through NVDEC (libavcodec's hwaccel) into device memory.
// Damage the decoder detects (or conceals) is an error naming the input and the frame, never a
// silently wrong or missing frame.
#include <cstdint>
#include <functional>
#include <string>

#include "core/error.h"
#include "io/av_demuxer.h"
#include "io/av_support.h"

namespace vqx {

// The hardware decoder cannot take this stream (its codec, profile, depth, chroma layout or size,
// or the device): the software decoder may take it instead.
class HardwareDecodeRefused : public InputError {
 public:
  using InputError::InputError;
};

// libavcodec's own decoder of `codec` with NVDEC as its hwaccel (not a wrapper such as libdav1d or
// the cuvid decoders), or null when this FFmpeg has none.
const AVCodec* nvdec_decoder_for(AVCodecID codec);

class AvDecoder {
 public:
  // `threads` frame threads (0: libavcodec's choice, one per core). Throws InputError when no
  // decoder handles the stream's codec.
  AvDecoder(const AVStream& stream, const std::string& label, unsigned threads);

  // Decodes through NVDEC on the CUDA device of `cuda_device` (an AVHWDeviceContext of type CUDA):
  // frames come out in device memory (AV_PIX_FMT_CUDA, their hw_frames_ctx naming the surface
  // layout). Throws HardwareDecodeRefused, here or from decode() before the first frame, when
  // NVDEC cannot decode the stream.
  AvDecoder(const AVStream& stream, const std::string& label, AVBufferRef* cuda_device);

  // The stream's own pixel format (for hardware frames, what the surfaces hold).
  AVPixelFormat software_format() const { return context_->sw_pix_fmt; }

  // Called once at the end when fewer frames came out than pictures went in: the decoder skipped
  // some (the leading pictures of a stream that starts inside a GOP, VP8's hidden frames, or
  // damage it did not report otherwise).
  void on_skipped_pictures(std::function<void(const std::string&)> warn) { warn_ = std::move(warn); }

  // The next frame, pulling packets from `demuxer` as needed; false after the last frame.
  bool decode(AvDemuxer& demuxer, AVFrame* frame);

  // e.g. "h264 (libavcodec, software, 8 frame threads)" or "hevc (libavcodec, NVDEC)".
  const std::string& description() const { return description_; }
  uint64_t frames_decoded() const { return frames_; }

 private:
  void configure(const AVStream& stream, const AVCodec* codec);
  void open(const AVCodec* codec);
  [[noreturn]] void fail(int code) const;

  void check_damage() const;
  [[noreturn]] void throw_damage(const std::string& what) const;

  std::string label_, description_;
  av::DamageLog damage_;
  av::CodecContextPtr context_;
  av::PacketPtr packet_;
  std::function<void(const std::string&)> warn_;
  uint64_t frames_ = 0;
  uint64_t pictures_ = 0;  // packets sent that should each give a frame
  bool starts_with_keyframe_ = true;
  bool draining_ = false;
};

}  // namespace vqx
