#include "io/file_stream.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "core/error.h"

namespace vqx {

FileHandle open_for_reading(const std::string& path, const std::string& name) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw InputError(fmt::format("{} '{}': is a directory", name, path));
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw InputError(fmt::format("{} '{}': cannot open: {}", name, path, std::strerror(errno)));
  return FileHandle(f);
}

size_t read_fully(std::FILE* f, void* dst, size_t bytes) {
  size_t got = 0;
  auto* out = static_cast<unsigned char*>(dst);
  while (got < bytes) {
    size_t n = std::fread(out + got, 1, bytes - got, f);
    if (n == 0) break;
    got += n;
  }
  return got;
}

}  // namespace vqx
