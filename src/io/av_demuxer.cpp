#include "io/av_demuxer.h"

#include <fmt/format.h>

#include <cstring>

#include "core/error.h"

namespace vqx {
namespace {

constexpr int kIoBufferBytes = 1 << 16;

bool is_mp4_family(const AVInputFormat* format) {
  return format && std::strstr(format->name, "mp4") != nullptr;
}

const char* media_type_name(AVMediaType type) {
  const char* name = av_get_media_type_string(type);
  return name ? name : "unknown";
}

std::string unrecognised(const std::string& label, int code) {
  return fmt::format("{}: not a Y4M file (no YUV4MPEG2 signature), a PNG, or a video FFmpeg recognises: {}",
                     label, av::error_text(code));
}

}  // namespace

// libavformat's view of an InputStream read front to back; a read error's message is kept to be
// rethrown as it was.
struct AvDemuxer::SequentialIo {
  InputStream* input = nullptr;
  AVIOContext* context = nullptr;
  std::string error;

  static int read(void* opaque, uint8_t* buffer, int size) {
    auto* io = static_cast<SequentialIo*>(opaque);
    try {
      size_t n = io->input->read(buffer, size_t(size));
      return n == 0 ? AVERROR_EOF : int(n);
    } catch (const std::exception& e) {
      io->error = e.what();
      return AVERROR(EIO);
    }
  }
};

void AvDemuxer::SequentialIoDeleter::operator()(SequentialIo* io) const {
  if (io->context) {
    av_freep(&io->context->buffer);  // libavformat may have replaced the buffer while probing
    avio_context_free(&io->context);
  }
  delete io;
}

StreamSelector parse_stream_selector(const std::string& text, const std::string& flag) {
  StreamSelector s;
  std::string digits = text;
  s.kind = StreamSelector::Kind::kIndex;
  if (text.rfind("v:", 0) == 0) {
    s.kind = StreamSelector::Kind::kVideo;
    digits = text.substr(2);
  }
  if (digits.empty() || digits.size() > 4 || digits.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError(fmt::format("{} {}: expected a stream index N or v:N (the N-th video stream)", flag, text));
  s.number = unsigned(std::stoul(digits));
  return s;
}

AvDemuxer::AvDemuxer(std::unique_ptr<InputStream> stream, const StreamSelector& selector)
    : input_(std::move(stream)), label_(input_->label()) {
  if (input_->regular_file()) {
    const std::string path = input_->path();
    input_.reset();
    const AVInputFormat* probed = probe_file(path);
    AVFormatContext* format = avformat_alloc_context();
    if (!format) throw RuntimeFailure(fmt::format("{}: out of memory", label_));
    damage_.attach(format);
    int ret = avformat_open_input(&format, path.c_str(), probed, nullptr);  // frees `format` on failure
    if (ret < 0) throw_open_error(ret, probed);
    format_.reset(format);
  } else {
    open_sequential();
  }
  int ret = avformat_find_stream_info(format_.get(), nullptr);
  if (ret < 0) throw_read_error(ret, "cannot read the stream parameters");
  select_stream(selector);
}

AvDemuxer::~AvDemuxer() = default;

// By content alone (no file name hint), as for a pipe.
const AVInputFormat* AvDemuxer::probe_file(const std::string& path) const {
  AVIOContext* io = nullptr;
  int ret = avio_open(&io, path.c_str(), AVIO_FLAG_READ);
  if (ret < 0) throw InputError(fmt::format("{}: cannot open: {}", label_, av::error_text(ret)));
  const AVInputFormat* probed = nullptr;
  ret = av_probe_input_buffer2(io, &probed, "", nullptr, 0, 0);
  avio_closep(&io);
  if (ret < 0) throw InputError(unrecognised(label_, ret));
  return probed;
}

void AvDemuxer::open_sequential() {
  io_.reset(new SequentialIo{input_.get(), nullptr, {}});
  auto* buffer = static_cast<uint8_t*>(av_malloc(kIoBufferBytes));
  if (buffer)
    io_->context = avio_alloc_context(buffer, kIoBufferBytes, 0, io_.get(), SequentialIo::read, nullptr, nullptr);
  if (!io_->context) {
    av_free(buffer);
    throw RuntimeFailure(fmt::format("{}: out of memory", label_));
  }
  io_->context->seekable = 0;
  const AVInputFormat* probed = nullptr;
  int ret = av_probe_input_buffer2(io_->context, &probed, "", nullptr, 0, 0);
  if (ret < 0) {
    if (!io_->error.empty()) throw InputError(io_->error);
    throw InputError(unrecognised(label_, ret));
  }
  AVFormatContext* format = avformat_alloc_context();
  if (!format) throw RuntimeFailure(fmt::format("{}: out of memory", label_));
  format->pb = io_->context;
  format->flags |= AVFMT_FLAG_CUSTOM_IO;
  damage_.attach(format);
  ret = avformat_open_input(&format, "", probed, nullptr);  // frees `format` on failure
  if (ret < 0) {
    if (!io_->error.empty()) throw InputError(io_->error);
    if (is_mp4_family(probed)) throw_index_last(av::error_text(ret));
    throw_open_error(ret, probed);
  }
  format_.reset(format);
}

void AvDemuxer::throw_open_error(int code, const AVInputFormat* probed) const {
  const std::string logged = damage_.first_error();
  if (logged.empty() && !probed) throw InputError(unrecognised(label_, code));
  throw InputError(fmt::format("{}: cannot read it{}{}: {} ({})", label_, probed ? " as " : "",
                               probed ? probed->name : "", logged.empty() ? "damaged" : logged,
                               av::error_text(code)));
}

void AvDemuxer::throw_read_error(int code, const std::string& what) const {
  if (io_ && !io_->error.empty()) throw InputError(io_->error);
  throw InputError(fmt::format("{}: {}: {}", label_, what, av::error_text(code)));
}

void AvDemuxer::select_stream(const StreamSelector& selector) {
  const unsigned count = format_->nb_streams;
  unsigned videos = 0;
  for (unsigned i = 0; i < count && stream_index_ < 0; ++i) {
    const AVStream* s = format_->streams[i];
    const bool video = s->codecpar->codec_type == AVMEDIA_TYPE_VIDEO;
    switch (selector.kind) {
      case StreamSelector::Kind::kFirstVideo:
        if (video && !(s->disposition & AV_DISPOSITION_ATTACHED_PIC)) stream_index_ = int(i);
        break;
      case StreamSelector::Kind::kIndex:
        if (i == selector.number) {
          if (!video)
            throw InputError(fmt::format("{}: stream {} is not a video stream ({})", label_, i,
                                         media_type_name(s->codecpar->codec_type)));
          stream_index_ = int(i);
        }
        break;
      case StreamSelector::Kind::kVideo:
        if (video && videos++ == selector.number) stream_index_ = int(i);
        break;
    }
  }
  if (stream_index_ < 0) {
    if (selector.kind == StreamSelector::Kind::kIndex)
      throw InputError(fmt::format("{}: there is no stream {} (it has {})", label_, selector.number, count));
    if (selector.kind == StreamSelector::Kind::kVideo)
      throw InputError(fmt::format("{}: there is no video stream v:{} (it has {})", label_, selector.number, videos));
    throw InputError(fmt::format("{}: no video stream (read as {})", label_, format_name()));
  }
  for (unsigned i = 0; i < count; ++i)
    if (int(i) != stream_index_) format_->streams[i]->discard = AVDISCARD_ALL;
}

void AvDemuxer::keep_packets() {
  keeping_ = true;
  kept_.clear();
  replayed_ = 0;
}

void AvDemuxer::replay() {
  keeping_ = false;
  replayed_ = 0;
}

void AvDemuxer::forget_kept() {
  keeping_ = false;
  kept_.clear();
  replayed_ = 0;
}

bool AvDemuxer::read(AVPacket* packet, uint64_t next_frame) {
  if (!keeping_ && replayed_ < kept_.size()) {
    av_packet_move_ref(packet, kept_[replayed_++].get());
    if (replayed_ == kept_.size()) {
      kept_.clear();
      replayed_ = 0;
    }
    return true;
  }
  if (!read_next(packet, next_frame)) return false;
  if (keeping_) {
    kept_.push_back(av::make_packet());
    if (av_packet_ref(kept_.back().get(), packet) < 0) throw RuntimeFailure(fmt::format("{}: out of memory", label_));
  }
  return true;
}

bool AvDemuxer::read_next(AVPacket* packet, uint64_t next_frame) {
  for (;;) {
    int ret = av_read_frame(format_.get(), packet);
    if (std::string logged = damage_.first_error(); !logged.empty()) {
      av_packet_unref(packet);
      if (io_ && packets_ == 0 && is_mp4_family(format_->iformat)) throw_index_last(logged);
      throw InputError(fmt::format("{}: frame {}: the stream is damaged or truncated: {}", label_, next_frame, logged));
    }
    if (ret == AVERROR_EOF && format_->pb && format_->pb->error < 0) ret = format_->pb->error;
    if (ret == AVERROR_EOF && !(io_ && !io_->error.empty())) return false;
    if (ret < 0 && io_ && packets_ == 0 && is_mp4_family(format_->iformat)) throw_index_last(av::error_text(ret));
    if (ret < 0) throw_read_error(ret, fmt::format("frame {}: cannot read the stream", next_frame));
    if (packet->stream_index != stream_index_) {
      av_packet_unref(packet);
      continue;
    }
    if (packet->flags & AV_PKT_FLAG_CORRUPT) {
      av_packet_unref(packet);
      throw InputError(fmt::format("{}: frame {}: the stream is truncated or damaged (an incomplete packet)",
                                   label_, next_frame));
    }
    ++packets_;
    return true;
  }
}

// Reading an MP4 front to back works only when its index comes before the media data.
void AvDemuxer::throw_index_last(const std::string& what) const {
  throw InputError(fmt::format(
      "{}: an MP4/MOV read from a pipe needs its index (moov) before the media data; give the "
      "file's path, or remux it with -movflags +faststart ({})",
      label_, what));
}

}  // namespace vqx
