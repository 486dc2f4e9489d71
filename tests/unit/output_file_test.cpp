// A results file appears under its name complete or not at all: a write that fails part-way (a
// file-size limit, a full device, a reader that goes away) throws RuntimeFailure with the system's
// reason, keeps what was there before and leaves no temporary file behind.
#include "output/output_file.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/error.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A folder of its own per test, so that "nothing else is there" can be checked.
std::string fresh_dir(const std::string& name) {
  fs::path dir = temp_path(name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

auto write_bytes(size_t count) {
  return [count](std::ostream& out) {
    std::string block(4096, 'x');
    for (size_t done = 0; done < count; done += block.size())
      out.write(block.data(), std::streamsize(std::min(block.size(), count - done)));
  };
}

TEST(OutputFile, WritesTheWholeFileAndNothingElse) {
  std::string dir = fresh_dir("output_whole");
  std::string path = dir + "/scores.xml";
  write_output_file(path, [](std::ostream& out) { out << "<VMAF/>\n"; });
  EXPECT_EQ(read_text(path), "<VMAF/>\n");
  EXPECT_EQ(entries(dir), std::vector<std::string>{"scores.xml"});
}

TEST(OutputFile, ReplacesAnOldFileKeepingItsPermissions) {
  std::string dir = fresh_dir("output_replace");
  std::string path = dir + "/scores.json";
  std::ofstream(path) << "old";
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  write_output_file(path, [](std::ostream& out) { out << "new"; });
  EXPECT_EQ(read_text(path), "new");
  EXPECT_EQ(fs::status(path).permissions(),
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_EQ(entries(dir), std::vector<std::string>{"scores.json"});
}

TEST(OutputFile, ReplacesTheFileALinkNamesAndKeepsTheLink) {
  std::string dir = fresh_dir("output_link");
  std::ofstream(dir + "/target.csv") << "old";
  fs::create_symlink("target.csv", dir + "/link.csv");
  write_output_file(dir + "/link.csv", [](std::ostream& out) { out << "new"; });
  EXPECT_TRUE(fs::is_symlink(dir + "/link.csv"));
  EXPECT_EQ(read_text(dir + "/target.csv"), "new");
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"link.csv", "target.csv"}));
}

// RLIMIT_FSIZE stops the write part-way, as a full disk does (with SIGXFSZ ignored, write()
// fails with EFBIG instead of killing the process).
TEST(OutputFile, AWriteThatFailsPartWayKeepsTheOldFile) {
  std::string dir = fresh_dir("output_fsize");
  std::string path = dir + "/scores.xml";
  std::ofstream(path) << "complete old results";
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = saved;
  small.rlim_cur = 64 * 1024;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string message;
  try {
    write_output_file(path, write_bytes(1 << 20));
  } catch (const RuntimeFailure& e) {
    message = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_THAT(message, HasSubstr("cannot write output file '" + path + "': File too large"));
  EXPECT_EQ(read_text(path), "complete old results");
  EXPECT_EQ(entries(dir), std::vector<std::string>{"scores.xml"});
}

TEST(OutputFile, AFullDeviceIsAnError) {
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no writable /dev/full";
  try {
    write_output_file("/dev/full", write_bytes(1 << 16));
    FAIL() << "writing to /dev/full succeeded";
  } catch (const RuntimeFailure& e) {
    EXPECT_THAT(e.what(),
                HasSubstr("cannot write output file '/dev/full': No space left on device"));
  }
}

// A FIFO is written in place (never replaced by a file); its reader leaving mid-stream is EPIPE.
TEST(OutputFile, AFifoWhoseReaderGoesAwayIsAnError) {
  std::string dir = fresh_dir("output_fifo");
  std::string path = dir + "/scores.fifo";
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  auto old_handler = std::signal(SIGPIPE, SIG_IGN);
  std::thread reader([&] {
    int fd = ::open(path.c_str(), O_RDONLY);
    char head[16];
    if (fd >= 0) {
      [[maybe_unused]] ssize_t n = ::read(fd, head, sizeof head);
      ::close(fd);
    }
  });
  std::string message;
  try {
    write_output_file(path, write_bytes(4 << 20));
  } catch (const RuntimeFailure& e) {
    message = e.what();
  }
  reader.join();
  std::signal(SIGPIPE, old_handler);
  EXPECT_THAT(message, HasSubstr("cannot write output file '" + path + "': Broken pipe"));
  EXPECT_TRUE(fs::is_fifo(path));
  EXPECT_EQ(entries(dir), std::vector<std::string>{"scores.fifo"});
}

TEST(OutputFile, AMissingFolderIsAnError) {
  try {
    write_output_file("/nonexistent/dir/out.json", write_bytes(10));
    FAIL() << "no error";
  } catch (const RuntimeFailure& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot open output file '/nonexistent/dir/out.json': No such "
                                    "file or directory"));
  }
}

}  // namespace
}  // namespace vqx::test
