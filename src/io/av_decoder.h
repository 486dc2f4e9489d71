#pragma once
// libavcodec's software decoder for one stream, with frame threads: packets in decode order in,
// frames in presentation order out. Damage the decoder detects (or conceals) is an error naming
// the input and the frame, never a silently wrong or missing frame.
#include <cstdint>
#include <functional>
#include <string>

#include "io/av_demuxer.h"
#include "io/av_support.h"

namespace vqx {

class AvDecoder {
 public:
  // `threads` frame threads (0: libavcodec's choice, one per core). Throws InputError when no
  // decoder handles the stream's codec.
  AvDecoder(const AVStream& stream, const std::string& label, unsigned threads);

  // Called once at the end when fewer frames came out than pictures went in: the decoder skipped
  // some (the leading pictures of a stream that starts inside a GOP, VP8's hidden frames, or
  // damage it did not report otherwise).
  void on_skipped_pictures(std::function<void(const std::string&)> warn) { warn_ = std::move(warn); }

  // The next frame, pulling packets from `demuxer` as needed; false after the last frame.
  bool decode(AvDemuxer& demuxer, AVFrame* frame);

  // e.g. "h264 (libavcodec, software, 8 frame threads)".
  const std::string& description() const { return description_; }
  uint64_t frames_decoded() const { return frames_; }

 private:
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
