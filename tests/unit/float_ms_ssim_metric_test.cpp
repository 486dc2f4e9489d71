// float_ms_ssim and float_ssim as metrics: the spec's synthetic golden vectors (section 11), the
// size rules, the options, every bit depth and chroma layout, and thread-count invariance.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>

#include "core/error.h"
#include "metrics/float_ms_ssim/float_ms_ssim.h"
#include "metrics/float_ssim/float_ssim.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

uint64_t bits(double v) { return std::bit_cast<uint64_t>(v); }

// Spec 11 (= ssimulacra2.md 16, luma only): a fixed pattern and xorshift32 noise with blocky
// quantisation. Chroma is mid-grey; MS-SSIM ignores it.
std::pair<Picture, Picture> spec_pair(uint32_t w, uint32_t h, uint8_t bpc,
                                      ChromaSubsampling layout = ChromaSubsampling::k420) {
  PictureFormat f;
  f.width = w;
  f.height = h;
  f.bit_depth = bpc;
  f.subsampling = layout;
  Picture ref(f), dis(f);
  uint32_t state = 2463534242u;
  auto rnd = [&] {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  };
  const int sh = bpc - 8;
  const int64_t max = (int64_t{1} << bpc) - 1;
  auto set = [&](Picture& p, unsigned plane, size_t i, int64_t v) {
    if (bpc > 8)
      p.plane<uint16_t>(plane)[i] = uint16_t(v);
    else
      p.plane<uint8_t>(plane)[i] = uint8_t(v);
  };
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      const int64_t v = int64_t(((3 * x + 2 * y) + ((x ^ y) & 15)) % 200 + 24) << sh;
      int64_t d = v + (int64_t(rnd() % 9) - 4) * (int64_t{1} << sh);
      if (((x / 8) + (y / 8)) % 5 == 0) d = (d >> (sh + 3)) << (sh + 3);
      d = std::clamp<int64_t>(d, 0, max);
      set(ref, 0, size_t(y) * w + x, v);
      set(dis, 0, size_t(y) * w + x, d);
    }
  for (unsigned p = 1; p < f.plane_count(); ++p)
    for (size_t i = 0; i < size_t(f.plane_width(p)) * f.plane_height(p); ++i) {
      set(ref, p, i, int64_t{128} << sh);
      set(dis, p, i, int64_t{128} << sh);
    }
  return {std::move(ref), std::move(dis)};
}

std::vector<Picture> one(Picture p) {
  std::vector<Picture> v;
  v.push_back(std::move(p));
  return v;
}

double run_single(const std::pair<Picture, Picture>& pair, const std::string& feature,
                  const std::string& column_name, unsigned threads = 0) {
  std::vector<Picture> r, d;
  r.emplace_back(pair.first.format());
  d.emplace_back(pair.second.format());
  std::memcpy(r[0].bytes(), pair.first.bytes(), pair.first.size_bytes());
  std::memcpy(d[0].bytes(), pair.second.bytes(), pair.second.size_bytes());
  RunSettings settings;
  settings.threads = threads;
  auto report = run_on_pictures(r, d, {feature}, settings);
  return column(*report, column_name).at(0);
}

// The plain pipeline, stage by stage, as a CUDA twin would be checked.
ssim::MsSsimScores plain_ms_ssim(const Picture& ref, const Picture& dis) {
  ssim::Size size{int(ref.format().width), int(ref.format().height)};
  std::vector<float> r(size.pixels()), d(size.pixels());
  ssim::convert_luma(ref, r.data());
  ssim::convert_luma(dis, d.data());
  ssim::MsSsimScores out;
  for (int k = 0; k < ssim::kScales; ++k) {
    if (k > 0) {
      const ssim::Size half = ssim::half_size(size);
      std::vector<float> r2(half.pixels()), d2(half.pixels());
      ssim::decimate_plain(r.data(), size, r2.data());
      ssim::decimate_plain(d.data(), size, d2.data());
      r.swap(r2);
      d.swap(d2);
      size = half;
    }
    out.means[size_t(k)] = ssim::ssim_scale_plain(r.data(), d.data(), size);
  }
  out.score = ssim::combine_scales(out.means, &out.infinite);
  return out;
}

struct SpecVector {
  uint32_t w, h;
  uint8_t bpc;
  double score;
};
const SpecVector kSpecVectors[] = {
    {176, 176, 8, 0.9953594375060858},
    {256, 192, 8, 0.99552853131579622},
    {576, 324, 8, 0.99537055936314012},
    {300, 200, 10, 0.9954188853371837},
};

TEST(FloatMsSsimMetric, SpecGoldenVectorsBitExactOnEveryPath) {
  for (const SpecVector& v : kSpecVectors) {
    const auto pair = spec_pair(v.w, v.h, v.bpc);
    const std::string what = fmt::format("{}x{} {}-bit", v.w, v.h, v.bpc);
    EXPECT_EQ(bits(plain_ms_ssim(pair.first, pair.second).score), bits(v.score))
        << what << " plain";
    ssim::MsSsimScratch scratch;
    const std::pair<const char*, ssim::SsimKernels> tables[] = {
        {"plain table", ssim::make_ssim_kernels(CpuFeatures{})},
        {"host table", ssim::ssim_kernels()}};
    for (const auto& [name, kernels] : tables)
      EXPECT_EQ(
          bits(ssim::compute_ms_ssim(pair.first, pair.second, scratch, nullptr, kernels).score),
          bits(v.score))
          << what << " " << name;
    EXPECT_EQ(bits(run_single(pair, "float_ms_ssim", "float_ms_ssim", 2)), bits(v.score))
        << what << " engine";
  }
}

TEST(FloatMsSsimMetric, SpecPerScaleMeansAt576x324) {
  const double expected[5][3] = {
      {0.99987238645553589, 0.99596917629241943, 0.95701926946640015},
      {0.99993842840194702, 0.99927914142608643, 0.99331670999526978},
      {0.9999728798866272, 0.99986797571182251, 0.99909919500350952},
      {0.99998295307159424, 0.99998795986175537, 0.99983501434326172},
      {0.99998414516448975, 0.99999761581420898, 0.99988257884979248},
  };
  auto pair = spec_pair(576, 324, 8);
  std::vector<Picture> r = one(std::move(pair.first));
  std::vector<Picture> d = one(std::move(pair.second));
  auto report = run_on_pictures(r, d, {"float_ms_ssim=enable_lcs=true"});
  const char* terms[3] = {"l", "c", "s"};
  for (int k = 0; k < 5; ++k)
    for (int t = 0; t < 3; ++t) {
      const std::string name = fmt::format("float_ms_ssim_{}_scale{}", terms[t], k);
      EXPECT_EQ(bits(column(*report, name).at(0)), bits(expected[k][t])) << name;
    }
}

TEST(FloatMsSsimMetric, IdenticalInputsScoreExactlyOne) {
  auto pair = spec_pair(200, 180, 8);
  std::memcpy(pair.second.bytes(), pair.first.bytes(), pair.first.size_bytes());
  EXPECT_EQ(run_single(pair, "float_ms_ssim", "float_ms_ssim"), 1.0);
  EXPECT_EQ(run_single(pair, "float_ssim", "float_ssim"), 1.0);
  // enable_db: a perfect score is +inf without clip_db, max_db with it (spec section 6).
  EXPECT_EQ(run_single(pair, "float_ms_ssim=enable_db=true", "float_ms_ssim"), INFINITY);
  const double cap = std::ceil(10. * std::log10(65025.0 / (0.5 / (200.0 * 180.0))));
  EXPECT_EQ(run_single(pair, "float_ms_ssim=enable_db=true:clip_db=true", "float_ms_ssim"), cap);
  EXPECT_EQ(run_single(pair, "float_ssim=enable_db=true:clip_db=true", "float_ssim"), cap);
}

TEST(FloatMsSsimMetric, EnableDbConvertsTheScore) {
  const auto pair = spec_pair(256, 192, 8);
  const double score = 0.99552853131579622;  // spec 11
  const double db = -10. * std::log10(1 - score);
  EXPECT_EQ(bits(run_single(pair, "float_ms_ssim=enable_db=true", "float_ms_ssim")), bits(db));
  // clip_db alone changes nothing; with enable_db the cap (8-bit 256x192: 109) is above this score.
  EXPECT_EQ(bits(run_single(pair, "float_ms_ssim=clip_db=true", "float_ms_ssim")), bits(score));
  EXPECT_EQ(bits(run_single(pair, "float_ms_ssim=enable_db=true:clip_db=true", "float_ms_ssim")),
            bits(db));
  const double ssim = run_single(pair, "float_ssim", "float_ssim");
  EXPECT_EQ(bits(run_single(pair, "float_ssim=enable_db=true", "float_ssim")),
            bits(-10. * std::log10(1 - ssim)));
}

TEST(FloatMsSsimMetric, EnableLcsAddsFifteenOutputsInLibvmafOrder) {
  auto cpu = float_ms_ssim_descriptor().make_cpu(OptionValues(float_ms_ssim_descriptor().options));
  EXPECT_EQ(cpu->feature_names(), std::vector<std::string>{"float_ms_ssim"});
  auto request = parse_metric_request("float_ms_ssim=enable_lcs=true");
  auto names = request.metric->make_cpu(request.options)->feature_names();
  ASSERT_EQ(names.size(), 16u);
  EXPECT_EQ(names[1], "float_ms_ssim_l_scale0");
  EXPECT_EQ(names[5], "float_ms_ssim_l_scale4");
  EXPECT_EQ(names[6], "float_ms_ssim_c_scale0");
  EXPECT_EQ(names[15], "float_ms_ssim_s_scale4");
  auto ssim_request = parse_metric_request("float_ssim=enable_lcs=true");
  EXPECT_EQ(
      ssim_request.metric->make_cpu(ssim_request.options)->feature_names(),
      (std::vector<std::string>{"float_ssim", "float_ssim_l", "float_ssim_c", "float_ssim_s"}));
}

TEST(FloatMsSsimMetric, SizeRuleRejectsBelow176) {
  // Upstream accepts exactly w >= 176 and h >= 176 (11 at the 5th scale, floor halving).
  EXPECT_NO_THROW(run_single(spec_pair(176, 176, 8), "float_ms_ssim", "float_ms_ssim"));
  for (auto [w, h] : {std::pair{175u, 176u}, {176u, 175u}, {64u, 48u}}) {
    try {
      run_single(spec_pair(w, h, 8), "float_ms_ssim", "float_ms_ssim");
      ADD_FAILURE() << w << "x" << h << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("176x176"), std::string::npos) << e.what();
    }
  }
}

TEST(FloatMsSsimMetric, FloatSsimSizeRule) {
  // Auto factor 1 below 384 px: an 11x11 picture works, 10x11 does not.
  EXPECT_NO_THROW(
      run_single(spec_pair(11, 11, 8, ChromaSubsampling::k444), "float_ssim", "float_ssim"));
  EXPECT_THROW(
      run_single(spec_pair(10, 11, 8, ChromaSubsampling::k444), "float_ssim", "float_ssim"),
      InputError);
  // scale=10 on 109x200: 109/10 + 1 = 11 columns works; 108x200 gives 10 and is refused.
  EXPECT_NO_THROW(run_single(spec_pair(109, 200, 8), "float_ssim=scale=10", "float_ssim"));
  EXPECT_THROW(run_single(spec_pair(108, 200, 8), "float_ssim=scale=10", "float_ssim"), InputError);
}

TEST(FloatMsSsimMetric, FloatSsimAutoFactorFollowsIqaRounding) {
  using ssim::box_factor;
  EXPECT_EQ(box_factor(0, {576, 324}), 1);
  EXPECT_EQ(box_factor(0, {1920, 1080}), 4);
  EXPECT_EQ(box_factor(0, {853, 481}), 2);
  EXPECT_EQ(box_factor(0, {1280, 720}), 3);
  EXPECT_EQ(box_factor(0, {3840, 2160}), 8);
  EXPECT_EQ(box_factor(0, {1000, 384}), 2);  // 1.5 rounds up
  EXPECT_EQ(box_factor(0, {100, 100}), 1);   // never below 1
  EXPECT_EQ(box_factor(3, {3840, 2160}), 3);
  EXPECT_EQ(ssim::box_decimated_size({853, 481}, 2), (ssim::Size{427, 241}));
  EXPECT_EQ(ssim::box_decimated_size({855, 481}, 5), (ssim::Size{172, 97}));
}

TEST(FloatMsSsimMetric, HigherBitDepthsScoreLikeTheirEightBitSource) {
  // The generator's pictures at bpc are its 8-bit pictures shifted left by bpc-8 (no clamping
  // happens), and v << (bpc-8) converts back to exactly v, so every depth scores like 8-bit. Luma
  // only, so the chroma layout never matters.
  const double ms8 = run_single(spec_pair(300, 200, 8), "float_ms_ssim", "float_ms_ssim");
  const double ss8 = run_single(spec_pair(300, 200, 8), "float_ssim", "float_ssim");
  for (uint8_t bpc : {9, 10, 12, 14, 16})
    for (ChromaSubsampling layout : {ChromaSubsampling::k420, ChromaSubsampling::k422,
                                     ChromaSubsampling::k444, ChromaSubsampling::k400}) {
      const auto pair = spec_pair(300, 200, bpc, layout);
      const double ms = run_single(pair, "float_ms_ssim", "float_ms_ssim");
      const std::string what = fmt::format("{}-bit {}", bpc, to_string(layout));
      EXPECT_EQ(bits(ms), bits(ms8)) << what;
      EXPECT_EQ(bits(run_single(pair, "float_ssim", "float_ssim")), bits(ss8)) << what;
    }
}

TEST(FloatMsSsimMetric, ThreadCountDoesNotChangeAnyBit) {
  for (auto [w, h] : {std::pair{577u, 325u}, {1001u, 390u}}) {
    const auto pair = spec_pair(w, h, 8);
    for (const char* feature : {"float_ms_ssim", "float_ssim", "float_ssim=scale=1"}) {
      const std::string column_name =
          std::string(feature).substr(0, std::string(feature).find('='));
      const double t0 = run_single(pair, feature, column_name, 0);
      EXPECT_EQ(bits(run_single(pair, feature, column_name, 1)), bits(t0)) << feature << " " << w;
      EXPECT_EQ(bits(run_single(pair, feature, column_name, 2)), bits(t0)) << feature << " " << w;
    }
  }
}

TEST(FloatMsSsimMetric, ThreadCountInvarianceOnAFixture) {
  VQX_REQUIRE_FIXTURE("odd853", dir);
  std::vector<std::string> features = {"float_ms_ssim=enable_lcs=true",
                                       "float_ssim=enable_lcs=true"};
  RunSettings settings;
  settings.threads = 0;
  auto base = run_on_pair("odd853", features, settings);
  for (unsigned threads : {1u, 2u}) {
    settings.threads = threads;
    auto other = run_on_pair("odd853", features, settings);
    for (const char* name : {"float_ms_ssim", "float_ms_ssim_s_scale0", "float_ms_ssim_c_scale4",
                             "float_ssim", "float_ssim_l"}) {
      const auto a = column(*base, name), b = column(*other, name);
      ASSERT_EQ(a.size(), b.size());
      for (size_t i = 0; i < a.size(); ++i)
        EXPECT_EQ(bits(a[i]), bits(b[i])) << name << " frame " << i;
    }
  }
}

TEST(FloatMsSsimMetric, EnableChromaIsAcceptedAndChangesNothing) {
  const auto pair = spec_pair(256, 192, 8);
  EXPECT_EQ(bits(run_single(pair, "float_ms_ssim=enable_chroma=true", "float_ms_ssim")),
            bits(0.99552853131579622));
}

}  // namespace
}  // namespace vqx::test
