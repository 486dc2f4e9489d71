#pragma once
// Owning handles for FFmpeg's C objects and the text of its error codes.
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/frame.h>
}

#include <atomic>
#include <cstdarg>
#include <memory>
#include <mutex>
#include <string>

namespace vqx::av {

struct FrameDeleter {
  void operator()(AVFrame* frame) const { av_frame_free(&frame); }
};
using FramePtr = std::unique_ptr<AVFrame, FrameDeleter>;

struct PacketDeleter {
  void operator()(AVPacket* packet) const { av_packet_free(&packet); }
};
using PacketPtr = std::unique_ptr<AVPacket, PacketDeleter>;

struct CodecContextDeleter {
  void operator()(AVCodecContext* context) const { avcodec_free_context(&context); }
};
using CodecContextPtr = std::unique_ptr<AVCodecContext, CodecContextDeleter>;

// Throw RuntimeFailure (out of memory) instead of returning null.
FramePtr make_frame();
PacketPtr make_packet();

// av_strerror's text for an AVERROR code, e.g. "Invalid data found when processing input".
std::string error_text(int code);

// FFmpeg reports some of the damage it meets only in its log: a Matroska file that ends early, a
// slice a frame thread could not finish. A DamageLog attached to a format or codec context (its
// `opaque`, which libavcodec copies to its frame threads) keeps the first error-level message any
// of them logs, for the owner to turn into an InputError. Messages still reach FFmpeg's own log.
class DamageLog {
 public:
  DamageLog();
  ~DamageLog();
  DamageLog(const DamageLog&) = delete;
  DamageLog& operator=(const DamageLog&) = delete;

  void attach(AVFormatContext* context) { context->opaque = this; }
  void attach(AVCodecContext* context) { context->opaque = this; }
  // The first error logged so far (one line), or empty.
  std::string first_error() const;
  void record(const char* format, va_list args);

  // Set by a hardware decoder's get_format when libavcodec offers it no hardware surfaces, which
  // it does once its hwaccel could not take the stream (codec profile, depth, chroma, size).
  void note_hardware_refused() { hardware_refused_ = true; }
  bool hardware_refused() const { return hardware_refused_; }

 private:
  mutable std::mutex mutex_;
  std::string first_;
  std::atomic<bool> hardware_refused_ = false;
};

}  // namespace vqx::av
