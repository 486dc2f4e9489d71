#include "metrics/ciede/ciede_math.h"

#include <fmt/format.h>

#include <cmath>
#include <numbers>

#include "core/error.h"

namespace vqx::ciede {
namespace {

constexpr double kPi = std::numbers::pi;

// ---- Y'CbCr -> L*a*b* (all f64 but the three f32 results of the XYZ -> Lab map) ----------------

// sRGB-like decoding with upstream's threshold 10/255 (not the standard 0.04045).
double decode_transfer(double c) {
  if (c > 10. / 255.) return std::pow((c + 0.055) * (1.0 / 1.055), 2.4);
  return c * (1.0 / 12.92);
}

// CIELAB's f(t), rounded to f32 (upstream's function returns float). The cube root is pow(t, 1/3).
float lab_companding(double t) {
  constexpr double kKappa = 24389.0 / 27.0;
  constexpr double kEpsilon = 216.0 / 24389.0;
  if (t > kEpsilon) return float(std::pow(t, 1.0 / 3.0));
  return float((kKappa * t + 16.0) * (1.0 / 116.0));
}

// ---- CIEDE2000 terms, f32 values computed through f64 where C promotes them --------------------

// Hue angle in [0, 2 pi) of (a', b): atan2(b, a'), upstream's argument order.
float hue_angle(float b, float a_prime) {
  if (b == 0.0 && a_prime == 0.0) return 0.0f;
  float h = float(std::atan2(double(b), double(a_prime)));
  if (h < 0.0) h = float(double(h) + 2. * kPi);
  return h;
}

// Delta h'. Zero when either chroma is zero (upstream tests C1 and C2, not C'1 and C'2).
float hue_difference(float c1, float c2, float h1, float h2) {
  if (c1 == 0.0 || c2 == 0.0) return 0.0f;
  const float d = h2 - h1;
  if (double(std::fabs(h1 - h2)) <= kPi) return d;
  if (h2 <= h1) return float(double(d) + 2. * kPi);
  return float(double(d) - 2. * kPi);
}

// H-bar'.
float mean_hue(float h1, float h2) {
  const float sum = h1 + h2;
  if (std::fabs(double(h1 - h2)) > kPi) return float((double(sum) + 2.0 * kPi) / 2.0);
  return float(double(sum) / 2.0);
}

float hue_weighting(float hbar) {
  const double h = hbar;
  return float(1.0 - 0.17 * std::cos(h - kPi / 6.0) + 0.24 * std::cos(2.0 * h) +
               0.32 * std::cos(3.0 * h + kPi / 30.0) - 0.20 * std::cos(4.0 * h - 7.0 * kPi / 20.0));
}

float to_degrees(float radians) { return float(double(radians) * (180.0 / kPi)); }
float to_radians(float degrees) { return float(double(degrees) * (kPi / 180.0)); }

// R_T. Upstream uses powf here (f32 results) and pow in the chroma term of a'.
float rotation_term(float cbar_prime, float hbar) {
  const float angle = float((double(to_degrees(hbar)) - 275.0) * (1.0 / 25.0));
  const float c7 = std::pow(cbar_prime, 7.0f);
  const float ratio = c7 / (c7 + powf_25_to_the_seventh());
  const float exponent = -(angle * angle);  // powf(x, 2): the compiler's exact-rounded x * x
  const float theta = to_radians(float(60.0 * std::exp(double(exponent))));
  return float(-2.0 * std::sqrt(double(ratio)) * std::sin(double(theta)));
}

double square(float x) { return double(x) * double(x); }  // pow(x, 2) of a float: exact

template <typename Sample>
float difference_of_samples(const Sample* ref, const Sample* dis, const PictureFormat& f,
                            uint64_t position) {
  const ChromaShift shift = chroma_shift(f);
  const uint64_t x = position % f.width, y = position / f.width;
  const uint64_t c = (y >> shift.y) * f.plane_width(1) + (x >> shift.x);
  const size_t cb = f.plane_offset(1) / sizeof(Sample), cr = f.plane_offset(2) / sizeof(Sample);
  const uint32_t ry = ref[position], ru = ref[cb + c], rv = ref[cr + c];
  const uint32_t dy = dis[position], du = dis[cb + c], dv = dis[cr + c];
  if (ry == dy && ru == du && rv == dv) return 0.0f;
  return ciede2000(yuv_to_lab(float(ry), float(ru), float(rv), f.bit_depth),
                   yuv_to_lab(float(dy), float(du), float(dv), f.bit_depth));
}

}  // namespace

float powf_25_to_the_seventh() { return std::pow(25.0f, 7.0f); }

float difference_at(const uint8_t* ref_frame, const uint8_t* dis_frame, const PictureFormat& format,
                    uint64_t position) {
  if (format.bytes_per_sample() == 1)
    return difference_of_samples(ref_frame, dis_frame, format, position);
  return difference_of_samples(reinterpret_cast<const uint16_t*>(ref_frame),
                               reinterpret_cast<const uint16_t*>(dis_frame), format, position);
}

Lab yuv_to_lab(float y_sample, float u_sample, float v_sample, unsigned bit_depth) {
  const double scale = double(1 << (bit_depth - 8));
  const double y = (double(y_sample) - 16. * scale) * (1. / (219. * scale));
  const double u = (double(u_sample) - 128. * scale) * (1. / (224. * scale));
  const double v = (double(v_sample) - 128. * scale) * (1. / (224. * scale));

  // BT.709 Y'CbCr -> R'G'B', then linear.
  const double r = decode_transfer(y + 1.28033 * v);
  const double g = decode_transfer(y - 0.21482 * u - 0.38059 * v);
  const double b = decode_transfer(y + 2.12798 * u);

  // Linear RGB -> XYZ, normalised by the D65 white (Y's white is 1).
  const double x = r * 0.4124564390896921 + g * 0.357576077643909 + b * 0.18043748326639894;
  const double yy = r * 0.21267285140562248 + g * 0.715152155287818 + b * 0.07217499330655958;
  const double z = r * 0.019333895582329317 + g * 0.119192025881303 + b * 0.9503040785363677;
  const double fx = lab_companding(x * (1.0 / 0.95047));
  const double fy = lab_companding(yy);
  const double fz = lab_companding(z * (1.0 / 1.08883));

  return Lab{float(116.0 * fy - 16.0), float(500.0 * (fx - fy)), float(200.0 * (fy - fz))};
}

float ciede2000(const Lab& c1_lab, const Lab& c2_lab) {
  constexpr float kL = float(0.65), kC = 1.0f, kH = 4.0f;  // upstream's double literals
  constexpr double k25To7 = 6103515625.0;                  // pow(25, 7), exact

  const float delta_l = c2_lab.l - c1_lab.l;
  const float l_bar = (c1_lab.l + c2_lab.l) / 2;
  const float c1 = float(std::sqrt(square(c1_lab.a) + square(c1_lab.b)));
  const float c2 = float(std::sqrt(square(c2_lab.a) + square(c2_lab.b)));
  const float c_bar = (c1 + c2) / 2;

  // a' = a (1 + G) with G = (1 - sqrt(C^7 / (C^7 + 25^7))) / 2, evaluated as a + (a/2)(1 - ...).
  const double c_bar7 = std::pow(double(c_bar), 7.0);
  const double g_factor = 1 - std::sqrt(c_bar7 / (c_bar7 + k25To7));
  const float a1 = float(double(c1_lab.a) + double(c1_lab.a / 2) * g_factor);
  const float a2 = float(double(c2_lab.a) + double(c2_lab.a / 2) * g_factor);

  const float c1p = float(std::sqrt(square(a1) + square(c1_lab.b)));
  const float c2p = float(std::sqrt(square(a2) + square(c2_lab.b)));
  const float cbar_p = (c1p + c2p) / 2;
  const float delta_c = c2p - c1p;

  const double l50_sq = square(l_bar - 50);
  const float s_l = float(1. + ((0.015 * l50_sq) / std::sqrt(20 + l50_sq)));
  const float s_c = float(1. + 0.045 * double(cbar_p));

  const float h1 = hue_angle(c1_lab.b, a1);
  const float h2 = hue_angle(c2_lab.b, a2);
  const float delta_h = hue_difference(c1, c2, h1, h2);
  const float delta_hh =
      float(2.0 * std::sqrt(double(c1p * c2p)) * std::sin(double(delta_h) / 2.0));
  const float hbar = mean_hue(h1, h2);
  const float t = hue_weighting(hbar);
  const float s_h = float(1.0 + 0.015 * double(cbar_p) * double(t));
  const float r_t = rotation_term(cbar_p, hbar);

  const float lightness = delta_l / (kL * s_l);
  const float chroma = delta_c / (kC * s_c);
  const float hue = delta_hh / (kH * s_h);
  const float cross = r_t * chroma * hue;
  return float(std::sqrt(square(lightness) + square(chroma) + square(hue) + double(cross)));
}

void require_supported(const PictureFormat& format) {
  if (format.color == ColorModel::kRGB)
    throw InputError("ciede converts Y'CbCr to CIELAB and cannot score R'G'B' input");
  if (format.subsampling == ChromaSubsampling::k400)
    throw InputError(fmt::format("ciede needs chroma planes, got {}", format.describe()));
}

ChromaShift chroma_shift(const PictureFormat& format) {
  switch (format.subsampling) {
    case ChromaSubsampling::k420:
      return {1, 1};
    case ChromaSubsampling::k422:
      return {1, 0};
    default:
      return {0, 0};
  }
}

double sequential_sum(const std::vector<float>& de00) {
  double sum = 0.;
  for (float d : de00) sum += d;
  return sum;
}

double score_from_sum(double de00_sum, uint32_t width, uint32_t height) {
  // Upstream divides by the unsigned product w * h.
  return 45. - 20. * std::log10(de00_sum / double(uint32_t(width * height)));
}

}  // namespace vqx::ciede
