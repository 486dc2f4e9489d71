// Colour conversion, XYB, downsampling, products and pooling of the fork's SSIMULACRA 2
// (shared/spec/ssimulacra2.md sections 2-5 and 10). The blur is in ssimulacra2_blur.cpp, the
// optimised kernels in ssimulacra2_kernels.inc.
#include <cmath>
#include <vector>

#include "metrics/ssimulacra2/ssimulacra2_core.h"

namespace vqx::ssimulacra2 {

// ---- Section 2 ---------------------------------------------------------------------------------

YuvMatrix make_yuv_matrix(int yuv_matrix) {
  const bool bt601 = yuv_matrix == 1 || yuv_matrix == 3;
  const bool full = yuv_matrix >= 2;
  const float kr = bt601 ? 0.299f : 0.2126f;
  const float kg = bt601 ? 0.587f : 0.7152f;
  const float kb = bt601 ? 0.114f : 0.0722f;
  YuvMatrix m{};
  // 2.4: derived in f32, in this order; -(x / kg) and (-x) / kg round identically.
  m.cr_r = 2.0f * (1.0f - kr);
  m.cb_b = 2.0f * (1.0f - kb);
  m.cb_g = -((2.0f * kb) * (1.0f - kb)) / kg;
  m.cr_g = -((2.0f * kr) * (1.0f - kr)) / kg;
  // Limited range uses the 8-bit constants at every depth (the fork's quirk, kept on purpose).
  m.y_scale = full ? 1.0f : 255.0f / 219.0f;
  m.c_scale = full ? 1.0f : 255.0f / 224.0f;
  m.y_off = full ? 0.0f : 16.0f / 255.0f;
  m.c_off = 0.5f;
  return m;
}

float inverse_peak(unsigned bit_depth) {
  const float peak = float((uint32_t{1} << bit_depth) - 1);
  return 1.0f / peak;
}

namespace {

inline float clamp01(float v) { return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v); }

// 2.2: the chroma sample for luma position x: same size, exactly half, else floor(x * pw / w).
// For odd sizes with pw = ceil(w / 2) the general rule gives x >> 1, as the spec notes.
inline uint32_t chroma_index(uint32_t x, uint32_t plane_size, uint32_t luma_size) {
  uint32_t s;
  if (plane_size == luma_size) s = x;
  else if (2 * uint64_t{plane_size} == luma_size) s = x >> 1;
  else s = uint32_t(uint64_t{x} * plane_size / luma_size);
  return s < plane_size ? s : plane_size - 1;
}

template <typename Sample>
void yuv_rows(const Picture& picture, const YuvMatrix& m, float* const out[3], uint32_t y0,
              uint32_t y1) {
  const PictureFormat& f = picture.format();
  const uint32_t w = f.width, h = f.height;
  const uint32_t cw = f.plane_width(1), ch = f.plane_height(1);
  const float inv_peak = inverse_peak(f.bit_depth);
  const Sample* py = picture.plane<Sample>(0);
  const Sample* pu = picture.plane<Sample>(1);
  const Sample* pv = picture.plane<Sample>(2);
  // The horizontal chroma index of each column, once per call instead of once per pixel.
  thread_local std::vector<uint32_t> column_index;
  column_index.resize(w);
  for (uint32_t x = 0; x < w; ++x) column_index[x] = chroma_index(x, cw, w);
  const uint32_t* cxs = column_index.data();
  for (uint32_t y = y0; y < y1; ++y) {
    const uint32_t cy = chroma_index(y, ch, h);
    const Sample* row_y = py + size_t{y} * w;
    const Sample* row_u = pu + size_t{cy} * cw;
    const Sample* row_v = pv + size_t{cy} * cw;
    float* r_out = out[0] + size_t{y - y0} * w;
    float* g_out = out[1] + size_t{y - y0} * w;
    float* b_out = out[2] + size_t{y - y0} * w;
    for (uint32_t x = 0; x < w; ++x) {
      const uint32_t cx = cxs[x];
      const float Y = float(row_y[x]) * inv_peak;
      const float U = float(row_u[cx]) * inv_peak;
      const float V = float(row_v[cx]) * inv_peak;
      const float yn = (Y - m.y_off) * m.y_scale;
      const float un = (U - m.c_off) * m.c_scale;
      const float vn = (V - m.c_off) * m.c_scale;
      const float r = yn + m.cr_r * vn;
      const float g = (yn + m.cb_g * un) + m.cr_g * vn;
      const float b = yn + m.cb_b * un;
      r_out[x] = srgb_eotf(clamp01(r));
      g_out[x] = srgb_eotf(clamp01(g));
      b_out[x] = srgb_eotf(clamp01(b));
    }
  }
}

template <typename Sample>
void rgb_rows(const Picture& picture, float* const out[3], uint32_t y0, uint32_t y1) {
  const PictureFormat& f = picture.format();
  const uint32_t w = f.width;
  const float inv_peak = inverse_peak(f.bit_depth);
  const size_t begin = size_t{y0} * w, count = size_t{y1 - y0} * w;
  for (unsigned c = 0; c < 3; ++c) {
    const Sample* in = picture.plane<Sample>(c) + begin;
    for (size_t i = 0; i < count; ++i) out[c][i] = srgb_eotf(float(in[i]) * inv_peak);
  }
}

// Where row y0 of each plane lies.
struct RowStarts {
  float* c[3];
};
RowStarts row_starts(const RgbPlanes& out, uint32_t y0) {
  const size_t offset = size_t{y0} * out.width;
  return {{out.c[0] + offset, out.c[1] + offset, out.c[2] + offset}};
}

}  // namespace

void yuv_to_linear_rgb_rows(const Picture& picture, const YuvMatrix& matrix, float* const out[3],
                            uint32_t y0, uint32_t y1) {
  if (picture.format().bit_depth > 8) yuv_rows<uint16_t>(picture, matrix, out, y0, y1);
  else yuv_rows<uint8_t>(picture, matrix, out, y0, y1);
}

void rgb_to_linear_rgb_rows(const Picture& picture, float* const out[3], uint32_t y0, uint32_t y1) {
  if (picture.format().bit_depth > 8) rgb_rows<uint16_t>(picture, out, y0, y1);
  else rgb_rows<uint8_t>(picture, out, y0, y1);
}

void yuv_to_linear_rgb(const Picture& picture, const YuvMatrix& matrix, const RgbPlanes& out,
                       uint32_t y0, uint32_t y1) {
  yuv_to_linear_rgb_rows(picture, matrix, row_starts(out, y0).c, y0, y1);
}

void rgb_to_linear_rgb(const Picture& picture, const RgbPlanes& out, uint32_t y0, uint32_t y1) {
  rgb_to_linear_rgb_rows(picture, row_starts(out, y0).c, y0, y1);
}

// ---- Section 3 ---------------------------------------------------------------------------------

const float kCbrtBias = cbrt_approx(kOpsinBias);

XybPixel linear_rgb_to_xyb(float r, float g, float b) {
  const float l = ((kM00 * r + kM01 * g) + kM02 * b) + kOpsinBias;
  const float m = ((kM10 * r + kM11 * g) + kM12 * b) + kOpsinBias;
  const float s = ((kM20 * r + kM21 * g) + kM22 * b) + kOpsinBias;
  // Negative mixes become 0; cbrt_approx returns 0 for them anyway.
  const float L = cbrt_approx(l) - kCbrtBias;
  const float M = cbrt_approx(m) - kCbrtBias;
  const float S = cbrt_approx(s) - kCbrtBias;
  const float X = 0.5f * (L - M);
  const float Y = 0.5f * (L + M);
  // MakePositive, B first because it uses Y before Y's offset.
  return XybPixel{(X * 14.0f) + 0.42f, Y + 0.01f, (S - Y) + 0.55f};
}

// ---- Section 4 ---------------------------------------------------------------------------------

void downsample_2x2_row(const float* row0, const float* row1, uint32_t iw, float* o) {
  // Order of the four adds: (dy, dx) = (0,0), (0,1), (1,0), (1,1), starting from 0.0f.
  const uint32_t full = iw / 2;
  for (uint32_t ox = 0; ox < full; ++ox) {
    float sum = 0.0f;
    sum = sum + row0[2 * ox];
    sum = sum + row0[2 * ox + 1];
    sum = sum + row1[2 * ox];
    sum = sum + row1[2 * ox + 1];
    o[ox] = sum * 0.25f;
  }
  if (full < half_size(iw)) {  // odd width: the last column repeats
    const uint32_t ix = iw - 1;
    float sum = 0.0f;
    sum = sum + row0[ix];
    sum = sum + row0[ix];
    sum = sum + row1[ix];
    sum = sum + row1[ix];
    o[full] = sum * 0.25f;
  }
}

void downsample_2x2(const float* in, uint32_t iw, uint32_t ih, float* out, uint32_t oy0,
                    uint32_t oy1) {
  const uint32_t ow = half_size(iw);
  for (uint32_t oy = oy0; oy < oy1; ++oy) {
    const uint32_t iy0 = 2 * oy;
    const uint32_t iy1 = iy0 + 1 < ih ? iy0 + 1 : ih - 1;
    downsample_2x2_row(in + size_t{iy0} * iw, in + size_t{iy1} * iw, iw, out + size_t{oy} * ow);
  }
}

// ---- Section 5 ---------------------------------------------------------------------------------

void multiply_planes(const float* a, const float* b, float* out, size_t begin, size_t end) {
  for (size_t i = begin; i < end; ++i) out[i] = a[i] * b[i];
}

// ---- Section 10 --------------------------------------------------------------------------------

const std::array<double, 108> kPoolingWeights = {
    0.0, 0.0007376606707406586, 0.0, 0.0, 0.0007793481682867309, 0.0,
    0.0, 0.0004371155730107379, 0.0, 1.1041726426657346, 0.00066284834129271, 0.00015231632783718752,
    0.0, 0.0016406437456599754, 0.0, 1.8422455520539298, 11.441172603757666, 0.0,
    0.0007989109436015163, 0.000176816438078653, 0.0, 1.8787594979546387, 10.94906990605142, 0.0,
    0.0007289346991508072, 0.9677937080626833, 0.0, 0.00014003424285435884, 0.9981766977854967, 0.00031949755934435053,
    0.0004550992113792063, 0.0, 0.0, 0.0013648766163243398, 0.0, 0.0,
    0.0, 0.0, 0.0, 7.466890328078848, 0.0, 17.445833984131262,
    0.0006235601634041466, 0.0, 0.0, 6.683678146179332, 0.00037724407979611296, 1.027889937768264,
    225.20515300849274, 0.0, 0.0, 19.213238186143016, 0.0011401524586618361, 0.001237755635509985,
    176.39317598450694, 0.0, 0.0, 24.43300999870476, 0.28520802612117757, 0.0004485436923833408,
    0.0, 0.0, 0.0, 34.77906344483772, 44.835625328877896, 0.0,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0008680556573291698, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0005313191874358747, 0.0, 0.00016533814161379112, 0.0, 0.0,
    0.0, 0.0, 0.0, 0.0004179171803251336, 0.0017290828234722833, 0.0,
    0.0020827005846636437, 0.0, 0.0, 8.826982764996862, 23.19243343998926, 0.0,
    95.1080498811086, 0.9863978034400682, 0.9834382792465353, 0.0012286405048278493, 171.2667255897307, 0.9807858872435379,
    0.0, 0.0, 0.0, 0.0005130064588990679, 0.0, 0.00010854057858411537,
};

double pool_score(const FrameSums& frame) {
  // Section 9: per (scale, channel), norms from the sums, with a multiply by the reciprocal.
  // Absent scales contribute 0 at fixed weight indices (10.1, the fork's positional rule).
  double ssim_norm[kNumScales][3][2] = {};
  double edge_norm[kNumScales][3][4] = {};
  for (int s = 0; s < frame.scales; ++s) {
    const double inv = 1.0 / double(frame.pixels[size_t(s)]);
    for (int c = 0; c < 3; ++c) {
      const ChannelSums& t = frame.sums[size_t(s)][size_t(c)];
      ssim_norm[s][c][0] = inv * t.s1;
      ssim_norm[s][c][1] = std::sqrt(std::sqrt(inv * t.s4));
      edge_norm[s][c][0] = inv * t.a1;
      edge_norm[s][c][1] = std::sqrt(std::sqrt(inv * t.a4));
      edge_norm[s][c][2] = inv * t.d1;
      edge_norm[s][c][3] = std::sqrt(std::sqrt(inv * t.d4));
    }
  }
  double ssim = 0.0;
  size_t i = 0;
  for (int c = 0; c < 3; ++c)
    for (int s = 0; s < kNumScales; ++s)
      for (int n = 0; n < 2; ++n) {
        ssim = ssim + kPoolingWeights[i++] * std::fabs(ssim_norm[s][c][n]);
        ssim = ssim + kPoolingWeights[i++] * std::fabs(edge_norm[s][c][n]);
        ssim = ssim + kPoolingWeights[i++] * std::fabs(edge_norm[s][c][n + 2]);
      }
  // 10.2, exactly this bracketing.
  double x = ssim * 0.9562382616834844;
  x = ((2.326765642916932 * x) - ((0.020884521182843837 * x) * x)) +
      (((6.248496625763138e-05 * x) * x) * x);
  return x > 0.0 ? 100.0 - (10.0 * std::pow(x, 0.6276336467831387)) : 100.0;
}

}  // namespace vqx::ssimulacra2
