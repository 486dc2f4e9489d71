// Unit tests of the integer vif / adm / motion extractors: constants and tables, the plain twin of
// every fast kernel (baseline and AVX2 builds), size and option errors, names, thread and
// subsample invariance.
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "core/error.h"
#include "metrics/integer_adm/adm_math.h"
#include "metrics/integer_motion/motion_math.h"
#include "metrics/integer_vif/vif_math.h"
#include "metrics/vmaf_common/simd.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

// ---- tables and constants (vmaf.md 2.4, 3.6, 12.1) ----

TEST(VmafTables, Log2TableMatchesSpecFile) {
  std::ifstream in(shared_dir() + "/spec/data/vif_log2_table.txt");
  ASSERT_TRUE(in) << "vif_log2_table.txt";
  const uint16_t* t = integer_vif::log2_table();
  std::string line;
  size_t checked = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    uint32_t first, v;
    ss >> first;
    for (uint32_t i = first; ss >> v; ++i, ++checked) ASSERT_EQ(t[i], v) << "L[" << i << "]";
  }
  EXPECT_EQ(checked, 32769u);
  // (The FNV-1a checksum quoted in vmaf.md 2.4 matches neither this table nor the data file
  // itself under the stated convention, so the test compares every entry instead.)
  EXPECT_EQ(t[33108], 30751);  // an exact tie, rounded away from zero
}

TEST(VmafTables, AdmWeightsMatchSpecFile) {
  std::ifstream in(shared_dir() + "/spec/data/adm_csf_weights.tsv");
  ASSERT_TRUE(in);
  struct Config {
    std::string prefix;
    int mode;
    double nvd;
    int rdh;
  };
  const Config configs[] = {{"watson nvd=3 rdh=1080", 0, 3.0, 1080},
                            {"watson nvd=3 rdh=2160", 0, 3.0, 2160},
                            {"watson nvd=5 rdh=1080", 0, 5.0, 1080},
                            {"blend(csf_mode=2) 1080@3H", 2, 3.0, 1080}};
  std::string line;
  size_t checked = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::istringstream ss(line);
    for (std::string c; std::getline(ss, c, '\t');) f.push_back(c);
    if (f.size() < 8 || f[0][0] == '#' || f[0] == "config") continue;
    for (const Config& c : configs) {
      if (f[0].rfind(c.prefix, 0) != 0) continue;
      auto w = integer_adm::adm_weights(c.mode, c.nvd, c.rdh)[std::stoi(f[1])];
      bool d = f[2] == "d";
      float factor = d ? w.f_d : w.f_hv;
      uint32_t bits;
      std::memcpy(&bits, &factor, 4);
      EXPECT_EQ(bits, std::stoul(f[4], nullptr, 16)) << line;
      EXPECT_EQ(d ? w.fixed_d : w.fixed_hv, std::stoul(f[5])) << line;
      double cube = d ? w.cube_d : w.cube_hv;
      uint64_t cbits;
      std::memcpy(&cbits, &cube, 8);
      EXPECT_EQ(cbits, std::stoull(f[7], nullptr, 16)) << line;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 4u * 8u);
}

TEST(VmafTables, AdmRectsWorkedValues) {
  auto r = integer_adm::adm_rects(960, 540);
  EXPECT_EQ(r.extended.left, 94);
  EXPECT_EQ(r.extended.right, 868);
  EXPECT_EQ(r.inner.left, 95);
  EXPECT_EQ(r.inner.right, 865);
  EXPECT_EQ(r.inner.top, 53);
  EXPECT_EQ(r.count, 334180);
  EXPECT_EQ(integer_adm::adm_rects(11, 9).count, 99);
  EXPECT_EQ(integer_adm::adm_rects(1920, 1080).count, 1331908);
}

// ---- fast kernels (baseline and AVX2 builds) against the plain twins, bit for bit ----

struct SimdGuard {
  ~SimdGuard() {
    vmaf_common::set_avx2_allowed(true);
    vmaf_common::set_plain_only(false);
  }
};

// Selects one kernel path for the stage functions.
void use_path(vmaf_common::KernelPath path) {
  vmaf_common::set_plain_only(path == vmaf_common::KernelPath::kPlain);
  vmaf_common::set_avx2_allowed(path == vmaf_common::KernelPath::kAvx2);
}

// Test planes. kNatural: smooth ramp plus noise and hard edges; kExtreme: every sample 0 or the
// maximum (the widest intermediate values); kBlocks: flat blocks of random levels (flat regions,
// sigma1 below the noise variance, all-zero motion rows); kNoise: uniform noise over the range.
enum class Pattern { kNatural, kExtreme, kBlocks, kNoise };

template <typename Sample>
std::vector<Sample> test_plane(uint32_t w, uint32_t h, unsigned bpc, uint32_t seed,
                               Pattern pattern) {
  std::mt19937 rng(seed);
  std::vector<Sample> p(size_t(w) * h);
  const uint32_t mx = (1u << bpc) - 1;
  std::vector<uint32_t> levels(64);
  for (auto& l : levels) l = rng() % (mx + 1);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      uint32_t v = 0;
      switch (pattern) {
        case Pattern::kNatural:
          v = std::min<uint32_t>(mx, ((x * 7 + y * 3) % (mx + 1)) / 2 + rng() % (mx / 4 + 1) +
                                         ((x / 9 + y / 5) % 3 == 0 ? mx / 3 : 0));
          break;
        case Pattern::kExtreme:
          v = (rng() & 1) ? mx : 0;
          break;
        case Pattern::kBlocks:
          v = levels[((x / 11) * 7 + (y / 13) * 3 + seed) % levels.size()];
          break;
        case Pattern::kNoise:
          v = rng() % (mx + 1);
          break;
      }
      p[size_t(y) * w + x] = Sample(v);
    }
  return p;
}

// Runs `produce` (which returns the stage outputs as integers) on the plain twins, the baseline
// build and the AVX2 build, and requires identical outputs.
template <typename Produce>
void expect_paths_agree(const Produce& produce, const std::string& label) {
  SimdGuard guard;
  auto run = [&](vmaf_common::KernelPath path) {
    use_path(path);
    EXPECT_EQ(vmaf_common::kernel_path(), path);
    return produce();
  };
  const std::vector<int64_t> plain = run(vmaf_common::KernelPath::kPlain);
  ASSERT_FALSE(plain.empty());
  std::vector<vmaf_common::KernelPath> paths = {vmaf_common::KernelPath::kBaseline};
  if (__builtin_cpu_supports("avx2")) paths.push_back(vmaf_common::KernelPath::kAvx2);
  for (auto path : paths) {
    const std::vector<int64_t> fast = run(path);
    ASSERT_EQ(plain.size(), fast.size()) << label;
    for (size_t i = 0; i < plain.size(); ++i)
      ASSERT_EQ(plain[i], fast[i]) << "value " << i << " of " << label << ", path " << int(path);
  }
}

struct TwinCase {
  uint32_t w, h;
  unsigned bpc;
};

std::string describe(const TwinCase& c, Pattern pattern) {
  return std::to_string(c.w) + "x" + std::to_string(c.h) + " " + std::to_string(c.bpc) +
         "-bit pattern " + std::to_string(int(pattern));
}

class VmafSimdTwin : public ::testing::TestWithParam<TwinCase> {};

// Every VIF stage on the whole pyramid: the four statistics (two gain limits) and the three
// downsampling steps.
template <typename Sample>
std::vector<int64_t> vif_outputs(const std::vector<Sample>& ref, const std::vector<Sample>& dis,
                                 const TwinCase& c) {
  using namespace integer_vif;
  std::vector<int64_t> out;
  auto add = [&](const VifAccumulators& a) {
    out.insert(out.end(), {a.num_log, a.den_log, a.num_flat, a.den_flat});
  };
  uint32_t w = c.w, h = c.h;
  for (double egl : {100.0, 1.0})
    add(vif_statistic_rows(ref.data(), dis.data(), w, h, 0, c.bpc, egl, 0, h));
  // A band of rows in the middle, as the parallel split calls it.
  add(vif_statistic_rows(ref.data(), dis.data(), w, h, 0, c.bpc, 100.0, h / 3, h / 2));
  std::vector<uint16_t> r(size_t(w / 2) * (h / 2)), d(r.size());
  vif_downsample_rows(ref.data(), w, h, 0, c.bpc, r.data(), 0, h / 2);
  vif_downsample_rows(dis.data(), w, h, 0, c.bpc, d.data(), 0, h / 2);
  w /= 2, h /= 2;
  for (int s = 1; s < kScales; ++s) {
    out.insert(out.end(), r.begin(), r.end());
    out.insert(out.end(), d.begin(), d.end());
    for (double egl : {100.0, 1.0})
      add(vif_statistic_rows(r.data(), d.data(), w, h, s, c.bpc, egl, 0, h));
    if (s + 1 < kScales) {
      std::vector<uint16_t> r2(size_t(w / 2) * (h / 2)), d2(r2.size());
      vif_downsample_rows(r.data(), w, h, s, c.bpc, r2.data(), 0, h / 2);
      vif_downsample_rows(d.data(), w, h, s, c.bpc, d2.data(), 0, h / 2);
      r.swap(r2), d.swap(d2);
      w /= 2, h /= 2;
    }
  }
  return out;
}

// The ADM stages of one scale on band sets r, d (decoupling with three gain limits, CSF and
// masking for both passes and every D1 mode, denominator), appended to `out`.
template <typename Coef>
void adm_scale_outputs(int s, const integer_adm::AdmBands<Coef>& r,
                       const integer_adm::AdmBands<Coef>& d, std::vector<int64_t>& out) {
  using namespace integer_adm;
  const AdmWeights weights = adm_weights(0, 3.0, 1080);
  const AdmRects rects = adm_rects(r.w, r.h);
  for (double egl : {100.0, 1.0, 1.7}) {
    AdmDetail<Coef> rs, as, cc, mm;
    for (auto* x : {&rs, &as, &cc, &mm}) x->resize(r.w, r.h);
    adm_decouple_rows(s, r, d, egl, rects.extended, rs, as, rects.extended.top,
                      rects.extended.bottom);
    for (int k = 0; k < 3; ++k) {
      out.insert(out.end(), rs.band[k].begin(), rs.band[k].end());
      out.insert(out.end(), as.band[k].begin(), as.band[k].end());
    }
    if (egl != 100.0) continue;
    for (int pass = 0; pass < 2; ++pass) {
      const AdmDetail<Coef>& masked = pass == 0 ? rs : as;
      const AdmDetail<Coef>& masker = pass == 0 ? as : rs;
      adm_csf_rows(s, masker, weights[s], rects.extended, cc, mm, rects.extended.top,
                   rects.extended.bottom);
      for (int k = 0; k < 3; ++k) {
        out.insert(out.end(), cc.band[k].begin(), cc.band[k].end());
        out.insert(out.end(), mm.band[k].begin(), mm.band[k].end());
      }
      for (SimdCompat m : {SimdCompat::kNone, SimdCompat::kAvx2, SimdCompat::kAvx512})
        for (int64_t v : adm_cm_rows(s, masked, cc, mm, weights[s], rects, m, rects.inner.top,
                                     rects.inner.bottom))
          out.push_back(v);
    }
  }
  for (uint64_t v : adm_den_rows(s, r, rects, rects.inner.top, rects.inner.bottom))
    out.push_back(int64_t(v));
}

// Every ADM stage on all four scales.
template <typename Sample>
std::vector<int64_t> adm_outputs(const std::vector<Sample>& ref, const std::vector<Sample>& dis,
                                 const TwinCase& c) {
  using namespace integer_adm;
  std::vector<int64_t> out;
  AdmBands<int16_t> r0, d0;
  r0.resize((c.w + 1) / 2, (c.h + 1) / 2);
  d0.resize((c.w + 1) / 2, (c.h + 1) / 2);
  adm_dwt0_rows(ref.data(), c.w, c.h, c.bpc, false, r0, 0, r0.h);
  adm_dwt0_rows(dis.data(), c.w, c.h, c.bpc, false, d0, 0, d0.h);
  out.insert(out.end(), r0.a.begin(), r0.a.end());
  for (int k = 0; k < 3; ++k) out.insert(out.end(), d0.detail[k].begin(), d0.detail[k].end());
  AdmBands<int16_t> lowpass;  // adm_skip_scale0 computes only the a band
  lowpass.resize(r0.w, r0.h, false);
  adm_dwt0_rows(dis.data(), c.w, c.h, c.bpc, true, lowpass, 0, lowpass.h);
  out.insert(out.end(), lowpass.a.begin(), lowpass.a.end());
  adm_scale_outputs(0, r0, d0, out);
  AdmBands<int32_t> r[2], d[2];
  for (int s = 1; s < kScales; ++s) {
    AdmBands<int32_t>& rs = r[s & 1];
    AdmBands<int32_t>& ds = d[s & 1];
    const uint32_t in_w = s == 1 ? r0.w : r[(s - 1) & 1].w, in_h = s == 1 ? r0.h : r[(s - 1) & 1].h;
    rs.resize((in_w + 1) / 2, (in_h + 1) / 2);
    ds.resize((in_w + 1) / 2, (in_h + 1) / 2);
    if (s == 1) {
      adm_dwt_rows(s, r0.a.data(), in_w, in_h, rs, 0, rs.h);
      adm_dwt_rows(s, d0.a.data(), in_w, in_h, ds, 0, ds.h);
    } else {
      adm_dwt_rows(s, r[(s - 1) & 1].a.data(), in_w, in_h, rs, 0, rs.h);
      adm_dwt_rows(s, d[(s - 1) & 1].a.data(), in_w, in_h, ds, 0, ds.h);
    }
    out.insert(out.end(), rs.a.begin(), rs.a.end());
    for (int k = 0; k < 3; ++k) out.insert(out.end(), ds.detail[k].begin(), ds.detail[k].end());
    adm_scale_outputs(s, rs, ds, out);
  }
  return out;
}

template <typename Sample>
void twin_case(const TwinCase& c) {
  for (Pattern pattern :
       {Pattern::kNatural, Pattern::kExtreme, Pattern::kBlocks, Pattern::kNoise}) {
    const auto ref = test_plane<Sample>(c.w, c.h, c.bpc, 1, pattern);
    const auto dis = test_plane<Sample>(c.w, c.h, c.bpc, 2, pattern);
    const std::string label = describe(c, pattern);
    expect_paths_agree([&] { return vif_outputs(ref, dis, c); }, "vif " + label);
    expect_paths_agree([&] { return adm_outputs(ref, dis, c); }, "adm " + label);
    expect_paths_agree(
        [&] {
          std::vector<int64_t> out;
          using integer_motion::motion_sad_rows;
          for (const auto* prev : {&ref, &dis})  // also identical frames: every row is skipped
            out.push_back(
                int64_t(motion_sad_rows(prev->data(), ref.data(), c.w, c.h, c.bpc, 0, c.h)));
          out.push_back(
              int64_t(motion_sad_rows(dis.data(), ref.data(), c.w, c.h, c.bpc, c.h / 4, c.h / 2)));
          return out;
        },
        "motion " + label);
  }
}

TEST_P(VmafSimdTwin, FastKernelsEqualPlainTwins) {
  if (GetParam().bpc == 8)
    twin_case<uint8_t>(GetParam());
  else
    twin_case<uint16_t>(GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, VmafSimdTwin,
    ::testing::Values(TwinCase{33, 33, 8}, TwinCase{34, 34, 8}, TwinCase{35, 37, 8},
                      TwinCase{64, 48, 8}, TwinCase{97, 61, 8}, TwinCase{321, 97, 8},
                      TwinCase{140, 40, 8}, TwinCase{127, 65, 9}, TwinCase{127, 65, 10},
                      TwinCase{256, 129, 12}, TwinCase{67, 45, 14}, TwinCase{200, 90, 16},
                      TwinCase{33, 40, 16}),
    [](const ::testing::TestParamInfo<TwinCase>& info) {
      return std::to_string(info.param.w) + "x" + std::to_string(info.param.h) + "_" +
             std::to_string(info.param.bpc) + "bit";
    });

// ADM stages on synthetic bands that DWT outputs of valid pictures rarely reach: scale-0 int16
// bands over the whole range (0, -32768, 32767 included) and scales 1-3 int32 bands of growing
// magnitude, across the range limits of the fast decoupling (|o| < 2^15, |t| < 2^22).
TEST(VmafSimdTwinBands, AdmStagesOnFullRangeBands) {
  using namespace integer_adm;
  std::mt19937 rng;  // reseeded in every produce() call: each path must see the same bands
  const uint32_t w = 61, h = 37;
  auto fill = [&](auto& bands, int64_t range) {
    using Coef = typename std::remove_reference_t<decltype(bands.a)>::value_type;
    bands.resize(w, h);
    for (auto* v : {&bands.a, &bands.detail[0], &bands.detail[1], &bands.detail[2]})
      for (auto& x : *v) {
        const uint32_t pick = rng() % 16;
        int64_t value = int64_t(rng() % uint64_t(2 * range + 1)) - range;
        if (pick == 0) value = 0;
        if (pick == 1) value = -range;
        if (pick == 2) value = range;
        if (pick == 3) value = int64_t(rng() % 5) - 2;
        x = Coef(value);
      }
  };
  expect_paths_agree(
      [&] {
        rng.seed(7);
        std::vector<int64_t> out;
        AdmBands<int16_t> r, d;
        for (int rep = 0; rep < 3; ++rep) {
          fill(r, rep == 0 ? 32767 : 2000);
          fill(d, 32767);
          if (rep == 0)  // the most negative value too
            r.detail[kH][5] = -32768, d.detail[kV][9] = -32768;
          adm_scale_outputs(0, r, d, out);
        }
        return out;
      },
      "scale-0 bands");
  for (int64_t range : {int64_t{1} << 12, int64_t{1} << 15, int64_t{1} << 20, int64_t{1} << 22,
                        int64_t{1} << 24, int64_t{1} << 28}) {
    for (int s = 1; s < kScales; ++s)
      expect_paths_agree(
          [&] {
            rng.seed(uint32_t(range) + s);
            std::vector<int64_t> out;
            AdmBands<int32_t> r, d;
            fill(r, std::min<int64_t>(range, 32767));
            fill(d, range);
            adm_scale_outputs(s, r, d, out);
            fill(r, range);
            adm_scale_outputs(s, r, d, out);
            return out;
          },
          "scale-" + std::to_string(s) + " bands, range " + std::to_string(range));
  }
}

// ---- engine-level behaviour ----

std::vector<Picture> frames(uint32_t w, uint32_t h, int n, uint32_t seed, uint8_t bpc = 8) {
  PictureFormat f;
  f.width = w, f.height = h, f.bit_depth = bpc;
  std::vector<Picture> out;
  for (int i = 0; i < n; ++i) {
    Picture p(f);
    std::mt19937 rng(seed + i);
    for (size_t k = 0; k < f.frame_bytes(); ++k) p.bytes()[k] = uint8_t(rng() % (bpc == 8 ? 256 : 4));
    out.push_back(std::move(p));
  }
  return out;
}

TEST(VmafFeatures, RefusesPicturesBelow33x33) {
  for (const char* feature : {"vif", "adm", "motion"})
    for (auto [w, h] : {std::pair{16u, 16u}, {32u, 64u}, {64u, 32u}}) {
      auto r = frames(w, h, 2, 1), d = frames(w, h, 2, 7);
      try {
        run_on_pictures(r, d, {feature});
        ADD_FAILURE() << feature << " accepted " << w << "x" << h;
      } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("33x33"), std::string::npos) << e.what();
      }
    }
  auto r = frames(33, 33, 2, 1), d = frames(33, 33, 2, 7);
  EXPECT_NO_THROW(run_on_pictures(r, d, {"vif", "adm", "motion"}));
}

TEST(VmafFeatures, RefusesOptionsOutOfRange) {
  EXPECT_THROW(parse_metric_request("vif=vif_enhn_gain_limit=0.5"), UsageError);
  EXPECT_THROW(parse_metric_request("adm=adm_csf_mode=4"), UsageError);
  EXPECT_THROW(parse_metric_request("adm=adm_norm_view_dist=30"), UsageError);
  EXPECT_THROW(parse_metric_request("motion=motion_fps_weight=6"), UsageError);
  EXPECT_THROW(parse_metric_request("adm=adm_simd_compat=sse"), UsageError);
  auto r = frames(64, 64, 1, 1), d = frames(64, 64, 1, 2);
  // nvd * rdh below 3240 (upstream fails at extract), mode 1 (not specified), a mode-2 viewing
  // condition without a table.
  for (const char* bad : {"adm=adm_norm_view_dist=1.5", "adm=adm_csf_mode=1",
                          "adm=adm_csf_mode=2:adm_norm_view_dist=4"})
    EXPECT_THROW(run_on_pictures(r, d, {bad}), UsageError) << bad;
}

TEST(VmafFeatures, NamesCarryLibvmafOptionSuffixes) {
  auto r = frames(64, 64, 3, 1), d = frames(64, 64, 3, 2);
  auto report = run_on_pictures(
      r, d,
      {"adm=adm_csf_mode=2:adm_dlm_weight=0.7:adm_enhn_gain_limit=1:adm_noise_weight=0.02:"
       "adm_min_val=0.5:adm_norm_view_dist=1.5:adm_ref_display_height=2160:adm_skip_aim=true",
       "motion=motion_max_val=18:motion_five_frame_window=true:motion_moving_average=true",
       "vif=vif_skip_scale0=true:vif_enhn_gain_limit=1.0000001"});
  for (const char* name :
       {"integer_adm2_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02_nvd_1.5_rdh_2160",
        "integer_adm_scale3_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02_nvd_1.5_rdh_2160",
        "VMAF_integer_feature_motion_sad_score_mffw_mmxv_18_mma", "integer_motion3_mffw_mmxv_18_mma",
        // 1.0000001 survives strtof + %g as "1": equal to no default, but printed as libvmaf does.
        "integer_vif_scale0_egl_1_ssclz"})
    EXPECT_NO_THROW(column(*report, name)) << name;
  EXPECT_EQ(column(*report, "integer_vif_scale0_egl_1_ssclz")[0], 0.0);
  EXPECT_EQ(column(*report, "integer_aim_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02_nvd_1.5_rdh_2160")[1], 0.0);
  // Setting an option to its default leaves the names alone.
  auto plain = run_on_pictures(r, d, {"motion=motion_max_val=10000:motion_force_zero=false"});
  EXPECT_NO_THROW(column(*plain, "integer_motion2"));
}

TEST(VmafFeatures, MotionForceZeroWritesZeros) {
  auto r = frames(64, 64, 4, 1), d = frames(64, 64, 4, 2);
  auto report = run_on_pictures(r, d, {"motion=motion_force_zero=true"});
  for (const char* n : {"VMAF_integer_feature_motion_sad_score_force_0", "integer_motion2_force_0",
                        "integer_motion3_force_0"})
    for (double v : column(*report, n)) EXPECT_EQ(v, 0.0) << n;
}

TEST(VmafFeatures, MotionPostProcessingFollowsSpec) {
  integer_motion::MotionPostOptions o;
  std::vector<double> m2, m3;
  integer_motion::motion_post({0, 4, 2, 6, 1}, o, m2, m3);
  EXPECT_EQ(m2, (std::vector<double>{0, 2, 2, 1, 1}));
  EXPECT_EQ(m3, (std::vector<double>{4, 2, 2, 1, 1}));  // frame 0 gets the stamp S[1]
  o.five_frame_window = o.moving_average = true;
  integer_motion::motion_post({0, 0, 4, 2, 6, 8}, o, m2, m3);
  EXPECT_EQ(m2, (std::vector<double>{0, 0, 2, 4, 2, 8}));
  EXPECT_EQ(m3, (std::vector<double>{4, 4, 3, 3, 3, 5}));
}

// ---- threads and subsample on a fixture (results must not move by a bit) ----

TEST(VmafFeatures, ThreadCountDoesNotChangeResults) {
  VQX_REQUIRE_FIXTURE("hbd720", dir);
  const std::vector<std::string> features = {"vif=debug=true", "adm=debug=true", "motion"};
  std::unique_ptr<RunReport> base;
  for (unsigned threads : {0u, 1u, 2u}) {
    RunSettings s;
    s.threads = threads;
    s.frame_cnt = 5;
    auto report = run_on_pair("hbd720", features, s);
    if (!base) {
      base = std::move(report);
      continue;
    }
    for (const auto& name : base->table.feature_names())
      expect_bit_exact(column(*report, name), column(*base, name),
                       name + " threads=" + std::to_string(threads));
  }
}

TEST(VmafFeatures, SubsampleKeepsEveryReportedValue) {
  VQX_REQUIRE_FIXTURE("n576", dir);
  RunSettings all, sub;
  all.threads = sub.threads = 2;
  sub.subsample = 3;
  auto full = run_on_pair("n576", {"vif", "adm", "motion"}, all);
  auto part = run_on_pair("n576", {"vif", "adm", "motion"}, sub);
  ASSERT_EQ(part->table.frame_count(), full->table.frame_count());
  // Motion is temporal: it runs on every frame (as in libvmaf), so motion2/3 on the reported
  // frames are those of the full run; vif/adm are computed only on reported frames.
  for (const auto& name : full->table.feature_names()) {
    auto fi = full->table.find_feature(name);
    auto pi = part->table.find_feature(name);
    ASSERT_TRUE(pi) << name;
    for (uint64_t f = 0; f < full->table.frame_count(); ++f) {
      auto a = full->table.get(f, *fi);
      auto b = part->table.get(f, *pi);
      if (f % 3 == 0) {
        ASSERT_TRUE(b) << name << " frame " << f;
        EXPECT_EQ(std::memcmp(&*a, &*b, sizeof(double)), 0) << name << " frame " << f;
      }
    }
  }
}

}  // namespace
}  // namespace vqx::test
