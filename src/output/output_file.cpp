#include "output/output_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/error.h"

namespace vqx {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const char* what, const std::string& path, int error) {
  throw RuntimeFailure(fmt::format("cannot {} output file '{}': {}", what, path,
                                   error ? std::strerror(error) : "write error"));
}

// Writes and closes `stream`; returns 0 or the errno of the failure.
int write_and_close(std::ofstream& stream, const std::function<void(std::ostream&)>& write) {
  errno = 0;
  write(stream);
  stream.close();
  return stream ? 0 : (errno ? errno : EIO);
}

void write_in_place(const std::string& path, const std::function<void(std::ostream&)>& write) {
  std::ofstream out(path, std::ios::binary);
  if (!out) fail("open", path, errno);
  if (int error = write_and_close(out, write)) fail("write", path, error);
}

// Creates a new, empty file beside `target` (mode 0666 less the umask, as a plain open would).
std::string create_temporary(const fs::path& target, const std::string& path) {
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  for (unsigned attempt = 0;; ++attempt) {
    fs::path temp =
        dir / fmt::format(".{}.{}-{}.tmp", target.filename().string(), ::getpid(), attempt);
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::close(fd);
      return temp.string();
    }
    if (errno != EEXIST || attempt == 100) fail("open", path, errno);
  }
}

}  // namespace

void write_output_file(const std::string& path, const std::function<void(std::ostream&)>& write) {
  std::error_code ec;
  fs::path target(path);
  // Through a symbolic link, the file it names is replaced and the link stays.
  if (fs::is_symlink(fs::symlink_status(target, ec))) {
    fs::path resolved = fs::canonical(target, ec);
    if (ec) return write_in_place(path, write);
    target = resolved;
  }
  const fs::file_status status = fs::status(target, ec);
  if (fs::exists(status) && !fs::is_regular_file(status)) return write_in_place(path, write);

  const std::string temp = create_temporary(target, path);
  // A file that is replaced keeps its permissions.
  if (fs::exists(status)) fs::permissions(temp, status.permissions(), ec);
  std::ofstream out(temp, std::ios::binary | std::ios::trunc);
  int error = out ? write_and_close(out, write) : (errno ? errno : EIO);
  if (!error && std::rename(temp.c_str(), target.c_str()) != 0) error = errno;
  if (error) {
    ::unlink(temp.c_str());
    fail("write", path, error);
  }
}

}  // namespace vqx
