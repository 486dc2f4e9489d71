// The integer ADM kernel tables (adm_kernels.h): every level this host runs against the plain
// twins, bit for bit, entry by entry on seeded random and extreme planes and bands of every width
// the stages accept up to 64, odd sizes and 8-16 bit; and the whole metric on each table.
#include <gtest/gtest.h>

#include "metrics/integer_adm/adm_kernels.h"
#include "metrics/integer_adm/integer_adm.h"
#include "support/fixtures.h"
#include "support/kernel_twins.h"

namespace vqx::test {
namespace {

using namespace integer_adm;

const AdmKernels& plain() {
  static const AdmKernels k = make_adm_kernels(CpuFeatures{});
  return k;
}

std::vector<std::pair<std::string, AdmKernels>> fast_tables() {
  return tables_to_check(make_adm_kernels, adm_kernels());
}

// The host's table is built from its CPU: with AVX2 every entry is an AVX2 one.
TEST(IntegerAdmKernels, HostTableFollowsTheCpu) {
  const AdmKernels& host = adm_kernels();
  const bool fast = host_cpu_features().avx2;
  EXPECT_EQ(host.dwt0_rows_8 != plain().dwt0_rows_8, fast);
  EXPECT_EQ(host.dwt0_rows_16 != plain().dwt0_rows_16, fast);
  EXPECT_EQ(host.dwt_rows_from_scale0 != plain().dwt_rows_from_scale0, fast);
  EXPECT_EQ(host.dwt_rows != plain().dwt_rows, fast);
  EXPECT_EQ(host.scale0.decouple_rows != plain().scale0.decouple_rows, fast);
  EXPECT_EQ(host.scale0.cm_rows != plain().scale0.cm_rows, fast);
  EXPECT_EQ(host.scales123.csf_rows != plain().scales123.csf_rows, fast);
  EXPECT_EQ(host.scales123.den_rows != plain().scales123.den_rows, fast);
}

template <typename Coef>
void append(std::vector<int64_t>& out, const std::vector<Coef>& v) {
  out.insert(out.end(), v.begin(), v.end());
}

// 3.3 on one luma plane: every band, the lowpass-only form, and a band of rows.
template <typename Sample>
std::vector<int64_t> dwt0_outputs(const AdmKernels& k, const std::vector<Sample>& luma, uint32_t w,
                                  uint32_t h, unsigned bpc) {
  std::vector<int64_t> out;
  AdmBands<int16_t> b, low, part;
  b.resize((w + 1) / 2, (h + 1) / 2);
  k.dwt0<Sample>()(luma.data(), w, h, bpc, false, b, 0, b.h);
  append(out, b.a);
  for (const auto& d : b.detail) append(out, d);
  low.resize(b.w, b.h, false);
  k.dwt0<Sample>()(luma.data(), w, h, bpc, true, low, 0, low.h);
  append(out, low.a);
  part.resize(b.w, b.h);
  k.dwt0<Sample>()(luma.data(), w, h, bpc, false, part, b.h / 2, b.h);
  for (uint32_t i = b.h / 2; i < b.h; ++i)
    for (uint32_t j = 0; j < b.w; ++j) out.push_back(part.detail[kD][size_t(i) * b.w + j]);
  return out;
}

// 3.4 at `scale` from an a band.
template <typename In>
std::vector<int64_t> dwt_outputs(const AdmKernels& k, int scale, const std::vector<In>& in,
                                 uint32_t w, uint32_t h) {
  AdmBands<int32_t> b;
  b.resize((w + 1) / 2, (h + 1) / 2);
  if constexpr (sizeof(In) == 2)
    k.dwt_rows_from_scale0(scale, in.data(), w, h, b, 0, b.h);
  else
    k.dwt_rows(scale, in.data(), w, h, b, 0, b.h);
  std::vector<int64_t> out;
  append(out, b.a);
  for (const auto& d : b.detail) append(out, d);
  return out;
}

// The stages of one scale on band sets r, d: decoupling with three gain limits, CSF and masking
// for both passes and every D1 mode, denominator.
template <typename Coef>
std::vector<int64_t> scale_outputs(const AdmKernels& k, int s, const AdmBands<Coef>& r,
                                   const AdmBands<Coef>& d) {
  const AdmScaleKernels<Coef>& st = k.stages<Coef>();
  const AdmWeights weights = adm_weights(0, 3.0, 1080);
  const AdmRects rects = adm_rects(r.w, r.h);
  const AdmRect& ext = rects.extended;
  std::vector<int64_t> out;
  for (double egl : {100.0, 1.0, 1.7}) {
    AdmDetail<Coef> rs, as, cc, mm;
    for (auto* x : {&rs, &as, &cc, &mm}) x->resize(r.w, r.h);
    st.decouple_rows(s, r, d, egl, ext, rs, as, ext.top, ext.bottom);
    for (int b = 0; b < 3; ++b) append(out, rs.band[b]), append(out, as.band[b]);
    if (egl != 100.0) continue;
    for (int pass = 0; pass < 2; ++pass) {
      const AdmDetail<Coef>& masked = pass == 0 ? rs : as;
      const AdmDetail<Coef>& masker = pass == 0 ? as : rs;
      st.csf_rows(s, masker, weights[s], ext, cc, mm, ext.top, ext.bottom);
      for (int b = 0; b < 3; ++b) append(out, cc.band[b]), append(out, mm.band[b]);
      for (SimdCompat m : {SimdCompat::kNone, SimdCompat::kAvx2, SimdCompat::kAvx512}) {
        for (int64_t v : st.cm_rows(s, masked, cc, mm, weights[s], rects, m, rects.inner.top,
                                    rects.inner.bottom))
          out.push_back(v);
        const int mid = (rects.inner.top + rects.inner.bottom) / 2;
        for (int64_t v : st.cm_rows(s, masked, cc, mm, weights[s], rects, m, mid,
                                    rects.inner.bottom))
          out.push_back(v);
      }
    }
  }
  for (uint64_t v : st.den_rows(s, r, rects, rects.inner.top, rects.inner.bottom))
    out.push_back(int64_t(v));
  return out;
}

template <typename Produce>
void expect_tables_agree(const Produce& produce, const std::string& what) {
  const std::vector<int64_t> expected = produce(plain());
  ASSERT_FALSE(expected.empty()) << what;
  for (const auto& [name, fast] : fast_tables()) {
    const std::vector<int64_t> got = produce(fast);
    ASSERT_EQ(expected.size(), got.size()) << what << ", " << name;
    for (size_t i = 0; i < expected.size(); ++i)
      ASSERT_EQ(expected[i], got[i]) << "value " << i << " of " << what << ", " << name;
  }
}

template <typename Sample>
void sweep_dwt0(unsigned bpc, std::initializer_list<Pattern> patterns) {
  for (Pattern pattern : patterns)
    for (uint32_t h : {2u, 3u, 8u, 17u})
      for (uint32_t w = 2; w <= 64; ++w) {
        const auto luma = test_plane<Sample>(w, h, bpc, w + h, pattern);
        expect_tables_agree([&](const AdmKernels& k) { return dwt0_outputs(k, luma, w, h, bpc); },
                            "dwt0 " + describe(w, h, bpc, pattern));
      }
}

TEST(IntegerAdmKernels, Dwt0EveryWidthAndDepth) {
  sweep_dwt0<uint8_t>(8, {Pattern::kNatural, Pattern::kExtreme, Pattern::kBlocks,
                          Pattern::kNoise});
  for (unsigned bpc = 9; bpc <= 16; ++bpc) sweep_dwt0<uint16_t>(bpc, {Pattern::kExtreme,
                                                                      Pattern::kNoise});
}

// Random coefficients in [-range, range], with 0, the ends and small values mixed in.
template <typename Coef>
void fill_coefficients(std::vector<Coef>& v, int64_t range, std::mt19937& rng) {
  for (auto& x : v) {
    const uint32_t pick = rng() % 16;
    int64_t value = int64_t(rng() % uint64_t(2 * range + 1)) - range;
    if (pick == 0) value = 0;
    if (pick == 1) value = -range;
    if (pick == 2) value = range;
    if (pick == 3) value = int64_t(rng() % 5) - 2;
    x = Coef(value);
  }
}

template <typename Coef>
AdmBands<Coef> random_bands(uint32_t w, uint32_t h, int64_t range, std::mt19937& rng) {
  AdmBands<Coef> b;
  b.resize(w, h);
  fill_coefficients(b.a, range, rng);
  for (auto& d : b.detail) fill_coefficients(d, range, rng);
  return b;
}

TEST(IntegerAdmKernels, DwtScales1To3EveryWidth) {
  std::mt19937 rng(5);
  for (uint32_t h : {2u, 3u, 9u})
    for (uint32_t w = 2; w <= 64; ++w) {
      std::vector<int16_t> a16(size_t(w) * h);
      fill_coefficients(a16, 32767, rng);
      a16[0] = -32768;
      expect_tables_agree([&](const AdmKernels& k) { return dwt_outputs(k, 1, a16, w, h); },
                          "dwt scale 1, " + std::to_string(w) + "x" + std::to_string(h));
      // Only the two ends of the range: the four-tap sums reach their extremes.
      for (int16_t& v : a16) v = (rng() & 1) ? int16_t(32767) : int16_t(-32768);
      expect_tables_agree(
          [&](const AdmKernels& k) { return dwt_outputs(k, 1, a16, w, h); },
          "dwt scale 1 at the ends of the range, " + std::to_string(w) + "x" + std::to_string(h));
      for (int64_t range : {int64_t{1} << 16, int64_t{1} << 24, int64_t{2147483647}}) {
        std::vector<int32_t> a32(size_t(w) * h);
        fill_coefficients(a32, range, rng);
        for (int s = 2; s <= 3; ++s)
          expect_tables_agree([&](const AdmKernels& k) { return dwt_outputs(k, s, a32, w, h); },
                              "dwt scale " + std::to_string(s) + ", " + std::to_string(w) + "x" +
                                  std::to_string(h) + " range " + std::to_string(range));
      }
    }
}

// Scale-0 int16 bands over the whole range (0, -32768, 32767 included), at every band width the
// masking accepts (17 and up: its shift z must be at least 1, vmaf.md 10.1).
TEST(IntegerAdmKernels, Scale0StagesEveryWidthOnFullRangeBands) {
  std::mt19937 rng(7);
  for (uint32_t h : {2u, 3u, 12u})
    for (uint32_t w = 17; w <= 64; ++w)
      for (int64_t range : {int64_t{2000}, int64_t{32767}}) {
        AdmBands<int16_t> r = random_bands<int16_t>(w, h, range, rng);
        AdmBands<int16_t> d = random_bands<int16_t>(w, h, 32767, rng);
        r.detail[kH][0] = -32768, d.detail[kV][w - 1] = -32768;
        expect_tables_agree([&](const AdmKernels& k) { return scale_outputs(k, 0, r, d); },
                            "scale-0 bands " + std::to_string(w) + "x" + std::to_string(h) +
                                " range " + std::to_string(range));
      }
}

// The decoupling with every int16 reference coefficient in every band (each |o| from 0 to
// 32768, so every entry of 3.5's division table), at scale 0 and at scale 1.
template <typename Coef>
std::vector<int64_t> decouple_outputs(const AdmKernels& k, int s, const AdmBands<Coef>& r,
                                      const AdmBands<Coef>& d) {
  const AdmRect ext{0, 0, int(r.w), int(r.h)};
  std::vector<int64_t> out;
  for (double egl : {100.0, 1.0}) {
    AdmDetail<Coef> rs, as;
    rs.resize(r.w, r.h);
    as.resize(r.w, r.h);
    k.stages<Coef>().decouple_rows(s, r, d, egl, ext, rs, as, ext.top, ext.bottom);
    for (int b = 0; b < 3; ++b) append(out, rs.band[b]), append(out, as.band[b]);
  }
  return out;
}

template <typename Coef>
void expect_decoupling_agrees_on_every_coefficient(int s) {
  std::mt19937 rng(11);
  AdmBands<Coef> r = random_bands<Coef>(256, 256, 32767, rng);
  AdmBands<Coef> d = random_bands<Coef>(256, 256, 32767, rng);
  for (int b = 0; b < 3; ++b) {
    for (size_t i = 0; i < r.detail[b].size(); ++i) r.detail[b][i] = Coef(int32_t(i) - 32768);
    std::shuffle(r.detail[b].begin(), r.detail[b].end(), rng);
  }
  // Some distorted pixels equal to or near their reference, where the angle test passes.
  for (size_t i = 0; i < d.detail[kH].size(); i += 3)
    for (int b = 0; b < 3; ++b) d.detail[b][i] = Coef(r.detail[b][i] + int32_t(rng() % 3) - 1);
  expect_tables_agree([&](const AdmKernels& k) { return decouple_outputs(k, s, r, d); },
                      "decoupling of every coefficient at scale " + std::to_string(s));
}

TEST(IntegerAdmKernels, DecouplingOfEveryCoefficient) {
  expect_decoupling_agrees_on_every_coefficient<int16_t>(0);
  expect_decoupling_agrees_on_every_coefficient<int32_t>(1);
}

// Scales 1-3 on int32 bands of growing magnitude, across the range limits of the fast
// decoupling (|o| < 2^15, |t| < 2^22), at every band width from 2.
TEST(IntegerAdmKernels, Scales1To3StagesEveryWidth) {
  std::mt19937 rng(9);
  for (int s = 1; s < kScales; ++s)
    for (uint32_t h : {2u, 5u})
      for (uint32_t w = 2; w <= 64; ++w)
        for (int64_t range : {int64_t{1} << 12, int64_t{1} << 15, int64_t{1} << 22,
                              int64_t{1} << 28}) {
          AdmBands<int32_t> r = random_bands<int32_t>(w, h, std::min<int64_t>(range, 32767), rng);
          AdmBands<int32_t> d = random_bands<int32_t>(w, h, range, rng);
          AdmBands<int32_t> r_wide = random_bands<int32_t>(w, h, range, rng);
          expect_tables_agree(
              [&](const AdmKernels& k) {
                std::vector<int64_t> out = scale_outputs(k, s, r, d);
                std::vector<int64_t> wide = scale_outputs(k, s, r_wide, d);
                out.insert(out.end(), wide.begin(), wide.end());
                return out;
              },
              "scale-" + std::to_string(s) + " bands " + std::to_string(w) + "x" +
                  std::to_string(h) + " range " + std::to_string(range));
        }
}

// Every stage on all four scales as the metric chains them, from pictures of odd sizes.
template <typename Sample>
std::vector<int64_t> pipeline_outputs(const AdmKernels& k, const std::vector<Sample>& ref,
                                      const std::vector<Sample>& dis, uint32_t w, uint32_t h,
                                      unsigned bpc) {
  std::vector<int64_t> out = dwt0_outputs(k, ref, w, h, bpc);
  AdmBands<int16_t> r0, d0;
  r0.resize((w + 1) / 2, (h + 1) / 2);
  d0.resize(r0.w, r0.h);
  k.dwt0<Sample>()(ref.data(), w, h, bpc, false, r0, 0, r0.h);
  k.dwt0<Sample>()(dis.data(), w, h, bpc, false, d0, 0, d0.h);
  std::vector<int64_t> s0 = scale_outputs(k, 0, r0, d0);
  out.insert(out.end(), s0.begin(), s0.end());
  AdmBands<int32_t> r[2], d[2];
  for (int s = 1; s < kScales; ++s) {
    AdmBands<int32_t>& rs = r[s & 1];
    AdmBands<int32_t>& ds = d[s & 1];
    const AdmBands<int32_t>& rp = r[(s - 1) & 1];
    const AdmBands<int32_t>& dp = d[(s - 1) & 1];
    const uint32_t in_w = s == 1 ? r0.w : rp.w, in_h = s == 1 ? r0.h : rp.h;
    rs.resize((in_w + 1) / 2, (in_h + 1) / 2);
    ds.resize(rs.w, rs.h);
    if (s == 1) {
      k.dwt_rows_from_scale0(s, r0.a.data(), in_w, in_h, rs, 0, rs.h);
      k.dwt_rows_from_scale0(s, d0.a.data(), in_w, in_h, ds, 0, ds.h);
    } else {
      k.dwt_rows(s, rp.a.data(), in_w, in_h, rs, 0, rs.h);
      k.dwt_rows(s, dp.a.data(), in_w, in_h, ds, 0, ds.h);
    }
    append(out, rs.a);
    for (const auto& b : ds.detail) append(out, b);
    std::vector<int64_t> sv = scale_outputs(k, s, rs, ds);
    out.insert(out.end(), sv.begin(), sv.end());
  }
  return out;
}

TEST(IntegerAdmKernels, PipelineOnOddSizes) {
  struct Size {
    uint32_t w, h;
    unsigned bpc;
  };
  for (Size c : {Size{33, 33, 8}, Size{34, 34, 8}, Size{35, 37, 8}, Size{64, 48, 8},
                 Size{97, 61, 8}, Size{321, 97, 8}, Size{140, 40, 8}, Size{127, 65, 9},
                 Size{127, 65, 10}, Size{256, 129, 12}, Size{67, 45, 14}, Size{200, 90, 16},
                 Size{33, 40, 16}})
    for (Pattern pattern : kAllPatterns) {
      const std::string what = "pipeline " + describe(c.w, c.h, c.bpc, pattern);
      if (c.bpc == 8) {
        const auto ref = test_plane<uint8_t>(c.w, c.h, c.bpc, 1, pattern);
        const auto dis = test_plane<uint8_t>(c.w, c.h, c.bpc, 2, pattern);
        expect_tables_agree(
            [&](const AdmKernels& k) { return pipeline_outputs(k, ref, dis, c.w, c.h, c.bpc); },
            what);
      } else {
        const auto ref = test_plane<uint16_t>(c.w, c.h, c.bpc, 1, pattern);
        const auto dis = test_plane<uint16_t>(c.w, c.h, c.bpc, 2, pattern);
        expect_tables_agree(
            [&](const AdmKernels& k) { return pipeline_outputs(k, ref, dis, c.w, c.h, c.bpc); },
            what);
      }
    }
}

// The kernels on rings of rows (AdmBands::rows, AdmDetail::rows below the height, as the metric's
// strips use them) write and read the values they do on whole bands: every table streams a
// 35 x 61 picture's scale 0 and its scale 1 through rings of 5 rows, a row at a time, masking
// each row once the row after it is in, and gets the whole bands' rows and sums.
template <typename Coef, typename Transform>
void expect_ring_matches_whole(const AdmKernels& k, int s, uint32_t w, uint32_t h,
                               const Transform& transform, const std::string& what) {
  const AdmScaleKernels<Coef>& st = k.stages<Coef>();
  const AdmWeights weights = adm_weights(0, 3.0, 1080);
  const AdmRects rects = adm_rects(w, h);
  const AdmRect& ext = rects.extended;
  const int rows = int(h);
  for (uint32_t ring_rows : {0u, 5u}) {
    AdmBands<Coef> r, d;
    r.resize(w, h, true, ring_rows);
    d.resize(w, h, true, ring_rows);
    AdmDetail<Coef> rs, as, cc, mm;
    for (auto* x : {&rs, &as, &cc, &mm}) x->resize(w, h, ring_rows);
    std::array<int64_t, 3> masked{};
    std::array<uint64_t, 3> den{};
    int next = rects.inner.top;
    for (int i = 0; i < rows; ++i) {
      transform(r, d, i);
      st.decouple_rows(s, r, d, 100.0, ext, rs, as, i, i + 1);
      st.csf_rows(s, as, weights[s], ext, cc, mm, i, i + 1);
      if (i >= rects.inner.top && i < rects.inner.bottom)
        for (int b = 0; b < 3; ++b) den[b] += st.den_rows(s, r, rects, i, i + 1)[b];
      for (; next < rects.inner.bottom && (next + 1 == rows ? rows - 1 : next + 1) <= i; ++next) {
        const auto part =
            st.cm_rows(s, rs, cc, mm, weights[s], rects, SimdCompat::kAvx2, next, next + 1);
        for (int b = 0; b < 3; ++b) masked[b] += part[b];
      }
    }
    AdmBands<Coef> whole_r, whole_d;
    whole_r.resize(w, h);
    whole_d.resize(w, h);
    AdmDetail<Coef> wrs, was, wcc, wmm;
    for (auto* x : {&wrs, &was, &wcc, &wmm}) x->resize(w, h);
    for (int i = 0; i < rows; ++i) transform(whole_r, whole_d, i);
    st.decouple_rows(s, whole_r, whole_d, 100.0, ext, wrs, was, 0, rows);
    st.csf_rows(s, was, weights[s], ext, wcc, wmm, 0, rows);
    const auto whole_masked = st.cm_rows(s, wrs, wcc, wmm, weights[s], rects, SimdCompat::kAvx2,
                                         rects.inner.top, rects.inner.bottom);
    const auto whole_den = st.den_rows(s, whole_r, rects, rects.inner.top, rects.inner.bottom);
    const std::string where = what + (ring_rows ? ", ring of 5 rows" : ", whole bands");
    EXPECT_EQ(masked, whole_masked) << where;
    EXPECT_EQ(den, whole_den) << where;
    // The last rows still in the ring hold the whole bands' values.
    for (int i = rows - int(r.rows); i < rows; ++i)
      for (int b = 0; b < 3; ++b)
        for (int j = ext.left; j < ext.right; ++j) {
          ASSERT_EQ(r.detail_row(b, i)[j], whole_r.detail_row(b, i)[j]) << where << " row " << i;
          ASSERT_EQ(mm.row(b, i)[j], wmm.row(b, i)[j]) << where << " row " << i;
        }
  }
}

TEST(IntegerAdmKernels, RingsOfRowsGiveTheWholeBandsValues) {
  const uint32_t W = 35, H = 61;
  const auto ref = test_plane<uint8_t>(W, H, 8, 1, Pattern::kNatural);
  const auto dis = test_plane<uint8_t>(W, H, 8, 2, Pattern::kNoise);
  std::vector<std::pair<std::string, AdmKernels>> tables = fast_tables();
  tables.emplace_back("plain", plain());
  for (const auto& [name, k] : tables) {
    AdmBands<int16_t> r0, d0;  // whole scale 0, the input of scale 1
    r0.resize((W + 1) / 2, (H + 1) / 2);
    d0.resize((W + 1) / 2, (H + 1) / 2);
    k.dwt0<uint8_t>()(ref.data(), W, H, 8, false, r0, 0, r0.h);
    k.dwt0<uint8_t>()(dis.data(), W, H, 8, false, d0, 0, d0.h);
    expect_ring_matches_whole<int16_t>(
        k, 0, r0.w, r0.h,
        [&](AdmBands<int16_t>& r, AdmBands<int16_t>& d, int i) {
          k.dwt0<uint8_t>()(ref.data(), W, H, 8, false, r, uint32_t(i), uint32_t(i + 1));
          k.dwt0<uint8_t>()(dis.data(), W, H, 8, false, d, uint32_t(i), uint32_t(i + 1));
        },
        name + " scale 0");
    expect_ring_matches_whole<int32_t>(
        k, 1, (r0.w + 1) / 2, (r0.h + 1) / 2,
        [&](AdmBands<int32_t>& r, AdmBands<int32_t>& d, int i) {
          k.dwt_rows_from_scale0(1, r0.a.data(), r0.w, r0.h, r, uint32_t(i), uint32_t(i + 1));
          k.dwt_rows_from_scale0(1, d0.a.data(), d0.w, d0.h, d, uint32_t(i), uint32_t(i + 1));
        },
        name + " scale 1");
  }
}

TEST(IntegerAdmKernels, WholeMetricOnEachTable) {
  for (uint8_t bpc : {uint8_t(8), uint8_t(12)}) {
    const PictureFormat format = make_format(97, 61, ChromaSubsampling::k420, bpc);
    const auto ref = make_pictures(format, {1, 2});
    const auto dis = make_pictures(format, {3, 4});
    for (const char* spec : {"adm=debug=true", "adm=adm_csf_mode=2:adm_skip_scale0=true"}) {
      const OptionValues options = parse_metric_request(spec).options;
      auto reference = make_integer_adm_cpu(options, plain());
      const MetricValues expected = run_cpu_metric(*reference, ref, dis);
      for (const auto& [name, fast] : fast_tables()) {
        auto metric = make_integer_adm_cpu(options, fast);
        expect_same_values(expected, run_cpu_metric(*metric, ref, dis, 2),
                           name + " " + spec + " " + format.describe());
      }
    }
  }
}

}  // namespace
}  // namespace vqx::test
