#pragma once
// An input opened once and read front to back: a regular file, a pipe, a FIFO, a character device
// or standard input ("-"). Its first bytes can be looked at to choose a reader without seeking,
// and the reader then gets them again, so pipes work like files.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "io/file_stream.h"

namespace vqx {

class InputStream {
 public:
  // Throws InputError naming `name` ("reference", "distorted") when the path cannot be opened.
  InputStream(const std::string& path, const std::string& name);
  ~InputStream();
  InputStream(const InputStream&) = delete;
  InputStream& operator=(const InputStream&) = delete;

  // The path to open again (regular files): "/dev/stdin" for standard input.
  const std::string& path() const { return path_; }
  // "reference 'ref.mp4'": the prefix of every message about this input.
  const std::string& label() const { return label_; }
  // A regular file: readers may reopen it by path and seek in it.
  bool regular_file() const { return regular_file_; }

  // Up to `bytes` bytes from the start, without consuming them (fewer when the input is shorter).
  std::span<const uint8_t> peek(size_t bytes);
  // Reads up to `bytes`, the peeked bytes first, returning what one read gives (fewer bytes than
  // asked when a pipe holds fewer); returns 0 at the end. Throws InputError on a read error.
  size_t read(void* dst, size_t bytes);

  // A stdio stream over what is left of `stream` (peeked bytes first); it owns the stream.
  static FileHandle into_file(std::unique_ptr<InputStream> stream);

 private:
  size_t read_descriptor(uint8_t* dst, size_t bytes);

  std::string path_, label_;
  int fd_ = -1;
  bool regular_file_ = false;
  std::vector<uint8_t> peeked_;  // bytes read ahead and not yet handed out
  size_t replayed_ = 0;          // of peeked_, how many read() has returned
};

}  // namespace vqx
