// CAMBI init-time math and the integer image stages (shared/spec/cambi.md sections 3-6.2, 7).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "metrics/cambi/cambi_kernels.h"
#include "metrics/cambi/cambi_stages.h"

namespace vqx::cambi {

const std::array<float, kReciprocalLutSize>& reciprocal_lut() {
  static constexpr uint32_t kBits[kReciprocalLutSize] = {
#include "metrics/cambi/cambi_reciprocal_lut.inc"
  };
  static const std::array<float, kReciprocalLutSize> table = [] {
    std::array<float, kReciprocalLutSize> t{};
    for (int i = 0; i < kReciprocalLutSize; ++i) t[i] = std::bit_cast<float>(kBits[i]);
    return t;
  }();
  return table;
}

// ---- Section 3.1: EOTFs and TVI, all f64 with libm pow (-ffp-contract=off keeps c2 - c3 * x a
// separate multiply and subtract, as upstream's build).

namespace {

double bt1886_eotf(double v) {
  const double gamma = 2.4, lw = 300.0, lb = 0.01;
  const double lw_g = std::pow(lw, 1.0 / gamma);
  const double lb_g = std::pow(lb, 1.0 / gamma);
  const double a = std::pow(lw_g - lb_g, gamma);
  const double b = lb_g / (lw_g - lb_g);
  return a * std::pow(std::max(v + b, 0.0), gamma);
}

double pq_eotf(double v) {
  const double m1 = 0.1593017578125, m2 = 78.84375;
  const double c1 = 0.8359375, c2 = 18.8515625, c3 = 18.6875;
  const double x = std::pow(v, 1.0 / m2);
  const double num = std::max(x - c1, 0.0);
  const double den = c2 - c3 * x;
  return 10000.0 * std::pow(num / den, 1.0 / m1);
}

constexpr int kFoot = 64, kHead = 940;  // 10-bit limited range, always (spec 3 step 6)

// "A step of diff is visible at s" (spec 3.1).
bool step_visible(Eotf eotf, double threshold, int s, int diff) {
  double l0 = luminance(eotf, s);
  return luminance(eotf, s + diff) - l0 > threshold * l0;
}

enum class TviClass { kTooBig, kTooSmall, kCorrect };

TviClass classify(Eotf eotf, double threshold, int s, int diff) {
  if (!step_visible(eotf, threshold, s, diff)) return TviClass::kTooBig;
  if (step_visible(eotf, threshold, s + 1, diff)) return TviClass::kTooSmall;
  return TviClass::kCorrect;
}

}  // namespace

double luminance(Eotf eotf, int code) {
  int s = std::clamp(code, kFoot, kHead);
  double v = double(s - kFoot) / double(kHead - kFoot);
  return eotf == Eotf::kPq ? pq_eotf(v) : bt1886_eotf(v);
}

int tvi_threshold_code(Eotf eotf, double threshold, int diff) {
  int lo = kFoot, hi = kHead - diff - 1;
  TviClass c = classify(eotf, threshold, lo, diff);
  if (c == TviClass::kTooBig) return 0;
  if (c == TviClass::kCorrect) return lo;
  c = classify(eotf, threshold, hi, diff);
  if (c == TviClass::kTooSmall) return 1023;
  if (c == TviClass::kCorrect) return hi;
  // Bisection; lo is TOO_SMALL and hi TOO_BIG, so a CORRECT code lies strictly between them.
  for (;;) {
    int mid = lo + (hi - lo) / 2;
    c = classify(eotf, threshold, mid, diff);
    if (c == TviClass::kCorrect) return mid;
    (c == TviClass::kTooBig ? hi : lo) = mid;
  }
}

int vis_lum_threshold_code(Eotf eotf, double threshold) {
  // Upstream's loop is unbounded; bounding it at 940 is a documented deviation (spec 3.2, quirk 9)
  // that changes nothing for thresholds it can reach.
  int s = kFoot;
  while (s < kHead && luminance(eotf, s) < threshold) ++s;
  return s == kFoot ? 0 : s;
}

unsigned adjust_window(unsigned window_size, unsigned width, unsigned height, bool speedup) {
  unsigned ws = uint16_t(((window_size * (width + height)) / 375u) >> 4);
  if (speedup) ws = (ws + 1) >> 1;
  return ws | 1u;
}

int mask_index(unsigned width, unsigned height) {
  unsigned shifted = (width >> 6) * (height >> 6);
  int clog2 = shifted == 0 ? 0 : int(std::bit_width(shifted - 1));
  return (49 + 3 * (clog2 - 11) - 1) >> 1;
}

LevelParams make_level_params(Eotf eotf, double tvi_threshold, int max_log_contrast,
                              double vis_lum_threshold) {
  static constexpr int kWeights[kMaxNumDiffs] = {1, 2, 3, 4, 4, 5, 5, 6, 6, 6, 6,
                                                 7, 7, 7, 7, 8, 8, 8, 8, 8, 8, 8,
                                                 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};
  LevelParams p;
  p.num_diffs = 1 << max_log_contrast;
  for (int d = 0; d < p.num_diffs; ++d) {
    p.diff_weights[d] = kWeights[d];
    p.tvi[d] = tvi_threshold_code(eotf, tvi_threshold, d + 1) + p.num_diffs;
  }
  p.vlt_luma = vis_lum_threshold_code(eotf, vis_lum_threshold);
  p.base = std::max(0, p.vlt_luma - 3 * p.num_diffs + 1);
  p.band = p.tvi[p.num_diffs - 1] + 1 - p.base;
  return p;
}

ResizeMap make_resize_map(unsigned in_w, unsigned in_h, unsigned out_w, unsigned out_h) {
  ResizeMap map;
  map.rows.resize(out_h);
  map.cols.resize(out_w);
  if (in_w == out_w && in_h == out_h) {
    for (unsigned i = 0; i < out_h; ++i) map.rows[i] = i;
    for (unsigned j = 0; j < out_w; ++j) map.cols[j] = j;
    return map;
  }
  // Spec 4.2: f32 ratio and start, f32 stepping (not start + j * ratio), index (int)(f64(x)+0.5).
  auto fill = [](std::vector<uint32_t>& index, unsigned in, unsigned out) {
    float ratio = float(in) / float(out);
    float start = float(double(ratio / 2.0f) - 0.5);
    float x = start;
    for (unsigned i = 0; i < out; ++i) {
      index[i] = uint32_t(int(double(x) + 0.5));
      x = x + ratio;
    }
  };
  fill(map.rows, in_h, out_h);
  fill(map.cols, in_w, out_w);
  return map;
}

// ---- Section 4: preprocessing --------------------------------------------------------------

unsigned max_sample(const void* luma, size_t count, int bpc) {
  unsigned m = 0;
  if (bpc <= 8) {
    const uint8_t* p = static_cast<const uint8_t*>(luma);
    for (size_t i = 0; i < count; ++i) m = std::max<unsigned>(m, p[i]);
  } else {
    const uint16_t* p = static_cast<const uint16_t*>(luma);
    for (size_t i = 0; i < count; ++i) m = std::max<unsigned>(m, p[i]);
  }
  return m;
}

namespace {

template <typename Sample>
void convert_plane(const Sample* in, unsigned in_w, int bpc, const ResizeMap& map, uint16_t* out) {
  const size_t out_w = map.cols.size();
  // Identity columns (no horizontal resize) are the common case; keep that loop simple.
  bool identity_cols = out_w == in_w;
  for (size_t i = 0; i < map.rows.size(); ++i) {
    const Sample* src = in + size_t{map.rows[i]} * in_w;
    uint16_t* dst = out + i * out_w;
    if (identity_cols) {
      for (size_t j = 0; j < out_w; ++j) dst[j] = to_10bit(src[j], bpc);
    } else {
      for (size_t j = 0; j < out_w; ++j) dst[j] = to_10bit(src[map.cols[j]], bpc);
    }
  }
}

}  // namespace

void convert_to_10bit(const void* luma, unsigned in_w, int bpc, const ResizeMap& map,
                      uint16_t* out) {
  if (bpc <= 8)
    convert_plane(static_cast<const uint8_t*>(luma), in_w, bpc, map, out);
  else
    convert_plane(static_cast<const uint16_t*>(luma), in_w, bpc, map, out);
}

void anti_dither(const uint16_t* in, unsigned w, unsigned h, uint16_t* out) {
  // Spec 4.3: upstream works in place in raster order but reads every value before writing it,
  // so this out-of-place 2x2 box is the same image.
  for (unsigned r = 0; r + 1 < h; ++r) {
    const uint16_t* a = in + size_t{r} * w;
    const uint16_t* b = a + w;
    uint16_t* o = out + size_t{r} * w;
    for (unsigned c = 0; c + 1 < w; ++c) o[c] = uint16_t((a[c] + a[c + 1] + b[c] + b[c + 1]) >> 2);
    o[w - 1] = uint16_t((a[w - 1] + b[w - 1]) >> 1);
  }
  const uint16_t* a = in + size_t{h - 1} * w;
  uint16_t* o = out + size_t{h - 1} * w;
  for (unsigned c = 0; c + 1 < w; ++c) o[c] = uint16_t((a[c] + a[c + 1]) >> 1);
  o[w - 1] = a[w - 1];
}

// ---- Section 5: spatial mask ----------------------------------------------------------------

void spatial_mask(const uint16_t* image, unsigned w, unsigned h, int mask_index, uint8_t* mask) {
  // z(r, c): zero derivative to the right and below (outside counts as equal). Column sums of z
  // over rows r-3..r+3 are kept in `vsum` and updated row by row from a ring of the last eight z
  // rows; the 7-wide horizontal sum of those is the exact 7x7 count (outside contributes 0).
  // vsum has three zero columns on each side, so that every 7-wide sum reads seven entries.
  std::vector<uint8_t> ring(size_t{8} * w), padded_vsum(size_t{w} + 6, 0);
  uint8_t* vsum = padded_vsum.data() + 3;
  const CambiKernels& k = cambi_kernels();
  auto z_row = [&](unsigned r) {
    const uint16_t* row = image + size_t{r} * w;
    const uint16_t* below = r + 1 < h ? row + w : row;
    uint8_t* zr = ring.data() + size_t{r % 8} * w;
    k.flat_row(row, below, w - 1, zr);
    zr[w - 1] = uint8_t(row[w - 1] == below[w - 1]);
    return zr;
  };
  for (unsigned r = 0; r < 3 && r < h; ++r) {
    const uint8_t* zr = z_row(r);
    for (unsigned c = 0; c < w; ++c) vsum[c] = uint8_t(vsum[c] + zr[c]);
  }
  for (unsigned r = 0; r < h; ++r) {
    if (r >= 4) {  // row r + 3 takes the slot of row r - 5, which left the sum one row ago
      const uint8_t* zr = ring.data() + size_t{(r - 4) % 8} * w;
      for (unsigned c = 0; c < w; ++c) vsum[c] = uint8_t(vsum[c] - zr[c]);
    }
    if (r + 3 < h) {
      const uint8_t* zr = z_row(r + 3);
      for (unsigned c = 0; c < w; ++c) vsum[c] = uint8_t(vsum[c] + zr[c]);
    }
    k.flat_count_row(padded_vsum.data(), w, mask_index, mask + size_t{r} * w);
  }
}

// ---- Section 6: decimation and mode filter --------------------------------------------------

void decimate(const uint16_t* image, const uint8_t* mask, unsigned w, unsigned h,
              uint16_t* out_image, uint8_t* out_mask) {
  const unsigned ow = (w + 1) >> 1, oh = (h + 1) >> 1;
  for (unsigned i = 0; i < oh; ++i) {
    const uint16_t* src = image + size_t{2 * i} * w;
    const uint8_t* msrc = mask + size_t{2 * i} * w;
    uint16_t* dst = out_image + size_t{i} * ow;
    uint8_t* mdst = out_mask + size_t{i} * ow;
    for (unsigned j = 0; j < ow; ++j) {
      dst[j] = src[2 * j];
      mdst[j] = msrc[2 * j];
    }
  }
}

namespace {

void horizontal_mode(const CambiKernels& k, const uint16_t* in, unsigned w, uint16_t* out) {
  out[0] = in[0];
  if (w > 2) k.mode3(in, in + 1, in + 2, w - 2, out + 1);
  if (w > 1) out[w - 1] = in[w - 1];
}

}  // namespace

void mode_filter(const uint16_t* in, unsigned w, unsigned h, uint16_t* out) {
  // Rows 0 and h-1 stay as they were (not even filtered horizontally); every other row is the
  // vertical mode of the horizontally filtered rows above, at and below it.
  std::memcpy(out, in, size_t{w} * sizeof(uint16_t));
  if (h == 1) return;
  std::memcpy(out + size_t{h - 1} * w, in + size_t{h - 1} * w, size_t{w} * sizeof(uint16_t));
  if (h == 2) return;
  const CambiKernels& k = cambi_kernels();
  std::vector<uint16_t> ring(size_t{3} * w);
  uint16_t* rows[3] = {ring.data(), ring.data() + w, ring.data() + 2 * w};
  horizontal_mode(k, in, w, rows[0]);
  horizontal_mode(k, in + w, w, rows[1]);
  for (unsigned r = 1; r + 1 < h; ++r) {
    horizontal_mode(k, in + size_t{r + 1} * w, w, rows[2]);
    uint16_t* o = out + size_t{r} * w;
    k.mode3(rows[0], rows[1], rows[2], w, o);
    std::swap(rows[0], rows[1]);
    std::swap(rows[1], rows[2]);
  }
}

// ---- Section 7: final score -----------------------------------------------------------------

double weight_scores(const std::array<double, kNumScales>& scale_means, unsigned window) {
  double sum = 0.0;
  for (int s = 0; s < kNumScales; ++s) sum = sum + scale_means[s] * double(kScaleWeights[s]);
  uint16_t pixels = uint16_t((2 * (window >> 1) + 1) * (2 * (window >> 1) + 1));
  return sum / double(pixels);
}

}  // namespace vqx::cambi
