#include "io/av_support.h"

#include <cstdio>

#include <set>

#include "core/error.h"

namespace vqx::av {

FramePtr make_frame() {
  FramePtr frame(av_frame_alloc());
  if (!frame) throw RuntimeFailure("out of memory allocating a decoded frame");
  return frame;
}

PacketPtr make_packet() {
  PacketPtr packet(av_packet_alloc());
  if (!packet) throw RuntimeFailure("out of memory allocating a packet");
  return packet;
}

std::string error_text(int code) {
  char text[AV_ERROR_MAX_STRING_SIZE] = {};
  av_strerror(code, text, sizeof text);
  return text;
}

namespace {

// Only DamageLogs that exist are written to: an opaque pointer of someone else's context is left
// alone.
std::mutex& registry_mutex() {
  static std::mutex mutex;
  return mutex;
}
std::set<const DamageLog*>& registry() {
  static std::set<const DamageLog*> logs;
  return logs;
}

void watch_log(void* context, int level, const char* format, va_list args) {
  if (context && level <= AV_LOG_ERROR) {
    const AVClass* kind = *static_cast<const AVClass* const*>(context);
    void* opaque = nullptr;
    if (kind == avformat_get_class()) opaque = static_cast<AVFormatContext*>(context)->opaque;
    else if (kind == avcodec_get_class()) opaque = static_cast<AVCodecContext*>(context)->opaque;
    if (opaque) {
      std::lock_guard lock(registry_mutex());
      if (registry().count(static_cast<const DamageLog*>(opaque))) {
        va_list copy;
        va_copy(copy, args);
        static_cast<DamageLog*>(opaque)->record(format, copy);
        va_end(copy);
      }
    }
  }
  av_log_default_callback(context, level, format, args);
}

}  // namespace

DamageLog::DamageLog() {
  static std::once_flag installed;
  std::call_once(installed, [] { av_log_set_callback(watch_log); });
  std::lock_guard lock(registry_mutex());
  registry().insert(this);
}

DamageLog::~DamageLog() {
  std::lock_guard lock(registry_mutex());
  registry().erase(this);
}

void DamageLog::record(const char* format, va_list args) {
  char text[512];
  std::vsnprintf(text, sizeof text, format, args);
  std::string line(text);
  for (char& c : line)
    if (c == '\n' || c == '\r') c = ' ';
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ' || line.back() == '.')) line.pop_back();
  std::lock_guard lock(mutex_);
  if (first_.empty()) first_ = line;
}

std::string DamageLog::first_error() const {
  std::lock_guard lock(mutex_);
  return first_;
}

}  // namespace vqx::av
