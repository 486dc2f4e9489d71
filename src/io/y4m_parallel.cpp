#include "io/y4m_parallel.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <vector>

#include "core/error.h"
#include "core/thread_pool.h"

namespace vqx {
namespace {

constexpr size_t kMaxLineBytes = 4096 + 8;   // as the stream reader: header lines up to 4096 bytes
// Each reading thread copies only ~1.5-2.5 GB/s out of the page cache (measured on the H200 host),
// so even a 1080p frame (3 MB) is split over every thread; below 256 KiB a piece costs more in
// wake-ups than it saves.
constexpr size_t kMinChunkBytes = size_t{1} << 18;

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

class ParallelY4mReader final : public FrameSource {
 public:
  ParallelY4mReader(const std::string& path, const std::string& name, unsigned threads)
      : FrameSource(fmt::format("{} '{}'", name, path)),
        fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)),
        pool_(threads > 1 ? threads - 1 : 0),
        threads_(threads < 1 ? 1 : threads) {
    format_ = open_y4m(path, name)->format();  // validates the header, with its messages
    if (fd_.get() < 0)
      throw InputError(fmt::format("{}: cannot open: {}", name_, std::strerror(errno)));
    std::string line = read_line(0, kMaxLineBytes);
    if (line.empty()) throw InputError(fmt::format("{}: truncated Y4M header", name_));
    offset_ = line.size();
  }

  const PictureFormat& format() const override { return format_; }

  bool read(Picture& picture) override {
    std::string line = read_line(offset_, kMaxLineBytes);
    if (line.empty()) return false;  // clean end of input
    if (line.size() < 6 || line.compare(0, 5, "FRAME") != 0 || line.back() != '\n' ||
        (line[5] != '\n' && line[5] != ' '))
      fail(line.back() != '\n' && line.compare(0, 5, "FRAME") == 0
               ? fmt::format("frame {}: truncated frame header", frames_read_)
               : fmt::format("frame {}: expected a FRAME marker", frames_read_));
    const off_t data = offset_ + off_t(line.size());
    const size_t want = format_.frame_bytes();
    const size_t chunks = std::clamp<size_t>(want / kMinChunkBytes, 1, threads_);
    const size_t chunk_bytes = (want + chunks - 1) / chunks;
    std::atomic<size_t> got{0};
    std::atomic<int> error{0};
    pool_.parallel_for(chunks, 1, [&](size_t begin, size_t end) {
      for (size_t c = begin; c < end; ++c) {
        size_t from = c * chunk_bytes, to = std::min(want, from + chunk_bytes);
        size_t done = read_at(picture.bytes() + from, to - from, data + off_t(from), error);
        got += done;
      }
    });
    if (error) fail(fmt::format("frame {}: read error: {}", frames_read_, std::strerror(error)));
    if (got != want)
      fail(fmt::format("frame {} is truncated: {} of {} bytes", frames_read_, got.load(), want));
    offset_ = data + off_t(want);
    ++frames_read_;
    return true;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(fmt::format("{}: {}", name_, what));
  }

  size_t read_at(uint8_t* dst, size_t bytes, off_t at, std::atomic<int>& error) const {
    size_t done = 0;
    while (done < bytes) {
      ssize_t n = ::pread(fd_.get(), dst + done, bytes - done, at + off_t(done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) error = errno;
      if (n <= 0) break;
      done += size_t(n);
    }
    return done;
  }

  // The line starting at `at`, with its '\n' (without one when the file or `limit` ends first).
  std::string read_line(off_t at, size_t limit) const {
    std::string line;
    char buffer[128];
    std::atomic<int> error{0};
    while (line.size() < limit) {
      size_t n = read_at(reinterpret_cast<uint8_t*>(buffer), sizeof buffer, at + off_t(line.size()),
                         error);
      if (error) fail(fmt::format("read error: {}", std::strerror(error)));
      const char* nl = static_cast<const char*>(std::memchr(buffer, '\n', n));
      if (nl) return line.append(buffer, size_t(nl - buffer) + 1);
      line.append(buffer, n);
      if (n < sizeof buffer) break;
    }
    if (line.size() >= limit) fail(fmt::format("frame {}: frame header longer than 4096 bytes", frames_read_));
    return line;
  }

  FileDescriptor fd_;
  ThreadPool pool_;
  size_t threads_;
  PictureFormat format_;
  off_t offset_ = 0;
};

}  // namespace

std::unique_ptr<FrameSource> open_y4m_parallel(const std::string& path, const std::string& name,
                                               unsigned threads) {
  return std::make_unique<ParallelY4mReader>(path, name, threads);
}

}  // namespace vqx
