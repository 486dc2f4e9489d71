#include "io/frame_count.h"

#include <sys/stat.h>

#include <cmath>
#include <cstring>
#include <fstream>

extern "C" {
#include <libavformat/avformat.h>
}

namespace vqx {
namespace {

std::optional<uint64_t> stream_frames(const AVFormatContext& format) {
  const int index = av_find_best_stream(const_cast<AVFormatContext*>(&format), AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
  if (index < 0) return std::nullopt;
  const AVStream* stream = format.streams[index];
  if (stream->nb_frames > 0) return uint64_t(stream->nb_frames);
  const double rate = av_q2d(stream->avg_frame_rate.num ? stream->avg_frame_rate : stream->r_frame_rate);
  if (!(rate > 0)) return std::nullopt;
  if (stream->duration > 0) return uint64_t(std::llround(double(stream->duration) * av_q2d(stream->time_base) * rate));
  if (format.duration > 0) return uint64_t(std::llround(double(format.duration) / AV_TIME_BASE * rate));
  return std::nullopt;
}

// The container's frame count of its best video stream, or its duration times frame rate; what
// the headers do not say (an MPEG-TS's rate and duration) after libavformat's probe of the first
// packets.
std::optional<uint64_t> container_frames(const std::string& path) {
  AVFormatContext* format = nullptr;
  if (avformat_open_input(&format, path.c_str(), nullptr, nullptr) < 0) return std::nullopt;
  std::optional<uint64_t> frames = stream_frames(*format);
  if (!frames && avformat_find_stream_info(format, nullptr) >= 0) frames = stream_frames(*format);
  avformat_close_input(&format);
  return frames;
}

}  // namespace

std::optional<uint64_t> estimate_frame_count(const std::string& path, const PictureFormat& format, bool raw) {
  struct stat st {};
  if (path == "-" || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  const uint64_t size = uint64_t(st.st_size);
  const uint64_t frame_bytes = format.frame_bytes();
  if (raw) return frame_bytes ? std::optional<uint64_t>(size / frame_bytes) : std::nullopt;
  std::ifstream file(path, std::ios::binary);
  char head[9] = {};
  file.read(head, sizeof head);
  if (file.gcount() == sizeof head && std::memcmp(head, "YUV4MPEG2", 9) == 0) {
    std::string header;
    std::getline(file, header);
    const uint64_t header_bytes = sizeof head + header.size() + 1;
    constexpr uint64_t kFrameHeader = 6;  // "FRAME\n"
    return size > header_bytes ? (size - header_bytes) / (kFrameHeader + frame_bytes) : 0;
  }
  if (file.gcount() >= 8 && std::memcmp(head, "\x89PNG\r\n\x1a\n", 8) == 0) return 1;
  return container_frames(path);
}

}  // namespace vqx
