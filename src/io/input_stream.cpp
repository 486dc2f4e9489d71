#include "io/input_stream.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/error.h"

namespace vqx {

InputStream::InputStream(const std::string& path, const std::string& name) : path_(path) {
  const bool standard_input = path == "-";
  label_ = standard_input ? fmt::format("{} (standard input)", name) : fmt::format("{} '{}'", name, path);
  fd_ = standard_input ? ::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0) : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw InputError(fmt::format("{}: cannot open: {}", label_, std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    int error = errno;
    ::close(fd_);
    throw InputError(fmt::format("{}: cannot open: {}", label_, std::strerror(error)));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd_);
    throw InputError(fmt::format("{}: is a directory", label_));
  }
  regular_file_ = S_ISREG(st.st_mode);
  // Opening /dev/stdin again gives a description of its own, read from the start.
  if (standard_input) path_ = "/dev/stdin";
}

InputStream::~InputStream() {
  if (fd_ >= 0) ::close(fd_);
}

size_t InputStream::read_descriptor(uint8_t* dst, size_t bytes) {
  size_t done = 0;
  while (done < bytes) {
    ssize_t n = ::read(fd_, dst + done, bytes - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(fmt::format("{}: read error: {}", label_, std::strerror(errno)));
    if (n == 0) break;
    done += size_t(n);
  }
  return done;
}

std::span<const uint8_t> InputStream::peek(size_t bytes) {
  if (peeked_.size() < bytes) {
    size_t have = peeked_.size();
    peeked_.resize(bytes);
    peeked_.resize(have + read_descriptor(peeked_.data() + have, bytes - have));
  }
  return {peeked_.data(), std::min(bytes, peeked_.size())};
}

size_t InputStream::read(void* dst, size_t bytes) {
  auto* out = static_cast<uint8_t*>(dst);
  size_t from_peek = std::min(bytes, peeked_.size() - replayed_);
  // Nothing peeked: peeked_.data() may be null, which memcpy may not take even for no bytes.
  if (from_peek > 0) std::memcpy(out, peeked_.data() + replayed_, from_peek);
  replayed_ += from_peek;
  if (replayed_ == peeked_.size() && !peeked_.empty()) {
    peeked_.clear();
    replayed_ = 0;
  }
  if (from_peek > 0 || bytes == 0) return from_peek;
  // One read: a pipe's bytes go on as soon as they are there, so a frame written whole reaches
  // its reader without waiting for more input (a live producer, --ndjson following it).
  for (;;) {
    ssize_t n = ::read(fd_, out, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(fmt::format("{}: read error: {}", label_, std::strerror(errno)));
    return size_t(n);
  }
}

FileHandle InputStream::into_file(std::unique_ptr<InputStream> stream) {
  cookie_io_functions_t functions{};
  functions.read = [](void* cookie, char* buffer, size_t size) -> ssize_t {
    try {
      return ssize_t(static_cast<InputStream*>(cookie)->read(buffer, size));
    } catch (const std::exception&) {
      errno = EIO;
      return -1;
    }
  };
  functions.close = [](void* cookie) -> int {
    delete static_cast<InputStream*>(cookie);
    return 0;
  };
  std::FILE* file = ::fopencookie(stream.get(), "rb", functions);
  if (!file) throw RuntimeFailure(fmt::format("{}: cannot open a stream: {}", stream->label(), std::strerror(errno)));
  stream.release();
  return FileHandle(file);
}

}  // namespace vqx
