// The progress line: on a terminal (a pseudo-terminal here) frames done/total, FPS and ETA, the
// last line at the total; nothing with -q, nothing when standard error is not a terminal.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/fixtures.h"

namespace vqx::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Runs `program` with a pseudo-terminal as its standard error (and output); what it wrote there.
std::string run_on_terminal(const std::vector<std::string>& args, const char* program = VQX_CLI_PATH) {
  int master = -1;
  const pid_t child = ::forkpty(&master, nullptr, nullptr, nullptr);
  if (child == 0) {
    std::vector<char*> argv{const_cast<char*>("vqx")};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(program, argv.data());
    ::_exit(127);
  }
  std::string out;
  char buffer[4096];
  for (ssize_t n; (n = ::read(master, buffer, sizeof buffer)) > 0;) out.append(buffer, size_t(n));
  ::close(master);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
  return out;
}

TEST(CliProgress, FramesOfTheTotalWithFpsAndEta) {
  VQX_REQUIRE_FIXTURE("n576", dir);
  const std::vector<std::string> inputs = {"-r", dir + "/ref.y4m", "-d", dir + "/dis.y4m", "-n", "--feature", "psnr",
                                           "--threads", "2", "--frame_skip_dist", "8"};
  const std::string out = run_on_terminal(inputs);
  // 48 frames each, 8 distorted ones skipped: 40 to score; the last redraw is at the total.
  EXPECT_THAT(out, HasSubstr("\r40/40 frames (100.0%), "));
  EXPECT_THAT(out, HasSubstr(" FPS, ETA 0:00\x1b[K\r\n"));
  EXPECT_THAT(out, ::testing::ContainsRegex("\r[0-9]+/40 frames \\([0-9.]+%\\), [0-9.]+ FPS"));
  std::vector<std::string> quiet = inputs;
  quiet.push_back("-q");
  EXPECT_THAT(run_on_terminal(quiet), Not(HasSubstr("FPS")));
  // Standard error into a pipe: no progress line.
  const auto piped = run_cli(fmt::format("-r {0}/ref.y4m -d {0}/dis.y4m -n --feature psnr --threads 2", dir));
  EXPECT_EQ(piped.status, 0);
  EXPECT_THAT(piped.output, Not(HasSubstr("FPS")));
}

TEST(CliProgress, APipeHasNoTotal) {
  VQX_REQUIRE_FIXTURE("n576", dir);
  // The distorted input through a pipe: its count is unknown, the reference's file says 48.
  const std::string command =
      fmt::format("cat {0}/dis.y4m | {1} -r {0}/ref.y4m -d - -n --feature psnr --threads 2", dir, VQX_CLI_PATH);
  EXPECT_THAT(run_on_terminal({"-c", command}, "/bin/sh"), HasSubstr("\r48/48 frames (100.0%)"));
  // Both through pipes (the distorted one a process substitution): no total.
  const std::string unknown = fmt::format("cat {0}/ref.y4m | {1} -r - -d <(cat {0}/dis.y4m) -n --feature psnr --threads 2",
                                          dir, VQX_CLI_PATH);
  const std::string out = run_on_terminal({"-c", unknown}, "/bin/bash");
  EXPECT_THAT(out, HasSubstr("\r48 frames, "));
  EXPECT_THAT(out, Not(HasSubstr("/48")));
}

}  // namespace
}  // namespace vqx::test
