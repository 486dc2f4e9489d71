// The synthetic VMAF vectors A-F of shared/spec/vmaf.md 12.2 against upstream's per-frame values
// (spec/data/vmaf_vectors/<V>/*.json): integer vif, adm and motion, in both D1 modes.
#include <algorithm>
#include <cstring>

#include "support/fixtures.h"

namespace vqx::test {
namespace {

struct Vector {
  const char* name;
  uint32_t w, h;
  uint8_t bpc;
  ChromaSubsampling cs;
  int frames;
};
const Vector kVectors[] = {
    {"A", 176, 144, 8, ChromaSubsampling::k420, 4},  {"B", 256, 192, 10, ChromaSubsampling::k420, 3},
    {"C", 97, 61, 8, ChromaSubsampling::k444, 3},    {"D", 640, 480, 8, ChromaSubsampling::k420, 4},
    {"E", 640, 480, 8, ChromaSubsampling::k420, 4},  {"F", 95, 59, 8, ChromaSubsampling::k444, 3},
};

uint32_t base(uint32_t x, uint32_t y) { return ((3 * x + 2 * y) + ((x ^ y) & 15)) % 200 + 24; }

// The luma of gen_vectors.py (chroma is flat: these features read only luma).
void make_vector(const Vector& v, std::vector<Picture>& ref, std::vector<Picture>& dis) {
  PictureFormat f;
  f.width = v.w, f.height = v.h, f.bit_depth = v.bpc, f.subsampling = v.cs;
  f.range = ColorRange::kLimited;
  const int sh = v.bpc - 8;
  const int32_t mx = (1 << v.bpc) - 1;
  uint32_t state = 2463534242u;
  auto rnd = [&] {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  };
  for (int t = 0; t < v.frames; ++t) {
    Picture r(f), d(f);
    for (unsigned p = 1; p < 3; ++p) {
      size_t n = size_t(f.plane_width(p)) * f.plane_height(p);
      for (size_t i = 0; i < n; ++i) {
        if (v.bpc == 8) {
          r.plane<uint8_t>(p)[i] = d.plane<uint8_t>(p)[i] = 128;
        } else {
          r.plane<uint16_t>(p)[i] = d.plane<uint16_t>(p)[i] = uint16_t(128 << sh);
        }
      }
    }
    for (uint32_t y = 0; y < v.h; ++y)
      for (uint32_t x = 0; x < v.w; ++x) {
        int32_t rv = int32_t(base(x + t, y + t / 2)) << sh;
        int32_t dv = rv + (int32_t(rnd() % 25) - 12) * (1 << sh);
        if (((x / 8) + (y / 8) + t) % 5 == 0) dv &= ~((1 << (v.bpc - 3)) - 1);
        dv = std::clamp(dv, 0, mx);
        size_t at = size_t(y) * v.w + x;
        if (v.bpc == 8) {
          r.plane<uint8_t>(0)[at] = uint8_t(rv);
          d.plane<uint8_t>(0)[at] = uint8_t(dv);
        } else {
          r.plane<uint16_t>(0)[at] = uint16_t(rv);
          d.plane<uint16_t>(0)[at] = uint16_t(dv);
        }
      }
    ref.push_back(std::move(r));
    dis.push_back(std::move(d));
  }
}

Golden vector_golden(const std::string& vector, const std::string& file) {
  return load_golden("../spec/data/vmaf_vectors/" + vector, ".", file);
}

bool is_ours(const std::string& key) {
  return key.find("integer_") != std::string::npos;
}

// Runs `features` on vector `v` and compares every integer-feature key of `file` at bit level.
void check(const Vector& v, const std::string& file, const std::vector<std::string>& features,
           size_t min_keys = 14) {
  std::vector<Picture> ref, dis;
  make_vector(v, ref, dis);
  auto report = run_on_pictures(ref, dis, features);
  Golden golden = vector_golden(v.name, file);
  size_t compared = 0;
  for (const auto& [key, values] : golden.frames) {
    if (!is_ours(key)) continue;
    expect_bit_exact(column(*report, key), values, std::string(v.name) + " " + file + " " + key);
    ++compared;
  }
  EXPECT_GE(compared, min_keys) << "too few integer feature keys in " << file;
}

class VmafVectors : public ::testing::TestWithParam<Vector> {};

TEST_P(VmafVectors, DebugFeaturesMatchAvx2Build) {
  if (std::string(GetParam().name) == "C") GTEST_SKIP() << "vector C hits D2 (not reproduced)";
  check(GetParam(), "features_debug", {"vif=debug=true", "adm=debug=true", "motion=debug=true"});
}

TEST_P(VmafVectors, V061FeaturesMatchAvx2Build) {
  if (std::string(GetParam().name) == "C") GTEST_SKIP() << "vector C hits D2 (not reproduced)";
  check(GetParam(), "vmaf_v0.6.1", {"vif", "adm", "motion"});
}

TEST_P(VmafVectors, V061FeaturesMatchPortableBuild) {
  check(GetParam(), "vmaf_v0.6.1_cpumask255", {"vif", "adm=adm_simd_compat=none", "motion"});
}

TEST_P(VmafVectors, NegFeaturesMatchAvx2Build) {
  if (std::string(GetParam().name) == "C") GTEST_SKIP() << "vector C hits D2 (not reproduced)";
  check(GetParam(), "vmaf_v0.6.1neg",
        {"vif=vif_enhn_gain_limit=1", "adm=adm_enhn_gain_limit=1", "motion"});
}

TEST_P(VmafVectors, NegFeaturesMatchPortableBuild) {
  check(GetParam(), "vmaf_v0.6.1neg_cpumask255",
        {"vif=vif_enhn_gain_limit=1", "adm=adm_enhn_gain_limit=1:adm_simd_compat=none", "motion"});
}

const char* kV1Adm =
    "adm=adm_csf_mode=2:adm_dlm_weight=0.7:adm_enhn_gain_limit=1:adm_noise_weight=0.02:"
    "adm_min_val=0.5";

TEST_P(VmafVectors, V1FeaturesMatch) {
  std::string n = GetParam().name;
  if (n != "D" && n != "E") GTEST_SKIP() << "v1 goldens exist for D and E only";
  check(GetParam(), "vmaf_v1.0.16_3d0h", {kV1Adm, "motion=motion_max_val=18"}, 10);
  check(GetParam(), "vmaf_v1.0.16_hfr_3d0h",
        {kV1Adm, "motion=motion_max_val=18:motion_five_frame_window=true:motion_moving_average=true"},
        10);
  check(GetParam(), "vmaf_v1.0.16_3d0h_2160",
        {std::string(kV1Adm) + ":adm_ref_display_height=2160", "motion=motion_max_val=18"}, 10);
}

INSTANTIATE_TEST_SUITE_P(AtoF, VmafVectors, ::testing::ValuesIn(kVectors),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace vqx::test
