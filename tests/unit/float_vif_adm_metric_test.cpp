// float_vif and float_adm as metrics: libvmaf's output names and option suffixes, refused options
// and inputs, every prescale method and CSF mode, and the x86 reciprocal quotient of float_adm's
// decoupling (a documented x86-build rule, docs/float_adm.md).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/error.h"
#include "engine/metric.h"
#include "metrics/float_adm/adm_stages.h"
#include "metrics/float_vif/vif_stages.h"
#include "metrics/speed_core/speed_preprocess.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

std::vector<std::string> names_for(const std::string& spec) {
  MetricRequest r = parse_metric_request(spec);
  return r.metric->make_cpu(r.options)->feature_names();
}

std::unique_ptr<RunReport> run_pair(const PictureFormat& f, const std::string& feature) {
  std::vector<Picture> ref, dis;
  ref.push_back(make_picture(f, 1, 30));
  dis.push_back(make_picture(f, 2, 30));
  return run_on_pictures(ref, dis, {feature});
}

TEST(FloatVif, NamesAndSuffixesAreLibvmafs) {
  EXPECT_EQ(names_for("float_vif"),
            (std::vector<std::string>{"vif_scale0", "vif_scale1", "vif_scale2", "vif_scale3"}));
  EXPECT_EQ(names_for("float_vif=vif_enhn_gain_limit=1.0:vif_kernelscale=0.5")[1],
            "vif_scale1_egl_1_ks_0.5");
  EXPECT_EQ(names_for("float_vif=vif_prescale=2:vif_prescale_method=bicubic")[0],
            "vif_scale0_ps_2_pm_bicubic");
  EXPECT_EQ(names_for("float_vif=debug=true").size(), 15u);
  EXPECT_EQ(names_for("float_vif=debug=true")[14], "vif_den_scale3");
  EXPECT_THROW(names_for("float_vif=vif_kernelscale=0.8"), UsageError);
  EXPECT_THROW(names_for("float_vif=vif_prescale_method=area"), UsageError);
}

// The filter runs tap by tap over rows of accumulators; every output must still be the plain
// mirrored sum in tap order, and the decimating pass the kept samples of the full filter.
TEST(FloatVif, FiltersAreThePlainSumsInTapOrder) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> sample(-128.0f, 127.0f);
  for (int scale = 0; scale < 4; ++scale) {
    const std::vector<float> taps = float_vif::scale_taps(scale, 1.0f);
    const int r = int(taps.size()) / 2;
    for (auto [w, h] :
         {std::pair{r + 1, r + 1}, {r + 2, 2 * r + 3}, {2 * r + 1, r + 4}, {37, 23}, {64, 17}}) {
      std::vector<float> a(size_t(w) * h), b(a.size());
      for (float& v : a) v = sample(rng);
      for (float& v : b) v = sample(rng);
      for (auto input : {float_vif::FilterInput::kPlain, float_vif::FilterInput::kSquare,
                         float_vif::FilterInput::kProduct}) {
        std::vector<float> got(a.size());
        float_vif::filter(input, taps, a.data(), b.data(), w, h, got.data(), nullptr);
        for (int i = 0; i < h; ++i)
          for (int j = 0; j < w; ++j) {
            float want = 0;
            for (size_t k = 0; k < taps.size(); ++k) {
              const int64_t jj = speed::mirror_index(j - r + int64_t(k), w);
              float v = 0;
              for (size_t q = 0; q < taps.size(); ++q) {
                const size_t at =
                    size_t(speed::mirror_index(i - r + int64_t(q), h)) * w + size_t(jj);
                const float x = input == float_vif::FilterInput::kPlain    ? a[at]
                                : input == float_vif::FilterInput::kSquare ? a[at] * a[at]
                                                                           : a[at] * b[at];
                v += taps[q] * x;
              }
              want += taps[k] * v;
            }
            ASSERT_EQ(got[size_t(i) * w + j], want)
                << "scale " << scale << " " << w << "x" << h << " (" << i << ", " << j << ")";
          }
      }
      std::vector<float> full(a.size()), kept(size_t(w / 2) * (h / 2)), fused(kept.size());
      float_vif::filter(float_vif::FilterInput::kPlain, taps, a.data(), nullptr, w, h, full.data(),
                        nullptr);
      float_vif::decimate(full.data(), w, h, kept.data());
      float_vif::filter_and_decimate(taps, a.data(), w, h, fused.data(), nullptr);
      ASSERT_EQ(fused, kept) << "scale " << scale << " " << w << "x" << h;
    }
  }
}

TEST(FloatVif, EveryPrescaleMethodScores) {
  const PictureFormat f = make_format(96, 64);
  for (const char* m : {"nearest", "bilinear", "bicubic", "lanczos4"})
    for (const char* ps : {"0.75", "1.5"}) {
      auto report =
          run_pair(f, std::string("float_vif=vif_prescale=") + ps + ":vif_prescale_method=" + m);
      for (int s = 0; s < 4; ++s) {
        const double v = column(*report, report->table.feature_names()[size_t(s)])[0];
        EXPECT_TRUE(std::isfinite(v) && v > 0 && v <= 1.0)
            << m << " " << ps << " scale " << s << ": " << v;
      }
    }
}

TEST(FloatVif, IdenticalPicturesScoreOne) {
  auto pics = make_pictures(make_format(64, 48, ChromaSubsampling::k420, 10), {5});
  auto report = run_on_pictures(pics, pics, {"float_vif"});
  for (int s = 0; s < 4; ++s)
    EXPECT_NEAR(column(*report, "vif_scale" + std::to_string(s))[0], 1.0, 1e-5);
}

TEST(FloatVif, RefusesPicturesTooSmallForTheFilters) {
  EXPECT_THROW(run_pair(make_format(15, 40), "float_vif"), InputError);  // scale 3 is 1 wide
  EXPECT_NO_THROW(run_pair(make_format(16, 16), "float_vif"));
  EXPECT_THROW(
      run_pair(make_format(7700, 16), "float_vif=vif_prescale=1.01:vif_prescale_method=bilinear"),
      InputError);
}

TEST(FloatAdm, NamesAndSuffixesAreLibvmafs) {
  EXPECT_EQ(names_for("float_adm"),
            (std::vector<std::string>{"adm2", "aim", "adm3", "adm_scale0", "adm_scale1",
                                      "adm_scale2", "adm_scale3"}));
  // float_adm's display-height alias is rdf (integer adm's is rdh).
  EXPECT_EQ(names_for("float_adm=adm_ref_display_height=2160:adm_csf_mode=1")[0],
            "adm2_csf_1_rdf_2160");
  EXPECT_EQ(names_for("float_adm=adm_skip_aim_scale=0:adm_adm3_apply_hm=true")[2],
            "adm3_aah_sasc_0");
  EXPECT_EQ(names_for("float_adm=debug=true").size(), 18u);
  // "adm" is not among upstream's named outputs and keeps its bare name.
  EXPECT_EQ(names_for("float_adm=debug=true:adm_csf_mode=1")[7], "adm");
  EXPECT_EQ(names_for("float_adm=debug=true:adm_csf_mode=1")[8], "adm_num_csf_1");
  // The default -1 lies outside the option's range [0, 3], as upstream's table has it.
  EXPECT_THROW(names_for("float_adm=adm_skip_aim_scale=-1"), UsageError);
}

TEST(FloatAdm, EveryCsfModeAndOverrideScores) {
  const PictureFormat f = make_format(80, 64);
  double watson = 0;
  for (const char* spec :
       {"float_adm", "float_adm=adm_csf_mode=1", "float_adm=adm_csf_mode=2",
        "float_adm=adm_f1s0=0.5:adm_f2s3=2", "float_adm=adm_p_norm=2:adm_bypass_cm=1",
        "float_adm=adm_skip_scale0=true"}) {
    auto report = run_pair(f, spec);
    const auto& names = report->table.feature_names();
    const double adm2 = column(*report, names[0])[0];
    EXPECT_TRUE(std::isfinite(adm2) && adm2 > 0) << spec << ": " << adm2;
    if (std::string(spec) == "float_adm")
      watson = adm2;
    else
      EXPECT_NE(adm2, watson) << spec << " left the score unchanged";
  }
}

TEST(FloatAdm, IdenticalPicturesScoreOne) {
  auto pics = make_pictures(make_format(64, 48), {7});
  auto report = run_on_pictures(pics, pics, {"float_adm"});
  EXPECT_NEAR(column(*report, "adm2")[0], 1.0, 1e-5);
  EXPECT_NEAR(column(*report, "aim")[0], 0.0, 1e-5);
}

TEST(FloatAdm, RefusesPicturesBelow17) {
  EXPECT_THROW(run_pair(make_format(16, 40), "float_adm"), InputError);
  EXPECT_NO_THROW(run_pair(make_format(17, 17), "float_adm"));
}

// x86-64 builds: the decoupling's quotient is RCPSS refined once, not n / d. It stays within a
// few f32 ulps of the quotient but is not always it.
TEST(FloatAdm, QuotientIsTheRefinedReciprocalOnX86) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> value(-100.0f, 100.0f);
  int differs = 0;
  for (int i = 0; i < 100000; ++i) {
    const float n = value(rng), d = value(rng);
    const float q = float_adm::quotient(n, d);
    EXPECT_LE(std::fabs(double(q) - double(n) / d), 4e-7 * std::fabs(double(n) / d) + 1e-30)
        << n << " / " << d;
    differs += q != n / d;
  }
#if defined(__SSE2__)
  EXPECT_GT(differs, 1000);
#else
  EXPECT_EQ(differs, 0);
#endif
}

}  // namespace
}  // namespace vqx::test
