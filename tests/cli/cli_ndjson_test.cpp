// --ndjson while a run goes on: the distorted input comes through a pipe a part at a time, and
// the lines of the frames read so far arrive, parse and carry the model score before the rest of
// the input is written; at the end the lines equal the frames of the JSON output.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "support/fixtures.h"
#include "support/shell.h"

namespace vqx::test {
namespace {

// The Y4M stream header and each "FRAME\n..." record.
struct Y4mParts {
  std::string header;
  std::vector<std::string> frames;
};
Y4mParts split_y4m(const std::string& y4m, size_t frame_bytes) {
  Y4mParts parts;
  size_t at = y4m.find('\n') + 1;
  parts.header = y4m.substr(0, at);
  while (at < y4m.size()) {
    const size_t data = y4m.find('\n', at) + 1;
    parts.frames.push_back(y4m.substr(at, data - at + frame_bytes));
    at = data + frame_bytes;
  }
  return parts;
}

void write_all(int fd, const std::string& bytes) {
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    ASSERT_GT(n, 0);
    done += size_t(n);
  }
}

// Lines of the child's standard output, collected by a thread of their own.
class LineReader {
 public:
  explicit LineReader(int fd) : thread_([this, fd] { run(fd); }) {}
  ~LineReader() { thread_.join(); }
  // Waits (a guard against a hang, not a speed check) until `count` lines came.
  bool wait_for(size_t count) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, std::chrono::seconds(120), [&] { return lines_.size() >= count || done_; }) &&
           lines_.size() >= count;
  }
  std::vector<std::string> lines() {
    std::lock_guard lock(mutex_);
    return lines_;
  }

 private:
  void run(int fd) {
    std::FILE* in = ::fdopen(fd, "r");
    char* line = nullptr;
    size_t capacity = 0;
    while (::getline(&line, &capacity, in) > 0) {
      std::lock_guard lock(mutex_);
      lines_.emplace_back(line);
      cv_.notify_all();
    }
    std::free(line);
    std::fclose(in);
    std::lock_guard lock(mutex_);
    done_ = true;
    cv_.notify_all();
  }
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<std::string> lines_;
  bool done_ = false;
  std::thread thread_;
};

TEST(CliNdjson, LinesArriveWhileTheInputIsStillBeingWritten) {
  VQX_REQUIRE_FIXTURE("n576", dir);
  const Y4mParts dis = split_y4m(read_file(dir + "/dis.y4m"), 576 * 324 * 3 / 2);
  ASSERT_EQ(dis.frames.size(), 48u);
  const std::string json_path = temp_path("ndjson_run.json");
  int to_child[2], from_child[2];
  ASSERT_EQ(::pipe(to_child), 0);
  ASSERT_EQ(::pipe(from_child), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::dup2(to_child[0], 0);
    ::dup2(from_child[1], 1);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 2);
    for (int fd : {to_child[0], to_child[1], from_child[0], from_child[1], null}) ::close(fd);
    const std::string ref = dir + "/ref.y4m";
    ::execl(VQX_CLI_PATH, "vqx", "-r", ref.c_str(), "-d", "-", "--ndjson", "-", "--json", "-o",
            json_path.c_str(), "--threads", "2", "-q", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(to_child[0]);
  ::close(from_child[1]);
  LineReader reader(from_child[0]);

  // Ten frames in: motion2 (and so VMAF) of frames 0..8 is known, frame 9's waits for frame 10.
  constexpr size_t kFirst = 10;
  write_all(to_child[1], dis.header);
  for (size_t f = 0; f < kFirst; ++f) write_all(to_child[1], dis.frames[f]);
  ASSERT_TRUE(reader.wait_for(kFirst - 1)) << "no NDJSON line for frame 8 while the input is open";
  EXPECT_EQ(::waitpid(child, nullptr, WNOHANG), 0) << "the run is still going on";
  std::vector<std::string> early = reader.lines();
  EXPECT_EQ(early.size(), kFirst - 1);
  for (size_t f = 0; f < early.size(); ++f) {
    const auto line = nlohmann::json::parse(early[f]);
    EXPECT_EQ(line["frameNum"].get<uint64_t>(), f);
    EXPECT_TRUE(line["metrics"].contains("vmaf")) << early[f];
    EXPECT_TRUE(line["metrics"].contains("integer_motion2")) << early[f];
  }

  for (size_t f = kFirst; f < dis.frames.size(); ++f) write_all(to_child[1], dis.frames[f]);
  ::close(to_child[1]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  reader.wait_for(dis.frames.size());
  const std::vector<std::string> lines = reader.lines();
  // ordered_json keeps the key order, which must be the JSON output's.
  const auto whole = nlohmann::ordered_json::parse(read_file(json_path));
  ASSERT_EQ(lines.size(), whole["frames"].size());
  for (size_t f = 0; f < lines.size(); ++f) {
    const auto line = nlohmann::ordered_json::parse(lines[f]);
    const auto& frame = whole["frames"][f];
    EXPECT_EQ(line["frameNum"], frame["frameNum"]);
    EXPECT_EQ(line["metrics"].dump(), frame["metrics"].dump()) << "frame " << f;
  }
}

TEST(CliNdjson, BothOnStandardOutputIsAUsageError) {
  const auto r = run_cli("-r a.y4m -d b.y4m --ndjson - -o -");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("--ndjson - and -o -"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace vqx::test
