#pragma once
// libvmaf's integer ADM (shared/spec/vmaf.md section 3) around the row kernels (adm_kernels.h),
// shared by the CPU metric and the CUDA twin:
//   adm_rects                       3.2: inner and extended rectangles of a scale
//   adm_weights                     3.6: CSF weights
//   adm_num_value / adm_den_value   3.8 / 3.9: sums -> the f32 scale values
//   adm_combine                     3.11: the frame outputs
// Scale 0 keeps libvmaf's int16 intermediates (Coef = int16_t); scales 1-3 use int32_t.
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace vqx::integer_adm {

inline constexpr int kScales = 4;
enum Orientation : int { kH = 0, kV = 1, kD = 2 };

// The a band plus the three detail bands (h, v, d) of one scale, each w x h. Each band stores
// `rows` rows of w coefficients: all h of them, or a ring of the last `rows` rows where a strip
// streams through the scale (row i in slot i % rows). The kernels reach rows only through
// a_row / detail_row, so they run on either.
template <typename Coef>
struct AdmBands {
  uint32_t w = 0, h = 0, rows = 0;
  std::vector<Coef> a;
  std::array<std::vector<Coef>, 3> detail;
  // `ring_rows` = 0 stores every row.
  void resize(uint32_t width, uint32_t height, bool with_detail = true, uint32_t ring_rows = 0);
  Coef* a_row(int i) { return a.data() + slot(i); }
  const Coef* a_row(int i) const { return a.data() + slot(i); }
  Coef* detail_row(int band, int i) { return detail[band].data() + slot(i); }
  const Coef* detail_row(int band, int i) const { return detail[band].data() + slot(i); }

 private:
  size_t slot(int i) const { return size_t(uint32_t(i) % rows) * w; }
};

// Three detail-shaped bands (restored, additive, c, m, ...), rows stored as in AdmBands.
template <typename Coef>
struct AdmDetail {
  uint32_t w = 0, h = 0, rows = 0;
  std::array<std::vector<Coef>, 3> band;
  void resize(uint32_t width, uint32_t height, uint32_t ring_rows = 0);
  Coef* row(int b, int i) { return band[b].data() + slot(i); }
  const Coef* row(int b, int i) const { return band[b].data() + slot(i); }

 private:
  size_t slot(int i) const { return size_t(uint32_t(i) % rows) * w; }
};

// 3.2: columns [left, right), rows [top, bottom).
struct AdmRect {
  int left = 0, top = 0, right = 0, bottom = 0;
};
struct AdmRects {
  AdmRect inner, extended;
  int64_t count = 0;  // N = inner area
};
AdmRects adm_rects(uint32_t band_w, uint32_t band_h);

// 3.6: CSF weights of one configuration.
struct AdmScaleWeights {
  float f_hv = 0, f_d = 0;         // the f32 weights
  uint32_t fixed_hv = 0, fixed_d = 0;  // scale 0: Q21 / Q23 uint16; scales 1-3: Q32
  double cube_hv = 0, cube_d = 0;  // pow(f, 3)
};
using AdmWeights = std::array<AdmScaleWeights, kScales>;
// Modes 0 (Watson97), 2 and 3 (blend tables). Throws UsageError for mode 1 and for a mode 2/3
// viewing condition that has no table.
AdmWeights adm_weights(int csf_mode, double norm_view_dist, int ref_display_height);

// D1 (vmaf.md 9): which SIMD build's scale-0 masking centre rule to reproduce.
enum class SimdCompat { kNone, kAvx2, kAvx512 };

// 3.8 / 3.9 final conversions (f32), `noise_weight` = adm_noise_weight (0 for AIM).
float adm_num_value(int scale, const std::array<int64_t, 3>& acc, uint32_t band_w,
                    uint32_t band_h, int64_t count, double noise_weight);
float adm_den_value(int scale, const std::array<uint64_t, 3>& acc, const AdmScaleWeights& weights,
                    const AdmRects& rects, double noise_weight);

struct AdmScaleValues {
  float num = 0, den = 0, aim = 0;
};
struct AdmFrameScores {
  double adm2 = 0, aim = 0, adm3 = 0;
  std::array<double, kScales> scale{};
  double num = 0, den = 0;  // debug totals after the lim test
  bool den_zero = false;    // den == 0: aim is undefined upstream, written as 0
};
// 3.11.
AdmFrameScores adm_combine(const std::array<AdmScaleValues, kScales>& scales, uint32_t width,
                           uint32_t height, double dlm_weight, double min_val);

}  // namespace vqx::integer_adm
