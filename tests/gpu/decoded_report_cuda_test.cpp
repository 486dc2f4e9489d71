// --report on the CUDA backend: the report takes each frame pair from the host buffers before the
// upload, so its worst frames, their thumbnails and the pooled table are the CPU backend's, byte
// for byte (the scores are the same bits); compressed input is decoded in software under
// --report (NVDEC would keep the frames in device memory); and a ladder rung scaled on the device
// shows the worst frames of the CPU run that scales it with libswscale.
#include <fmt/format.h>
#include <gmock/gmock.h>

#include "gpu/gpu_support.h"
#include "support/encodes.h"
#include "support/fixtures.h"
#include "support/shell.h"

namespace vqx::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The part of a report page from `begin` to the next `end`.
std::string section(const std::string& html, const std::string& begin, const std::string& end) {
  const size_t at = html.find(begin);
  if (at == std::string::npos) return {};
  return html.substr(at, html.find(end, at) - at);
}
std::string worst_frames(const std::string& html) { return section(html, "<div class=\"worst\">", "<h2>Per frame"); }
std::string pooled_table(const std::string& html) { return section(html, "<table class=\"pooled\">", "</table>"); }

// Runs `args` with --report on `backend`; the page.
std::string report_on(const std::string& backend, const std::string& args, const std::string& name) {
  const std::string html = temp_path(name + "_" + backend + ".html");
  const auto r = run_cli(fmt::format("{} --backend {} --report {}", args, backend, html));
  EXPECT_EQ(r.status, 0) << r.output;
  return r.status == 0 ? read_file(html) : std::string();
}

TEST(DecodedReportCuda, Y4mPageEqualsTheCpuRuns) {
  VQX_REQUIRE_CUDA();
  VQX_REQUIRE_FIXTURE("n576", dir);
  const std::string args = fmt::format("-r {0}/ref.y4m -d {0}/dis.y4m -q", dir);
  const std::string cpu = report_on("cpu", args, "report_y4m"), cuda = report_on("cuda", args, "report_y4m");
  ASSERT_FALSE(worst_frames(cpu).empty());
  EXPECT_THAT(worst_frames(cpu), HasSubstr("data:image/png;base64,"));
  EXPECT_EQ(worst_frames(cuda), worst_frames(cpu));
  EXPECT_EQ(pooled_table(cuda), pooled_table(cpu));
}

TEST(DecodedReportCuda, CompressedInputIsDecodedInSoftware) {
  VQX_REQUIRE_CUDA();
  VQX_REQUIRE_ENCODE("syn_h264.mkv", ref);
  VQX_REQUIRE_ENCODE("syn_vp9.webm", dis);
  const std::string html = temp_path("report_av_cuda.html");
  const auto r = run_cli(fmt::format("-r {} -d {} -n --feature psnr --backend cuda --report {}", ref, dis, html));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("reference decoder: h264 (libavcodec"));
  EXPECT_THAT(r.output, Not(HasSubstr("NVDEC")));
  const std::string args = fmt::format("-r {} -d {} -n --feature psnr -q", ref, dis);
  EXPECT_EQ(worst_frames(read_file(html)), worst_frames(report_on("cpu", args, "report_av")));
}

TEST(DecodedReportCuda, ScaledRungShowsTheCpuRunsWorstFrames) {
  VQX_REQUIRE_CUDA();
  ASSERT_FALSE(kScaledRungs.empty());
  const ScaledRung& c = kScaledRungs.front();
  VQX_REQUIRE_ENCODE(c.rung, rung);
  const std::string reference = scaled_rung_path(rung, c);
  const std::string args =
      fmt::format("-r {} -d {} --scale {} -n --feature psnr -q --decoder cpu", reference, rung, c.mode);
  const std::string cpu = report_on("cpu", args, "report_rung"), cuda = report_on("cuda", args, "report_rung");
  // The frames and scores (the captions) agree; the distorted thumbnails may not: on the device
  // the rung is scaled after the upload, so its thumbnail is averaged from the rung's own size.
  const auto captions = [](const std::string& html) {
    std::string out;
    for (size_t at = html.find("<figcaption>"); at != std::string::npos; at = html.find("<figcaption>", at + 1))
      out += html.substr(at, html.find("</figcaption>", at) - at) + "\n";
    return out;
  };
  ASSERT_FALSE(captions(cpu).empty());
  EXPECT_EQ(captions(cuda), captions(cpu));
}

}  // namespace
}  // namespace vqx::test
