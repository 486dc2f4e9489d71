#pragma once
#include <cstdio>
#include <memory>
#include <string>

namespace vqx {

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f) std::fclose(f);
  }
};
using FileHandle = std::unique_ptr<std::FILE, FileCloser>;

// Opens for binary reading; throws InputError naming the file and the OS reason.
FileHandle open_for_reading(const std::string& path, const std::string& name);

// Reads exactly `bytes` unless the stream ends; returns the count read.
size_t read_fully(std::FILE* f, void* dst, size_t bytes);

}  // namespace vqx
