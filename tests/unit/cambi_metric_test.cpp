// The cambi metric as a whole: the spec's synthetic golden vectors (cambi.md 11), output names,
// accepted and rejected configurations, full_ref, heatmaps, several instances, thread counts.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "core/thread_pool.h"
#include "metrics/cambi/cambi.h"
#include "metrics/cambi/cambi_stages.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

namespace fs = std::filesystem;

// Spec 11: v = 200 + (3x)/D + y/41 in 10-bit units, a textured stripe where (y/32) % 4 == 3,
// then scaled to bpc and clamped. D = 29 for the reference, 37 for the distorted picture.
Picture synthetic(unsigned w, unsigned h, int bpc, int d) {
  PictureFormat f;
  f.width = w;
  f.height = h;
  f.bit_depth = uint8_t(bpc);
  Picture p(f);
  const unsigned max = (1u << bpc) - 1;
  for (unsigned y = 0; y < h; ++y)
    for (unsigned x = 0; x < w; ++x) {
      unsigned v = 200 + (3 * x) / unsigned(d) + y / 41;
      if ((y / 32) % 4 == 3) v += (7 * x + 5 * y) % 11;
      v = bpc < 10 ? v >> (10 - bpc) : v << (bpc - 10);
      v = std::min(v, max);
      if (bpc > 8)
        p.plane<uint16_t>(0)[size_t{y} * w + x] = uint16_t(v);
      else
        p.plane<uint8_t>(0)[size_t{y} * w + x] = uint8_t(v);
    }
  for (unsigned plane = 1; plane < 3; ++plane) {
    size_t n = size_t{f.plane_width(plane)} * f.plane_height(plane);
    for (size_t i = 0; i < n; ++i) {
      if (bpc > 8)
        p.plane<uint16_t>(plane)[i] = uint16_t(1u << (bpc - 1));
      else
        p.plane<uint8_t>(plane)[i] = 128;
    }
  }
  return p;
}

std::vector<Picture> one(Picture p) {
  std::vector<Picture> v;
  v.push_back(std::move(p));
  return v;
}

std::unique_ptr<RunReport> run_synthetic(unsigned w, unsigned h, int bpc, const std::string& feature,
                                         unsigned threads = 0) {
  RunSettings settings;
  settings.threads = threads;
  return run_on_pictures(one(synthetic(w, h, bpc, 29)), one(synthetic(w, h, bpc, 37)), {feature},
                         settings);
}

void expect_value(const RunReport& report, const std::string& name, double expected) {
  std::vector<double> values = column(report, name);
  ASSERT_EQ(values.size(), 1u);
  EXPECT_EQ(std::bit_cast<uint64_t>(values[0]), std::bit_cast<uint64_t>(expected))
      << name << ": " << fmt::format("{:.17g} vs {:.17g}", values[0], expected);
}

// ---- Spec 11 golden vectors --------------------------------------------------------------------

struct Vector {
  unsigned w, h;
  int bpc;
  const char* feature;
  const char* output;
  double value;
};

class CambiSpecVectors : public ::testing::TestWithParam<Vector> {};

TEST_P(CambiSpecVectors, BitExact) {
  const Vector& v = GetParam();
  auto report = run_synthetic(v.w, v.h, v.bpc, v.feature);
  expect_value(*report, v.output, v.value);
}

INSTANTIATE_TEST_SUITE_P(
    Spec, CambiSpecVectors,
    ::testing::Values(
        Vector{576, 324, 8, "cambi", "cambi", 9.9078726220557325},
        Vector{1920, 1080, 10, "cambi", "cambi", 3.5461119991302126},
        Vector{1920, 1080, 12, "cambi", "cambi", 3.5461119991302126},
        Vector{3840, 2160, 10, "cambi", "cambi", 3.7362945243155283},
        Vector{3840, 2160, 10, "cambi=cambi_high_res_speedup=2160", "cambi_hrs_2160",
               3.7531671581241195},
        Vector{1280, 720, 8, "cambi=enc_width=960:enc_height=540", "cambi_ench_540_encw_960",
               15.723822730332959},
        Vector{1920, 1080, 8, "cambi=topk=0.2", "cambi_topk_0.2", 24.515162617876989},
        Vector{1920, 1080, 10, "cambi=eotf=pq", "cambi_eotf_pq", 4.4740628024266824},
        Vector{1920, 1080, 10, "cambi=max_log_contrast=3:window_size=63", "cambi_mlc_3_ws_63",
               3.4187248274634769},
        Vector{576, 324, 10, "cambi=cambi_vis_lum_threshold=10", "cambi_vlt_10", 0.0}));

TEST(CambiSpec, FullReferenceVector) {
  auto report = run_synthetic(1280, 720, 8, "cambi=full_ref=true");
  expect_value(*report, "cambi", 15.289611300071826);
  expect_value(*report, "cambi_source", 17.009681148969882);
  expect_value(*report, "cambi_full_reference", 0.0);
}

// ---- Accepted and rejected configurations ------------------------------------------------------

// Creates the metric and runs init only (no frame): what libvmaf's init accepts or rejects.
void init_cambi(const std::string& options, unsigned w, unsigned h, int bpc = 8) {
  MetricRequest req = parse_metric_request(options.empty() ? "cambi" : "cambi=" + options);
  auto metric = req.metric->make_cpu(req.options);
  PictureFormat f;
  f.width = w;
  f.height = h;
  f.bit_depth = uint8_t(bpc);
  ThreadPool pool(0);
  metric->init(MetricContext{f, &pool});
}

std::string init_error(const std::string& options, unsigned w, unsigned h, int bpc = 8) {
  try {
    init_cambi(options, w, h, bpc);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(CambiGuard, WindowBoundaryAt4K) {
  EXPECT_EQ(init_error("window_size=65", 3840, 2160), "");
  std::string err = init_error("window_size=66", 3840, 2160);
  EXPECT_NE(err.find("cambi: window_size 67 too large for reciprocal LUT"), std::string::npos) << err;
  EXPECT_NE(init_error("window_size=127", 3840, 2160), "");
  // Halved by the speed-up, the largest window_size fits.
  EXPECT_EQ(init_error("window_size=127:cambi_high_res_speedup=2160", 3840, 2160), "");
}

TEST(CambiGuard, SourceWindowCountsEvenWithoutFullRef) {
  std::string err = init_error("enc_width=3840:enc_height=2160", 4096, 2160);
  EXPECT_NE(err.find("window_size 67 too large"), std::string::npos) << err;
  EXPECT_NE(err.find("source"), std::string::npos) << err;
  EXPECT_NE(init_error("", 4096, 2160), "");
  EXPECT_NE(init_error("", 7680, 4320), "");
  EXPECT_EQ(init_error("cambi_high_res_speedup=2160", 7680, 4320), "");
  // 1440 stays on at 4K (>= 2560x1440) and halves the window.
  EXPECT_EQ(init_error("cambi_high_res_speedup=1440", 4096, 2160), "");
  // 2160 needs 3840*2160 encode pixels; 4096x2000 has fewer, so it is off and the window is 67.
  EXPECT_NE(init_error("cambi_high_res_speedup=2160:enc_width=4096:enc_height=2000", 4096, 2160),
            "");
}

TEST(CambiGuard, MinimumSizesAndScaleDirections) {
  EXPECT_NE(init_error("", 215, 215), "");
  EXPECT_EQ(init_error("", 216, 8), "");
  EXPECT_EQ(init_error("", 8, 216), "");
  EXPECT_NE(init_error("enc_width=200:enc_height=200", 1280, 720), "");
  // An encode size larger than the input falls back to the input size (never upscale).
  EXPECT_EQ(init_error("enc_width=1920:enc_height=1080", 1280, 720), "");
  EXPECT_NE(init_error("src_width=640:src_height=1080", 1280, 720), "");
  EXPECT_NE(init_error("src_width=1920:src_height=360", 1280, 720), "");
  EXPECT_EQ(init_error("src_width=1920:src_height=1080:full_ref=true", 1280, 720), "");
}

TEST(CambiGuard, VisibilityThresholdLeavingNoLevelIsRefused) {
  EXPECT_EQ(init_error("cambi_vis_lum_threshold=0.06", 640, 360), "");
  EXPECT_NE(init_error("cambi_vis_lum_threshold=100", 640, 360).find("no luma level can be scored"),
            std::string::npos);
}

TEST(CambiGuard, EveryBitDepthFrom8To16) {
  for (int bpc = 8; bpc <= 16; ++bpc) EXPECT_EQ(init_error("", 640, 360, bpc), "") << bpc;
}

TEST(CambiGuard, RgbInputIsRejected) {
  MetricRequest req = parse_metric_request("cambi");
  auto metric = req.metric->make_cpu(req.options);
  PictureFormat f;
  f.width = 640;
  f.height = 360;
  f.subsampling = ChromaSubsampling::k444;
  f.color = ColorModel::kRGB;
  ThreadPool pool(0);
  EXPECT_THROW(metric->init(MetricContext{f, &pool}), InputError);
}

TEST(CambiGuard, SamplesAboveTheBitDepthFailTheFrame) {
  Picture bad = synthetic(640, 360, 10, 37);
  bad.plane<uint16_t>(0)[1234] = 1024;
  try {
    run_on_pictures(one(synthetic(640, 360, 10, 29)), one(std::move(bad)), {"cambi"});
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("greater than 1023"), std::string::npos) << e.what();
  }
}

TEST(CambiOptions, OutOfRangeAndUnknownOptionsAreUsageErrors) {
  for (const char* bad : {"cambi=enc_width=0", "cambi=enc_width=179", "cambi=window_size=14",
                          "cambi=window_size=128", "cambi=topk=0", "cambi=topk=1.5",
                          "cambi=eotf=hlg", "cambi=cambi_eotf=srgb", "cambi=max_log_contrast=6",
                          "cambi=cambi_high_res_speedup=2161", "cambi=full_ref=yes",
                          "cambi=tvi_threshold=0", "cambi=src_height=4321", "cambi=no_such=1",
                          "cambi=enc_bitdepth=5", "cambi=cambi_max_val=1001"})
    EXPECT_THROW(parse_metric_request(bad), UsageError) << bad;
}

TEST(CambiOptions, OutputNamesAsLibvmaf) {
  auto names = [](const std::string& spec) {
    MetricRequest req = parse_metric_request(spec);
    return req.metric->make_cpu(req.options)->feature_names();
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(names("cambi"), V{"cambi"});
  EXPECT_EQ(names("cambi=enc_width=960:enc_height=540"), V{"cambi_ench_540_encw_960"});
  EXPECT_EQ(names("cambi=topk=0.2"), V{"cambi_topk_0.2"});
  EXPECT_EQ(names("cambi=cambi_high_res_speedup=2160"), V{"cambi_hrs_2160"});
  EXPECT_EQ(names("cambi=max_log_contrast=3:window_size=63"), V{"cambi_mlc_3_ws_63"});
  EXPECT_EQ(names("cambi=window_size=33:topk=0.2"), V{"cambi_topk_0.2_ws_33"});
  EXPECT_EQ(names("cambi=eotf=pq:max_log_contrast=3"), V{"cambi_eotf_pq_mlc_3"});
  EXPECT_EQ(names("cambi=cambi_high_res_speedup=1080:cambi_max_val=17:cambi_vis_lum_threshold=0.06"),
            V{"cambi_hrs_1080_cmxv_17_vlt_0.06"});
  // Default values, even when written, and non-feature options do not rename.
  EXPECT_EQ(names("cambi=window_size=65:topk=0.6:eotf=bt1886:heatmaps_path=/tmp/x"), V{"cambi"});
  EXPECT_EQ(names("cambi=full_ref=true:tvi_threshold=0.01"),
            (V{"cambi_tvit_0.01", "cambi_source", "cambi_full_reference"}));
  EXPECT_EQ(names("cambi=cambi_eotf=pq:src_width=1920:src_height=1080:enc_bitdepth=8"),
            V{"cambi_ceot_pq_encbd_8_srch_1080_srcw_1920"});
}

TEST(CambiOptions, PrecedenceOfTopkAndEotfAliases) {
  // cambi_topk applies when topk is default; cambi_eotf when not bt1886.
  auto a = run_synthetic(1920, 1080, 8, "cambi=cambi_topk=0.2");
  expect_value(*a, "cambi_ctpk_0.2", 24.515162617876989);
  auto b = run_synthetic(1920, 1080, 10, "cambi=cambi_eotf=pq");
  expect_value(*b, "cambi_ceot_pq", 4.4740628024266824);
}

// ---- full_ref -------------------------------------------------------------------------------

TEST(CambiFullRef, FullReferenceIsCambiMinusSourceClippedAtZero) {
  VQX_REQUIRE_FIXTURE("n576", dir);
  auto report = run_on_pair("n576", {"cambi=full_ref=true"});
  auto dist = column(*report, "cambi"), src = column(*report, "cambi_source"),
       full = column(*report, "cambi_full_reference");
  ASSERT_EQ(dist.size(), full.size());
  for (size_t i = 0; i < dist.size(); ++i)
    EXPECT_EQ(std::bit_cast<uint64_t>(full[i]),
              std::bit_cast<uint64_t>(std::max(0.0, dist[i] - src[i])))
        << i;
  // The distorted score is the no-reference score.
  auto plain = run_on_pair("n576", {"cambi"});
  expect_bit_exact(dist, column(*plain, "cambi"), "n576 cambi with and without full_ref");
}

TEST(CambiFullRef, SourceLargerThanInputKeepsTheDistortedScore) {
  // Upstream garbles the 10-bit distorted picture when src_width > input width (quirk 8, a
  // memcpy with the wrong stride); vqx copies row by row, so the distorted score is unchanged.
  auto full = run_synthetic(1280, 720, 10, "cambi=full_ref=true:src_width=1920:src_height=1080");
  auto plain = run_synthetic(1280, 720, 10, "cambi");
  expect_value(*full, "cambi_srch_1080_srcw_1920", column(*plain, "cambi")[0]);
  EXPECT_GT(column(*full, "cambi_source")[0], 0.0);
}

// ---- several instances, thread counts ------------------------------------------------------------

TEST(CambiInstances, SeveralConfigurationsInOneRunAllReport) {
  VQX_REQUIRE_FIXTURE("n576", dir);
  RunSettings settings;
  settings.threads = 2;
  auto report = run_on_pair(
      "n576",
      {"cambi", "cambi=window_size=33:topk=0.2", "cambi=eotf=pq:max_log_contrast=3:full_ref=true"},
      settings);
  expect_bit_exact(column(*report, "cambi"), load_golden("n576", "netflix-p17", "cambi").frames.at("cambi"),
                   "cambi");
  expect_bit_exact(column(*report, "cambi_topk_0.2_ws_33"),
                   load_golden("n576", "netflix-p17", "cambi_ws33_topk0.2").frames.at("cambi_topk_0.2_ws_33"),
                   "cambi_topk_0.2_ws_33");
  expect_bit_exact(column(*report, "cambi_eotf_pq_mlc_3"),
                   load_golden("n576", "netflix-p17", "cambi_pq_mlc3").frames.at("cambi_eotf_pq_mlc_3"),
                   "cambi_eotf_pq_mlc_3");
  EXPECT_EQ(column(*report, "cambi_source").size(), column(*report, "cambi").size());
}

TEST(CambiThreads, SameBitsForZeroOneAndTwoThreads) {
  VQX_REQUIRE_FIXTURE("band1080", dir);
  std::vector<std::vector<double>> runs;
  for (unsigned threads : {0u, 1u, 2u}) {
    RunSettings settings;
    settings.threads = threads;
    settings.frame_cnt = 4;
    auto report = run_on_pair("band1080", {"cambi=full_ref=true"}, settings);
    for (const char* name : {"cambi", "cambi_source", "cambi_full_reference"})
      runs.push_back(column(*report, name));
  }
  for (size_t i = 3; i < runs.size(); ++i)
    expect_bit_exact(runs[i], runs[i % 3], "threads run " + std::to_string(i / 3));
}

// ---- heatmaps ----------------------------------------------------------------------------------

std::vector<uint16_t> read_u16(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<uint16_t> v(bytes.size() / 2);
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = uint16_t(uint8_t(bytes[2 * i]) | uint8_t(bytes[2 * i + 1]) << 8);
  return v;
}

// Expected heatmaps of one 8-bit picture with default options, computed here from the stage
// definitions (plain c-values), scale by scale: uint16(65535 / max_c * c).
std::vector<std::vector<uint16_t>> expected_heatmaps(const Picture& pic, unsigned window) {
  using namespace cambi;
  const unsigned w = pic.format().width, h = pic.format().height;
  const LevelParams p = make_level_params(Eotf::kBt1886, 0.019, 2, 0.0);
  std::vector<uint16_t> img(size_t{w} * h), tmp(img.size());
  convert_to_10bit(pic.plane<uint8_t>(0), w, 8, make_resize_map(w, h, w, h), tmp.data());
  anti_dither(tmp.data(), w, h, img.data());
  std::vector<uint8_t> mask(img.size()), mask2(img.size());
  spatial_mask(img.data(), w, h, mask_index(w, h), mask.data());
  const double factor = 65535.0 / double(4 * window * window / 4);
  std::vector<std::vector<uint16_t>> maps;
  unsigned sw = w, sh = h;
  for (int scale = 0; scale < kNumScales; ++scale) {
    if (scale > 0) {
      decimate(img.data(), mask.data(), sw, sh, tmp.data(), mask2.data());
      sw = (sw + 1) / 2, sh = (sh + 1) / 2;
      img.assign(tmp.begin(), tmp.begin() + sw * sh);
      mask.assign(mask2.begin(), mask2.begin() + sw * sh);
    }
    mode_filter(img.data(), sw, sh, tmp.data());
    img.assign(tmp.begin(), tmp.begin() + sw * sh);
    std::vector<float> c(img.size());
    c_values_plain(img.data(), mask.data(), sw, sh, window, p, c.data());
    std::vector<uint16_t> map(c.size());
    for (size_t i = 0; i < c.size(); ++i) map[i] = uint16_t(factor * double(c[i]));
    maps.push_back(std::move(map));
  }
  return maps;
}

TEST(CambiHeatmaps, FilesHoldEveryFramesScaledCValues) {
  const fs::path dir = fs::path(temp_path("cambi_heatmaps")) / "nested";
  fs::remove_all(dir.parent_path());
  std::vector<Picture> ref, dis;
  for (int f = 0; f < 2; ++f) {
    ref.push_back(synthetic(320, 180, 8, 29));
    dis.push_back(synthetic(320, 180, 8, 31 + 6 * f));  // two different frames
  }
  auto report = run_on_pictures(ref, dis, {"cambi=heatmaps_path=" + dir.string()});
  ASSERT_EQ(column(*report, "cambi").size(), 2u);
  const unsigned window = cambi::adjust_window(65, 320, 180, false);
  ASSERT_EQ(window, 5u);  // ((65 * 500) / 375) >> 4 = 5
  std::vector<std::vector<std::vector<uint16_t>>> expected;
  for (const Picture& p : dis) expected.push_back(expected_heatmaps(p, window));
  unsigned w = 320, h = 180;
  for (int scale = 0; scale < cambi::kNumScales; ++scale) {
    const fs::path file = dir / fmt::format("cambi_heatmap_scale_{}_{}x{}_16b.gray", scale, w, h);
    ASSERT_TRUE(fs::exists(file)) << file;
    std::vector<uint16_t> data = read_u16(file);
    ASSERT_EQ(data.size(), size_t{2} * w * h) << file;
    size_t nonzero = 0;
    for (int f = 0; f < 2; ++f) {
      const auto& want = expected[size_t(f)][size_t(scale)];
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_EQ(data[size_t(f) * want.size() + i], want[i]) << file << " frame " << f << " " << i;
        nonzero += want[i] != 0;
      }
    }
    EXPECT_GT(nonzero, 0u) << file;
    w = (w + 1) / 2, h = (h + 1) / 2;
  }
  fs::remove_all(dir.parent_path());
}

TEST(CambiHeatmaps, SpeedupKeepsUpstreamFileNamesWithHalfSizeMaps) {
  const fs::path dir = temp_path("cambi_heatmaps_hrs");
  fs::remove_all(dir);
  run_synthetic(1920, 1080, 8, "cambi=cambi_high_res_speedup=1080:heatmaps_path=" + dir.string());
  unsigned w = 1920, h = 1080, aw = 960, ah = 540;
  for (int scale = 0; scale < cambi::kNumScales; ++scale) {
    const fs::path file = dir / fmt::format("cambi_heatmap_scale_{}_{}x{}_16b.gray", scale, w, h);
    ASSERT_TRUE(fs::exists(file)) << file;
    EXPECT_EQ(fs::file_size(file), uintmax_t{aw} * ah * 2) << file;
    w = (w + 1) / 2, h = (h + 1) / 2, aw = (aw + 1) / 2, ah = (ah + 1) / 2;
  }
  fs::remove_all(dir);
}

TEST(CambiHeatmaps, UnwritableFolderIsAnInputError) {
  const fs::path file = temp_path("cambi_heatmaps_file");
  std::ofstream(file) << "x";
  EXPECT_NE(init_error("heatmaps_path=" + (file / "sub").string(), 640, 360), "");
  fs::remove(file);
}

}  // namespace
}  // namespace vqx::test
