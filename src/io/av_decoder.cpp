#include "io/av_decoder.h"

#include <fmt/format.h>

#include "core/error.h"

namespace vqx {
namespace {

// get_format of a hardware decoder: NVDEC's surfaces, or none (the decoder then fails, and
// check_damage() says why) when libavcodec no longer offers them because its hwaccel could not
// take the stream.
AVPixelFormat pick_cuda_surfaces(AVCodecContext* context, const AVPixelFormat* offered) {
  for (const AVPixelFormat* f = offered; *f != AV_PIX_FMT_NONE; ++f)
    if (*f == AV_PIX_FMT_CUDA) return *f;
  static_cast<av::DamageLog*>(context->opaque)->note_hardware_refused();
  return AV_PIX_FMT_NONE;
}

bool decodes_on_cuda(const AVCodec* codec) {
  for (int i = 0;; ++i) {
    const AVCodecHWConfig* config = avcodec_get_hw_config(codec, i);
    if (!config) return false;
    if (config->device_type == AV_HWDEVICE_TYPE_CUDA && config->pix_fmt == AV_PIX_FMT_CUDA &&
        (config->methods & AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX))
      return true;
  }
}

}  // namespace

const AVCodec* nvdec_decoder_for(AVCodecID id) {
  void* state = nullptr;
  while (const AVCodec* codec = av_codec_iterate(&state))
    if (av_codec_is_decoder(codec) && codec->id == id && !codec->wrapper_name && decodes_on_cuda(codec))
      return codec;
  return nullptr;
}

AvDecoder::AvDecoder(const AVStream& stream, const std::string& label, unsigned threads)
    : label_(label), packet_(av::make_packet()) {
  const AVCodecID id = stream.codecpar->codec_id;
  const AVCodec* codec = avcodec_find_decoder(id);
  if (!codec) throw InputError(fmt::format("{}: no decoder for its {} video", label_, avcodec_get_name(id)));
  configure(stream, codec);
  context_->thread_count = int(threads);
  context_->thread_type = FF_THREAD_FRAME;
  open(codec);
  description_ = fmt::format("{} (libavcodec, software, {} frame threads)", codec->name, context_->thread_count);
}

AvDecoder::AvDecoder(const AVStream& stream, const std::string& label, AVBufferRef* cuda_device)
    : label_(label), packet_(av::make_packet()) {
  const AVCodecID id = stream.codecpar->codec_id;
  const AVCodec* codec = nvdec_decoder_for(id);
  if (!codec) throw HardwareDecodeRefused(fmt::format("{}: NVDEC does not decode {} video", label_, avcodec_get_name(id)));
  configure(stream, codec);
  context_->hw_device_ctx = av_buffer_ref(cuda_device);
  if (!context_->hw_device_ctx) throw RuntimeFailure(fmt::format("{}: out of memory", label_));
  context_->get_format = pick_cuda_surfaces;
  context_->thread_count = 1;  // NVDEC decodes; one thread parses
  open(codec);
  description_ = fmt::format("{} (libavcodec, NVDEC)", codec->name);
}

void AvDecoder::configure(const AVStream& stream, const AVCodec* codec) {
  context_.reset(avcodec_alloc_context3(codec));
  if (!context_) throw RuntimeFailure(fmt::format("{}: out of memory creating the decoder", label_));
  int ret = avcodec_parameters_to_context(context_.get(), stream.codecpar);
  if (ret < 0) fail(ret);
  context_->pkt_timebase = stream.time_base;
  // Frames the decoder could only conceal come out flagged (and are refused below) instead of
  // being dropped, and minor damage stops decoding instead of being papered over.
  context_->flags |= AV_CODEC_FLAG_OUTPUT_CORRUPT;
  context_->err_recognition |= AV_EF_EXPLODE;
  damage_.attach(context_.get());
}

void AvDecoder::open(const AVCodec* codec) {
  int ret = avcodec_open2(context_.get(), codec, nullptr);
  if (ret < 0) fail(ret);
}

void AvDecoder::throw_damage(const std::string& what) const {
  if (frames_ == 0 && !starts_with_keyframe_)
    throw InputError(fmt::format("{}: frame 0: the stream does not start with a keyframe (cut inside a GOP?): {}",
                                 label_, what));
  throw InputError(fmt::format("{}: frame {}: the bitstream is damaged: {}", label_, frames_, what));
}

void AvDecoder::check_damage() const {
  if (damage_.hardware_refused()) {
    const std::string logged = damage_.first_error();
    throw HardwareDecodeRefused(fmt::format("{}: NVDEC cannot decode this {} stream{}{}", label_,
                                            avcodec_get_name(context_->codec_id), logged.empty() ? "" : ": ",
                                            logged));
  }
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
