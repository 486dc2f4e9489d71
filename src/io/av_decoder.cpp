#include "io/av_decoder.h"

#include <fmt/format.h>

#include "core/error.h"

namespace vqx {

AvDecoder::AvDecoder(const AVStream& stream, const std::string& label, unsigned threads)
    : label_(label), packet_(av::make_packet()) {
  const AVCodecParameters& parameters = *stream.codecpar;
  const AVCodec* codec = avcodec_find_decoder(parameters.codec_id);
  if (!codec)
    throw InputError(fmt::format("{}: no decoder for its {} video", label_, avcodec_get_name(parameters.codec_id)));
  context_.reset(avcodec_alloc_context3(codec));
  if (!context_) throw RuntimeFailure(fmt::format("{}: out of memory creating the decoder", label_));
  int ret = avcodec_parameters_to_context(context_.get(), &parameters);
  if (ret < 0) fail(ret);
  context_->pkt_timebase = stream.time_base;
  context_->thread_count = int(threads);
  context_->thread_type = FF_THREAD_FRAME;
  // Frames the decoder could only conceal come out flagged (and are refused below) instead of
  // being dropped, and minor damage stops decoding instead of being papered over.
  context_->flags |= AV_CODEC_FLAG_OUTPUT_CORRUPT;
  context_->err_recognition |= AV_EF_EXPLODE;
  damage_.attach(context_.get());
  ret = avcodec_open2(context_.get(), codec, nullptr);
  if (ret < 0) fail(ret);
  description_ = fmt::format("{} (libavcodec, software, {} frame threads)", codec->name,
                             context_->thread_count);
}

void AvDecoder::throw_damage(const std::string& what) const {
  if (frames_ == 0 && !starts_with_keyframe_)
    throw InputError(fmt::format("{}: frame 0: the stream does not start with a keyframe (cut inside a GOP?): {}",
                                 label_, what));
  throw InputError(fmt::format("{}: frame {}: the bitstream is damaged: {}", label_, frames_, what));
}

void AvDecoder::check_damage() const {
  if (std::string logged = damage_.first_error(); !logged.empty()) throw_damage(logged);
}

void AvDecoder::fail(int code) const {
  check_damage();
  throw InputError(fmt::format("{}: frame {}: cannot decode: {}", label_, frames_, av::error_text(code)));
}

bool AvDecoder::decode(AvDemuxer& demuxer, AVFrame* frame) {
  for (;;) {
    int ret = avcodec_receive_frame(context_.get(), frame);
    check_damage();
    if (ret == 0) {
      if (frame->decode_error_flags != 0 || (frame->flags & AV_FRAME_FLAG_CORRUPT)) {
        av_frame_unref(frame);
        throw_damage("the decoder had to conceal errors");
      }
      ++frames_;
      return true;
    }
    if (ret == AVERROR_EOF) {
      if (frames_ < pictures_ && warn_) {
        warn_(fmt::format("{}: {} pictures in the stream decoded to {} frames; the decoder skipped {} "
                          "(leading pictures of a stream cut inside a GOP, hidden frames, or damage)",
                          label_, pictures_, frames_, pictures_ - frames_));
        warn_ = nullptr;
      }
      return false;
    }
    if (ret != AVERROR(EAGAIN) || draining_) fail(ret);
    if (demuxer.read(packet_.get(), frames_)) {
      if (packet_->size > 0 && !(packet_->flags & AV_PKT_FLAG_DISCARD)) {
        if (pictures_ == 0) starts_with_keyframe_ = packet_->flags & AV_PKT_FLAG_KEY;
        ++pictures_;
      }
      ret = avcodec_send_packet(context_.get(), packet_.get());
      av_packet_unref(packet_.get());
    } else {
      draining_ = true;
      ret = avcodec_send_packet(context_.get(), nullptr);
    }
    if (ret < 0) fail(ret);
  }
}

}  // namespace vqx
