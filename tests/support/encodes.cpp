#include "support/encodes.h"

#include <fmt/format.h>

#include <cstring>
#include <filesystem>

#include "io/open_input.h"
#include "io/readers.h"
#include "metrics/vmaf/model.h"
#include "support/fixtures.h"

namespace vqx::test {

std::optional<std::string> encode_path(const std::string& file) {
  std::string path = std::string(VQX_ENCODES_DIR) + "/" + file;
  if (!std::filesystem::exists(path)) return std::nullopt;
  return path;
}

const std::vector<ScaledRung> kScaledRungs = {
    {"rung_720p.mkv", 1920, 1080, "bicubic"},  {"rung_720p.mkv", 1920, 1080, "bilinear"},
    {"rung_720p.mkv", 1920, 1080, "lanczos"},  {"rung_720p.mkv", 1920, 1080, "spline"},
    {"rung_720p.mkv", 1920, 1080, "neighbor"}, {"rung_540p.mkv", 1920, 1080, "bicubic"},
    {"rung_1080p.mkv", 3840, 2160, "bicubic"}, {"rung_odd.mkv", 1920, 1080, "bicubic"},
    {"rung_odd.mkv", 1279, 719, "lanczos"},    {"rung_720p10.mkv", 1920, 1080, "bicubic"},
    {"rung_720p10.mkv", 1920, 1080, "spline"}, {"rung_444p10.mkv", 1280, 720, "bicubic"},
};

std::string scaled_rung_path(const std::string& rung_path, const ScaledRung& c) {
  return fmt::format("{}.{}x{}.{}.y4m", rung_path, c.width, c.height, c.mode);
}

const std::vector<EncodedCase> kEncodedCases = {
    {"n576", "", "n576_h264.mp4"},
    {"n576", "", "n576_h264.h264"},
    {"n576", "n576_ref_h264.mkv", "n576_hevc.mkv"},
    {"n576", "", "n576_av1.ivf"},
    {"n576", "", "n576_av1.obu"},
    {"n576", "", "n576_vp9.webm"},
    {"hbd720", "", "hbd720_hevc10.mp4"},
    {"hbd720", "", "hbd720_av1_10.ivf"},
    {"hbd720", "", "hbd720_vp9_10.webm"},
    {"odd853", "", "odd853_h264_444.ts"},
    {"odd853", "", "odd853_hevc444.hevc"},
};

std::string encoded_case_name(const EncodedCase& c) {
  std::string name = c.reference.empty() ? c.distorted : c.reference + "_" + c.distorted;
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

std::unique_ptr<RunReport> score_everything(FrameSource& reference, FrameSource& distorted,
                                            const RunSettings& settings) {
  std::vector<std::string> model_args;
  for (const auto& version : vmaf::builtin_model_versions()) {
    // The float models read float_vif/float_adm/float_motion, which have no CUDA twin (README).
    if (settings.backend == Backend::kCuda && version.rfind("vmaf_float_", 0) == 0) continue;
    model_args.push_back(fmt::format("version={0}:name={0}", version));
  }
  auto models = vmaf::load_models(model_args);
  auto requests = vmaf::model_metric_requests(
      models, {"psnr", "float_ssim", "float_ms_ssim", "cambi", "ssimulacra2", "speed_chroma"});
  auto report = run_metrics(reference, distorted, requests, settings);
  vmaf::apply_models(models, report->table);
  return report;
}

void expect_same_table(const RunReport& actual, const RunReport& expected, const std::string& what) {
  ASSERT_EQ(actual.table.frame_count(), expected.table.frame_count()) << what;
  ASSERT_EQ(actual.table.feature_names(), expected.table.feature_names()) << what;
  size_t differing = 0;
  for (size_t c = 0; c < expected.table.feature_names().size(); ++c)
    for (uint64_t f = 0; f < expected.table.frame_count(); ++f) {
      auto a = actual.table.get(f, c), e = expected.table.get(f, c);
      ASSERT_EQ(a.has_value(), e.has_value()) << what << " " << expected.table.feature_names()[c] << " frame " << f;
      if (!a) continue;
      bool same = std::memcmp(&*a, &*e, sizeof(double)) == 0 || (std::isnan(*a) && std::isnan(*e));
      if (!same && differing++ < 5)
        ADD_FAILURE() << fmt::format("{} {} frame {}: {:.17g} vs {:.17g}", what, expected.table.feature_names()[c], f,
                                     *a, *e);
    }
  EXPECT_EQ(differing, 0u) << what;
}

void expect_scores_of_y4m_decode(const EncodedCase& c, const std::string& reference, const std::string& distorted,
                                 const RunSettings& settings) {
  auto ref = open_input(reference, {}, "reference").source;
  auto dis = open_input(distorted, {}, "distorted").source;
  auto decoded = score_everything(*ref, *dis, settings);
  auto ref_y4m = open_y4m(c.reference.empty() ? reference : reference + ".y4m", "reference");
  auto dis_y4m = open_y4m(distorted + ".y4m", "distorted");
  auto expected = score_everything(*ref_y4m, *dis_y4m, settings);
  EXPECT_GE(decoded->table.frame_count(), 4u);
  expect_same_table(*decoded, *expected, c.distorted);
}

}  // namespace vqx::test
