#pragma once
// What the fuzz targets share: the fuzzer's bytes as a file that readers taking a path can open
// (an anonymous in-memory file, reached through /proc/self/fd), and a cursor that takes fixed
// fields off the front of the input.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace vqx::fuzz {

class MemoryFile {
 public:
  MemoryFile(const uint8_t* data, size_t size) : fd_(memfd_create("vqx-fuzz", 0)) {
    size_t written = 0;
    while (fd_ >= 0 && written < size) {
      ssize_t n = ::write(fd_, data + written, size - written);
      if (n <= 0) break;
      written += size_t(n);
    }
  }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;
  ~MemoryFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool ok() const { return fd_ >= 0; }
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_;
};

// Fixed-size fields from the front of the input; zero once it runs out.
class Cursor {
 public:
  Cursor(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint16_t u16() {
    uint16_t lo = byte();
    return uint16_t(lo | uint16_t(byte()) << 8);
  }
  const uint8_t* rest() const { return data_ + (pos_ < size_ ? pos_ : size_); }
  size_t rest_size() const { return pos_ < size_ ? size_ - pos_ : 0; }
  std::string_view rest_text() const {
    return {reinterpret_cast<const char*>(rest()), rest_size()};
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace vqx::fuzz
