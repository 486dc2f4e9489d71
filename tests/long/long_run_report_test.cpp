// --report over a 100,000-frame stream: both inputs come through FIFOs (64x64 4:2:0, seven
// repeating frames, and four single-frame dips where the distorted frame is inverted). The
// dips are the worst PSNR frames and keep their depth in the downsampled plot, the page stays
// small, and vqx's peak memory with the report is that of the same run without it (the
// thumbnails held are the candidates', not the clip's).
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <thread>

#include "support/fixtures.h"
#include "support/load_support.h"
#include "support/shell.h"

namespace vqx::test {
namespace {

constexpr uint64_t kFrames = 100000;
constexpr int kPeriod = 7;
const std::set<uint64_t> kDips = {777, 31337, 77777, 99998};

Picture inverted(const Picture& p) {
  Picture out(p.format());
  for (size_t i = 0; i < p.size_bytes(); ++i) out.bytes()[i] = uint8_t(255 - p.bytes()[i]);
  return out;
}

// Writes the stream to `path` (a FIFO): the reference's or the distorted frames.
void write_stream(const std::string& path, const std::vector<Picture>& period, const std::vector<Picture>& dips) {
  std::FILE* out = std::fopen(path.c_str(), "wb");
  ASSERT_NE(out, nullptr);
  std::fputs("YUV4MPEG2 W64 H64 F25:1 Ip A1:1 C420jpeg\n", out);
  for (uint64_t f = 0; f < kFrames; ++f) {
    const Picture& p = dips.empty() || !kDips.count(f) ? period[f % kPeriod] : dips[f % kPeriod];
    std::fputs("FRAME\n", out);
    if (std::fwrite(p.bytes(), 1, p.size_bytes(), out) != p.size_bytes()) break;  // vqx went away
  }
  std::fclose(out);
}

struct FifoRun {
  int status;
  long max_rss_kib;
};

// vqx on the two FIFOs with `args`; its exit status and peak resident memory.
FifoRun run_on_fifos(const std::string& args, const std::vector<Picture>& ref, const std::vector<Picture>& dis,
                 const std::vector<Picture>& dips) {
  const std::string ref_fifo = temp_path("long_report_ref.y4m"), dis_fifo = temp_path("long_report_dis.y4m");
  for (const auto& f : {ref_fifo, dis_fifo}) {
    ::unlink(f.c_str());
    EXPECT_EQ(::mkfifo(f.c_str(), 0600), 0);
  }
  const std::string command = fmt::format("exec {} -r {} -d {} -q {}", VQX_CLI_PATH, ref_fifo, dis_fifo, args);
  const pid_t child = ::fork();
  if (child == 0) {
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::thread reference([&] { write_stream(ref_fifo, ref, {}); });
  std::thread distorted([&] { write_stream(dis_fifo, dis, dips); });
  int status = 0;
  rusage usage{};
  ::wait4(child, &status, 0, &usage);
  reference.join();
  distorted.join();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, usage.ru_maxrss};
}

TEST(LongRunReport, HundredThousandFramesKeepTheDipsInASmallPageWithFlatMemory) {
  const PictureFormat format = make_format(64, 64);
  const std::vector<Picture> ref = period_pictures(format, kPeriod, false);
  const std::vector<Picture> dis = period_pictures(format, kPeriod, true);
  std::vector<Picture> dips;
  for (const Picture& p : ref) dips.push_back(inverted(p));

  const std::string html = temp_path("long_report.html");
  const std::string features = "-n --feature psnr --threads 2";
  const FifoRun plain = run_on_fifos(features, ref, dis, dips);
  const FifoRun with_report = run_on_fifos(features + " --report_worst 4 --report " + html, ref, dis, dips);
  ASSERT_EQ(plain.status, 0);
  ASSERT_EQ(with_report.status, 0);
  std::printf("[ load ] %llu frames: peak resident %ld KiB without the report, %ld KiB with it\n",
              static_cast<unsigned long long>(kFrames), plain.max_rss_kib, with_report.max_rss_kib);
  EXPECT_LE(with_report.max_rss_kib, plain.max_rss_kib + 8 * 1024) << "the report's memory grows with the clip";

  const std::string page = read_file(html);
  EXPECT_LT(page.size(), 256u * 1024) << "a 100,000-frame report of three metrics is " << page.size() << " bytes";
  // The four dips, worst first by PSNR (ties to the earlier frame), are the frames shown.
  std::vector<uint64_t> shown;
  const std::string figure = "<figure class=\"worst\" data-frame=\"";
  for (size_t at = page.find(figure); at != std::string::npos; at = page.find(figure, at + 1))
    shown.push_back(std::stoull(page.substr(at + figure.size())));
  ASSERT_EQ(shown.size(), 4u);
  EXPECT_EQ(std::set<uint64_t>(shown.begin(), shown.end()), kDips);
  // Each dip is the minimum of its bucket in the psnr_y plot data: the line reaches it.
  const size_t data = page.find("id=\"vqx-plot-data\"");
  ASSERT_NE(data, std::string::npos);
  for (uint64_t f : kDips) {
    const size_t caption = page.find(fmt::format("<figcaption>frame {} · psnr_y ", f));
    ASSERT_NE(caption, std::string::npos) << f;
    const size_t value = caption + fmt::format("<figcaption>frame {} · psnr_y ", f).size();
    const std::string score = page.substr(value, page.find('<', value) - value);
    EXPECT_NE(page.find("," + score + ",", data), std::string::npos) << "the dip at frame " << f << " (" << score
                                                                     << ") is not in the plot";
  }
}

}  // namespace
}  // namespace vqx::test
