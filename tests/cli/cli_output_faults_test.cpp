// The CLI's output when the destination fails part-way: a full filesystem (a small tmpfs where the
// test may mount one), a file-size limit, a full device, a FIFO whose reader goes away. Each ends
// with "vqx: error: cannot write output file ..." and exit status 3, and no file under the output
// name that looks complete (an earlier file there is kept as it was).
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "support/fixtures.h"

namespace vqx::test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// Runs a shell script; returns its exit status and output (stdout and stderr).
CliResult run_shell(const std::string& script) {
  return run_command(fmt::format("sh -c '{}' 2>&1", script));
}

// The exit status the script printed as "status=N".
int printed_status(const std::string& output) {
  std::smatch m;
  return std::regex_search(output, m, std::regex("status=([0-9]+)")) ? std::stoi(m[1]) : -1;
}

class CliOutputFaults : public ::testing::Test {
 protected:
  // 2000 frames of 16x16 give about 180 KB of XML: more than a pipe holds or the limits allow.
  static void SetUpTestSuite() {
    ref_ = temp_path("faults_ref.y4m");
    dis_ = temp_path("faults_dis.y4m");
    auto f = make_format(16, 16);
    std::vector<Picture> ref, dis;
    for (uint32_t i = 0; i < 2000; ++i) {
      ref.push_back(make_picture(f, 2 * i % 14));
      dis.push_back(make_picture(f, 2 * i % 14 + 1));
    }
    write_y4m(ref_, ref);
    write_y4m(dis_, dis);
  }
  static std::string vqx(const std::string& output) {
    return fmt::format("{} -r {} -d {} -n -q --feature psnr -o {}", VQX_CLI_PATH, ref_, dis_,
                       output);
  }
  static std::string fresh_dir(const std::string& name) {
    fs::path dir = temp_path(name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir.string();
  }
  static void expect_write_error(const std::string& output, int status, const std::string& reason) {
    EXPECT_EQ(status, 3) << output;
    EXPECT_THAT(output, HasSubstr("vqx: error: cannot write output file"));
    EXPECT_THAT(output, HasSubstr(reason));
  }
  static inline std::string ref_, dis_;
};

TEST_F(CliOutputFaults, FullFilesystem) {
  std::string dir = fresh_dir("faults_tmpfs");
  auto r = run_shell(fmt::format(
      "mount -t tmpfs -o size=8k tmpfs {0} 2>/dev/null || exit 77; {1}; echo status=$?; ls -A {0}; "
      "umount {0}",
      dir, vqx(dir + "/scores.xml")));
  if (r.status == 77) {
    // Unprivileged: a user namespace of its own may still mount one.
    r =
        run_shell(fmt::format("unshare -rm sh -c \"mount -t tmpfs -o size=8k tmpfs {0} || exit 77; "
                              "{1}; echo status=\\$?; "
                              "ls -A {0}\" 2>/dev/null || exit 77",
                              dir, vqx(dir + "/scores.xml")));
  }
  if (r.status == 77) GTEST_SKIP() << "cannot mount a tmpfs here";
  expect_write_error(r.output, printed_status(r.output), "No space left on device");
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("scores.xml\n"))) << "a partial file was left";
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr(".tmp"))) << "the temporary file was left";
}

TEST_F(CliOutputFaults, FileSizeLimitKeepsTheEarlierFile) {
  std::string dir = fresh_dir("faults_fsize");
  std::string path = dir + "/scores.xml";
  std::ofstream(path) << "earlier results\n";
  // ulimit -f counts 1024-byte blocks; SIGXFSZ ignored turns the limit into a write error.
  auto r = run_shell(fmt::format("trap \"\" XFSZ; ulimit -f 16; {}", vqx(path)));
  expect_write_error(r.output, r.status, "File too large");
  std::ifstream in(path);
  std::string kept((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(kept, "earlier results\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 1);
}

TEST_F(CliOutputFaults, FullDevice) {
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no writable /dev/full";
  auto r = run_shell(vqx("/dev/full"));
  expect_write_error(r.output, r.status, "No space left on device");
}

TEST_F(CliOutputFaults, FifoWhoseReaderGoesAway) {
  std::string dir = fresh_dir("faults_fifo");
  std::string fifo = dir + "/scores.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto r = run_shell(
      fmt::format("head -c 10 {} >/dev/null & {}; echo status=$?; wait", fifo, vqx(fifo)));
  expect_write_error(r.output, printed_status(r.output), "Broken pipe");
  EXPECT_TRUE(fs::is_fifo(fifo));
}

}  // namespace
}  // namespace vqx::test
