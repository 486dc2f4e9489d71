#pragma once
// The packets of one video stream of a container (mp4/mov, mkv/webm, ivf, mpeg-ts...) or of an
// elementary stream (h264, hevc, obu), read by libavformat, which chooses the format by content.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/av_support.h"
#include "io/input_stream.h"

namespace vqx {

// Which stream to read: the first video stream (attached cover pictures excluded), a stream by its
// index in the container ("N", as ffprobe numbers them) or the N-th video stream ("v:N").
struct StreamSelector {
  enum class Kind : uint8_t { kFirstVideo, kIndex, kVideo } kind = Kind::kFirstVideo;
  unsigned number = 0;
  bool is_default() const { return kind == Kind::kFirstVideo || (kind == Kind::kVideo && number == 0); }
};

// Parses "N" or "v:N"; throws UsageError naming `flag`.
StreamSelector parse_stream_selector(const std::string& text, const std::string& flag);

// Packets of one stream in decode order, for a decoder.
class PacketSource {
 public:
  virtual ~PacketSource() = default;
  // The next packet, or false at the end. `next_frame` (the index of the next frame to be
  // decoded) only labels messages.
  virtual bool read(AVPacket* packet, uint64_t next_frame) = 0;
};

class AvDemuxer final : public PacketSource {
 public:
  // Reads `stream`: by path when it is a regular file (libavformat may then seek, e.g. to an MP4
  // index at the end), else front to back through it. Throws InputError when no format can read
  // it or the selected stream is not there.
  AvDemuxer(std::unique_ptr<InputStream> stream, const StreamSelector& selector);
  ~AvDemuxer();
  AvDemuxer(const AvDemuxer&) = delete;
  AvDemuxer& operator=(const AvDemuxer&) = delete;

  const AVStream& stream() const { return *format_->streams[stream_index_]; }
  const char* format_name() const { return format_->iformat->name; }
  const std::string& label() const { return label_; }

  // The next packet of the stream, or false at its end. `next_frame` (the index of the next frame
  // to be decoded) only labels messages. Throws InputError for a read error or a packet that the
  // container marks incomplete (a truncated file).
  bool read(AVPacket* packet, uint64_t next_frame) override;

  // Keeps a reference to every packet read from now on, until replay(): after it, read() returns
  // the kept packets again, in order, before reading on. Lets a hardware decoder that turns out
  // not to handle the stream hand it to the software decoder, also when the input is a pipe.
  // forget_kept() stops keeping and drops them.
  void keep_packets();
  void replay();
  void forget_kept();

 private:
  struct SequentialIo;
  struct SequentialIoDeleter {
    void operator()(SequentialIo* io) const;
  };
  struct FormatCloser {
    void operator()(AVFormatContext* format) const { avformat_close_input(&format); }
  };

  const AVInputFormat* probe_file(const std::string& path) const;
  void open_sequential();
  void select_stream(const StreamSelector& selector);
  [[noreturn]] void throw_read_error(int code, const std::string& what) const;
  bool read_next(AVPacket* packet, uint64_t next_frame);
  [[noreturn]] void throw_open_error(int code, const AVInputFormat* probed) const;
  [[noreturn]] void throw_index_last(const std::string& what) const;

  // Declared in the order they are needed: the format reads through io_, which reads input_.
  std::unique_ptr<InputStream> input_;
  std::string label_;
  av::DamageLog damage_;
  std::unique_ptr<SequentialIo, SequentialIoDeleter> io_;  // set when reading through input_
  std::unique_ptr<AVFormatContext, FormatCloser> format_;
  int stream_index_ = -1;
  uint64_t packets_ = 0;  // of the selected stream, returned so far
  bool keeping_ = false;
  std::vector<av::PacketPtr> kept_;
  size_t replayed_ = 0;  // kept packets already returned again
};

}  // namespace vqx
