// speed_chroma as a metric: output names and option plumbing, refused options and inputs, the
// spec's synthetic vectors D and E (vmaf.md 12.2-12.3), the singular case, bit-depth and thread
// invariance.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/error.h"
#include "engine/metric.h"
#include "metrics/speed_chroma/speed_chroma.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

constexpr const char* kV1 =
    "speed_chroma=speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:speed_max_val=45";
constexpr const char* kV1Suffix = "_mxv_45_nnf_0.1_snn_0.19_wvm_5";

std::vector<std::string> names_for(const std::string& spec) {
  MetricRequest r = parse_metric_request(spec);
  return r.metric->make_cpu(r.options)->feature_names();
}

TEST(SpeedChromaNames, DefaultsHaveNoSuffix) {
  EXPECT_EQ(names_for("speed_chroma"),
            (std::vector<std::string>{"speed_chroma_u", "speed_chroma_v", "speed_chroma_uv"}));
}

TEST(SpeedChromaNames, V1OptionSetsMatchLibvmaf) {
  EXPECT_EQ(names_for(kV1)[2], std::string("speed_chroma_uv") + kV1Suffix);
  // 3d0h also names speed_kernelscale=1.0, the default: no suffix, same instance (speed.md 1.3).
  EXPECT_EQ(names_for(std::string(kV1) + ":speed_kernelscale=1.0")[0],
            std::string("speed_chroma_u") + kV1Suffix);
  EXPECT_EQ(names_for(std::string(kV1) + ":speed_prescale=0.6:speed_prescale_method=bilinear")[1],
            "speed_chroma_v_mxv_45_nnf_0.1_ps_0.6_psm_bilinear_snn_0.19_wvm_5");
  EXPECT_EQ(names_for("speed_chroma=speed_prescale_method=bilinear:speed_prescale=0.5:"
                      "speed_kernelscale=2")[2],
            "speed_chroma_uv_ks_2_ps_0.5_psm_bilinear");
}

TEST(SpeedChromaNames, NumbersGoThroughTheF32RoundTrip) {
  // vmaf.md 5: strtof then "%g": six significant digits survive.
  EXPECT_EQ(names_for("speed_chroma=speed_sigma_nn=0.123456789")[0], "speed_chroma_u_snn_0.123457");
  // An explicit default is no suffix, a non-default int is.
  EXPECT_EQ(names_for("speed_chroma=speed_max_val=1000:speed_weight_var_mode=0")[0],
            "speed_chroma_u");
  EXPECT_EQ(names_for("speed_chroma=speed_weight_var_mode=3")[0], "speed_chroma_u_wvm_3");
  // The method is named even when the prescale is off (upstream does the same).
  EXPECT_EQ(names_for("speed_chroma=speed_prescale_method=bicubic")[0],
            "speed_chroma_u_psm_bicubic");
}

TEST(SpeedChromaOptions, ResolvedValuesAreNarrowedAsUpstream) {
  MetricRequest r = parse_metric_request(kV1);
  speed::SpeedParams p = speed::resolve_params(r.options);
  uint32_t bits;
  std::memcpy(&bits, &p.sigma_nn, 4);
  EXPECT_EQ(bits, 0x3e428f5cu);
  std::memcpy(&bits, &p.nn_floor, 4);
  EXPECT_EQ(bits, 0x3dcccccdu);
  EXPECT_EQ(p.max_val, 45.0);
  EXPECT_EQ(p.weight_var_mode, 5);
}

TEST(SpeedChromaOptions, InvalidValuesAreRefused) {
  auto make = [](const std::string& spec) {
    MetricRequest r = parse_metric_request(spec);
    return r.metric->make_cpu(r.options);
  };
  EXPECT_THROW(make("speed_chroma=speed_kernelscale=0.8"), UsageError);  // not one of the 21
  EXPECT_NO_THROW(make("speed_chroma=speed_kernelscale=1.5"));
  EXPECT_NO_THROW(make("speed_chroma=speed_kernelscale=0.6667"));  // within 1e-3 of 2/3
  EXPECT_THROW(make("speed_chroma=speed_kernelscale=5"), UsageError);
  EXPECT_THROW(make("speed_chroma=speed_prescale=0.05"), UsageError);
  EXPECT_THROW(make("speed_chroma=speed_sigma_nn=0"), UsageError);
  EXPECT_THROW(make("speed_chroma=speed_nn_floor=1.5"), UsageError);
  EXPECT_THROW(make("speed_chroma=speed_max_val=-1"), UsageError);
  EXPECT_THROW(make("speed_chroma=speed_weight_var_mode=7"), UsageError);
  EXPECT_THROW(make("speed_chroma=speed_prescale_method=area"), UsageError);
  EXPECT_THROW(make("speed_chroma=ps=0.5"), UsageError);  // aliases name outputs, not options
  // Unverified resamplers are refused only where they would run.
  EXPECT_THROW(make("speed_chroma=speed_prescale=0.5:speed_prescale_method=bicubic"), UsageError);
  EXPECT_THROW(make("speed_chroma=speed_prescale=0.5:speed_prescale_method=lanczos4"), UsageError);
  EXPECT_NO_THROW(make("speed_chroma=speed_prescale_method=lanczos4"));
}

// ---- synthetic pictures -------------------------------------------------------------------

PictureFormat format(uint32_t w, uint32_t h, ChromaSubsampling s, uint8_t bpc) {
  PictureFormat f;
  f.width = w;
  f.height = h;
  f.subsampling = s;
  f.bit_depth = bpc;
  return f;
}

void set_sample(Picture& p, unsigned plane, uint32_t x, uint32_t y, uint32_t v) {
  const size_t i = size_t(y) * p.format().plane_width(plane) + x;
  if (p.format().bit_depth > 8)
    p.plane<uint16_t>(plane)[i] = uint16_t(v);
  else
    p.plane<uint8_t>(plane)[i] = uint8_t(v);
}

int base(int x, int y) { return ((3 * x + 2 * y) + ((x ^ y) & 15)) % 200 + 24; }

// Chroma of the vmaf.md 12.2 vectors ('tex' for D, 'flat' for E); luma does not matter here.
void vector_frames(bool textured, int frames, std::vector<Picture>& ref,
                   std::vector<Picture>& dis) {
  const PictureFormat f = format(640, 480, ChromaSubsampling::k420, 8);
  for (int t = 0; t < frames; ++t) {
    Picture r(f), d(f);
    std::memset(r.bytes(), 128, r.size_bytes());
    std::memset(d.bytes(), 128, d.size_bytes());
    if (textured) {
      auto clamp = [](int v) { return v < 0 ? 0 : (v > 255 ? 255 : v); };
      for (uint32_t y = 0; y < f.plane_height(1); ++y)
        for (uint32_t x = 0; x < f.plane_width(1); ++x) {
          const int xi = int(x), yi = int(y);
          const int u = base(xi + 5, yi + 2 * t + 11) / 2 + 64;
          const int v = base(2 * xi + 1, yi + t) / 2 + 60;
          set_sample(r, 1, x, y, uint32_t(u));
          set_sample(r, 2, x, y, uint32_t(v));
          set_sample(d, 1, x, y, uint32_t(clamp(u + ((7 * xi + 3 * yi + t) % 5 - 2))));
          set_sample(d, 2, x, y, uint32_t(clamp(v + ((3 * xi + 5 * yi + t) % 7 - 3))));
        }
    }
    ref.push_back(std::move(r));
    dis.push_back(std::move(d));
  }
}

TEST(SpeedChromaVectors, VectorDMatchesLibvmaf) {
  std::vector<Picture> ref, dis;
  vector_frames(true, 4, ref, dis);
  auto report = run_on_pictures(ref, dis, {kV1});
  // upstream CLI, vmaf_v1.0.16_3d0h on vector D (data/vmaf_vectors/D), %.17g.
  const std::vector<double> u = {0.05968920513987541, 0.0416259765625, 0.07129669189453125,
                                 0.05546315386891365};
  const std::vector<double> v = {0.27804121375083923, 0.25413259863853455, 0.3719596862792969,
                                 0.2319844514131546};
  const std::vector<double> uv = {0.16886520385742188, 0.14787928760051727, 0.22162818908691406,
                                  0.14372380077838898};
  expect_bit_exact(column(*report, std::string("speed_chroma_u") + kV1Suffix), u, "D u");
  expect_bit_exact(column(*report, std::string("speed_chroma_v") + kV1Suffix), v, "D v");
  expect_bit_exact(column(*report, std::string("speed_chroma_uv") + kV1Suffix), uv, "D uv");
  // 3d0h_2160 (prescale 0.5): 320x240 chroma scales to 160x120, one row of blocks, N = 6 <= 25:
  // always singular, every value 0.
  testing::internal::CaptureStderr();
  auto ps = run_on_pictures(
      ref, dis, {std::string(kV1) + ":speed_prescale=0.5:speed_prescale_method=bilinear"});
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("covariance matrix is singular"), std::string::npos) << err;
  for (const char* p : {"u", "v", "uv"})
    expect_bit_exact(column(*ps, std::string("speed_chroma_") + p +
                                     "_mxv_45_nnf_0.1_ps_0.5_psm_bilinear_snn_0.19_wvm_5"),
                     {0, 0, 0, 0}, std::string("D ps0.5 ") + p);
}

TEST(SpeedChromaVectors, FlatChromaIsSingularAndScoresZero) {
  std::vector<Picture> ref, dis;
  vector_frames(false, 4, ref, dis);
  testing::internal::CaptureStderr();
  auto report = run_on_pictures(ref, dis, {kV1});
  const std::string err = testing::internal::GetCapturedStderr();
  for (const char* p : {"u", "v", "uv"})
    expect_bit_exact(column(*report, std::string("speed_chroma_") + p + kV1Suffix), {0, 0, 0, 0},
                     std::string("E ") + p);
  // One line for the first failed image, one with the total: 4 frames x 2 planes x 2 images.
  EXPECT_NE(err.find("frame 0 plane U (reference): covariance matrix is singular"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("16 images failed"), std::string::npos) << err;
}

TEST(SpeedChromaSingular, N576PrescaledIsSingularInEveryImage) {
  VQX_REQUIRE_FIXTURE("n576", dir);
  for (const char* ps : {"0.6", "0.5"}) {
    testing::internal::CaptureStderr();
    auto report = run_on_pair(
        "n576", {std::string(kV1) + ":speed_prescale=" + ps + ":speed_prescale_method=bilinear"});
    const std::string err = testing::internal::GetCapturedStderr();
    // libvmaf warns 192 times (48 frames x 2 planes x 2 images); vqx once plus the total.
    EXPECT_NE(err.find("covariance matrix is singular; the plane score is 0"), std::string::npos);
    EXPECT_NE(err.find("192 images failed"), std::string::npos) << err;
    const std::string suffix =
        std::string("_mxv_45_nnf_0.1_ps_") + ps + "_psm_bilinear_snn_0.19_wvm_5";
    for (const char* p : {"u", "v", "uv"})
      expect_bit_exact(column(*report, std::string("speed_chroma_") + p + suffix),
                       std::vector<double>(48, 0.0), std::string("n576 ") + p);
  }
}

TEST(SpeedChromaInputs, UnscorableInputsAreRefused) {
  auto run = [](const PictureFormat& f, const std::string& spec) {
    std::vector<Picture> ref, dis;
    ref.emplace_back(f);
    dis.emplace_back(f);
    std::memset(ref[0].bytes(), 100, ref[0].size_bytes());
    std::memset(dis[0].bytes(), 100, dis[0].size_bytes());
    return run_on_pictures(ref, dis, {spec});
  };
  // 128x128 4:2:0: 64x64 chroma, below 80 (upstream segfaults).
  EXPECT_THROW(run(format(128, 128, ChromaSubsampling::k420, 8), kV1), InputError);
  // 4:0:0 has no chroma.
  EXPECT_THROW(run(format(320, 240, ChromaSubsampling::k400, 8), kV1), InputError);
  // 9-bit would be read as 8-bit data by upstream.
  EXPECT_THROW(run(format(320, 240, ChromaSubsampling::k420, 9), kV1), InputError);
  // 160x160 4:2:0 is the smallest at ps = 1; with ps = 0.5 it is too small.
  EXPECT_NO_THROW(run(format(160, 160, ChromaSubsampling::k420, 8), kV1));
  EXPECT_THROW(run(format(160, 160, ChromaSubsampling::k420, 8),
                   std::string(kV1) + ":speed_prescale=0.5:speed_prescale_method=bilinear"),
               InputError);
  // A prescale within 1e-3 of 1 that changes the size (speed.md 5.1): 1000 -> 1001.
  EXPECT_THROW(
      run(format(2000, 320, ChromaSubsampling::k420, 8), "speed_chroma=speed_prescale=1.0005"),
      InputError);
  EXPECT_NO_THROW(
      run(format(320, 320, ChromaSubsampling::k420, 8), "speed_chroma=speed_prescale=1.0005"));
}

// Seeded noise plus a gradient in the chroma planes.
void noise_frames(const PictureFormat& f, int frames, unsigned shift, std::vector<Picture>& ref,
                  std::vector<Picture>& dis) {
  uint32_t s = 12345;
  auto rnd = [&s] {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return s;
  };
  for (int t = 0; t < frames; ++t) {
    Picture r(f), d(f);
    std::memset(r.bytes(), 0, r.size_bytes());
    std::memset(d.bytes(), 0, d.size_bytes());
    for (unsigned p = 1; p < 3; ++p)
      for (uint32_t y = 0; y < f.plane_height(p); ++y)
        for (uint32_t x = 0; x < f.plane_width(p); ++x) {
          const uint32_t v = (x * 3 + y * 2 + p * 40 + rnd() % 40) % 220 + 16;
          const uint32_t w = std::min<uint32_t>(255, v + rnd() % 9);
          set_sample(r, p, x, y, v << shift);
          set_sample(d, p, x, y, w << shift);
        }
    ref.push_back(std::move(r));
    dis.push_back(std::move(d));
  }
}

TEST(SpeedChromaInputs, DeeperSamplesScaleToTheSameScores) {
  // speed.md 3: p / 2^(bpc-8) - 128 is exact, so shifted 8-bit content gives the same bits.
  for (ChromaSubsampling sub :
       {ChromaSubsampling::k420, ChromaSubsampling::k422, ChromaSubsampling::k444}) {
    std::vector<double> first;
    for (uint8_t bpc : {8, 10, 12, 16}) {
      std::vector<Picture> ref, dis;
      noise_frames(format(402, 330, sub, bpc), 2, unsigned(bpc - 8), ref, dis);
      auto report = run_on_pictures(ref, dis, {kV1});
      auto uv = column(*report, std::string("speed_chroma_uv") + kV1Suffix);
      ASSERT_GT(uv[0], 0.0);
      if (first.empty())
        first = uv;
      else
        expect_bit_exact(uv, first, std::string("bpc ") + std::to_string(bpc));
    }
  }
}

TEST(SpeedChromaThreads, ThreadCountDoesNotChangeBits) {
  const std::vector<std::string> specs = {
      kV1, std::string(kV1) + ":speed_prescale=0.6:speed_prescale_method=bilinear",
      std::string(kV1) + ":speed_prescale=0.5:speed_prescale_method=bilinear"};
  for (const std::string pair : {"band1080", "odd853", "hbd720"}) {
    if (!fixture_dir(pair)) {
      if (fixtures_required()) FAIL() << "fixture " << pair << " is missing";
      GTEST_SKIP() << "fixtures not available (set VQX_FIXTURES)";
    }
    for (const auto& spec : specs) {
      std::vector<std::vector<double>> runs;
      const std::string uv = names_for(spec)[2];
      for (unsigned threads : {0u, 1u, 2u}) {
        RunSettings settings;
        settings.threads = threads;
        runs.push_back(column(*run_on_pair(pair, {spec}, settings), uv));
      }
      expect_bit_exact(runs[1], runs[0], pair + " threads 1 vs 0 " + uv);
      expect_bit_exact(runs[2], runs[0], pair + " threads 2 vs 0 " + uv);
    }
  }
}

}  // namespace
}  // namespace vqx::test
