// The ciede twin's per-pixel stage: the CPU's Y'CbCr -> L*a*b* and CIEDE2000 (ciede_math.cpp),
// step for step in the same f64 and f32 operations (--fmad=false), with every libm result
// carried as an enclosure of glibc's (bounds.cuh). A position whose f32 roundings and branches
// the enclosures all decide gets the CPU's exact dE00; any other is marked undecided.
//
// R_T's powf(C-bar', 7) has an f32 result, so an enclosure cannot be carried through it: glibc's
// powf rounds a double approximation of the exact power that is within 2^-24 of it, relatively
// (glibc documents 0.82 ulp; 2^-24 is 1.5 ulp at worst), so its result is one of the f32 values
// that round that range. The device finishes dE00 with each candidate and keeps the position only
// if they all give the same bits.
#include "engine/cuda/cuda_check.h"
#include "metrics/ciede/ciede_math.h"
#include "metrics/ciede/cuda/bounds.cuh"
#include "metrics/ciede/cuda/ciede_kernels.h"

namespace vqx::ciede::cuda {
namespace {

constexpr int kThreads = 128;
constexpr double kPi = 3.14159265358979323846;
constexpr double kPowfRelative = 0x1p-24;
constexpr int kMaxPowfCandidates = 3;

// ---- Y'CbCr -> L*a*b* ---------------------------------------------------------------------

__device__ Bound decode_transfer(double c) {
  if (c > 10. / 255.) return libm_result(pow((c + 0.055) * (1.0 / 1.055), 2.4));
  return exact(c * (1.0 / 12.92));
}

__device__ bool lab_companding(Bound t, float& out) {
  constexpr double kKappa = 24389.0 / 27.0;
  constexpr double kEpsilon = 216.0 / 24389.0;
  switch (greater(t, kEpsilon)) {
    case 1:  // pow is increasing in t: its ends bound it
      return to_float({libm_result(pow(t.lo, 1.0 / 3.0)).lo, libm_result(pow(t.hi, 1.0 / 3.0)).hi},
                      out);
    case 0:
      return to_float(scale(add(scale(t, kKappa), exact(16.0)), 1.0 / 116.0), out);
    default:
      return false;
  }
}

__device__ bool yuv_to_lab(float y_sample, float u_sample, float v_sample, unsigned bit_depth,
                           Lab& out) {
  const double scale_ = double(1 << (bit_depth - 8));
  const double y = (double(y_sample) - 16. * scale_) * (1. / (219. * scale_));
  const double u = (double(u_sample) - 128. * scale_) * (1. / (224. * scale_));
  const double v = (double(v_sample) - 128. * scale_) * (1. / (224. * scale_));

  const Bound r = decode_transfer(y + 1.28033 * v);
  const Bound g = decode_transfer(y - 0.21482 * u - 0.38059 * v);
  const Bound b = decode_transfer(y + 2.12798 * u);

  const Bound x = add(add(scale(r, 0.4124564390896921), scale(g, 0.357576077643909)),
                      scale(b, 0.18043748326639894));
  const Bound yy = add(add(scale(r, 0.21267285140562248), scale(g, 0.715152155287818)),
                       scale(b, 0.07217499330655958));
  const Bound z = add(add(scale(r, 0.019333895582329317), scale(g, 0.119192025881303)),
                      scale(b, 0.9503040785363677));
  float fx, fy, fz;
  if (!lab_companding(scale(x, 1.0 / 0.95047), fx) || !lab_companding(yy, fy) ||
      !lab_companding(scale(z, 1.0 / 1.08883), fz))
    return false;
  const double dx = fx, dy = fy, dz = fz;
  out = Lab{float(116.0 * dy - 16.0), float(500.0 * (dx - dy)), float(200.0 * (dy - dz))};
  return true;
}

// ---- CIEDE2000 ---------------------------------------------------------------------------

__device__ double square(float x) { return double(x) * double(x); }

__device__ bool hue_angle(float b, float a_prime, float& out) {
  if (b == 0.0 && a_prime == 0.0) {
    out = 0.0f;
    return true;
  }
  float h;
  if (!to_float(libm_result(atan2(double(b), double(a_prime))), h)) return false;
  if (h < 0.0) h = float(double(h) + 2. * kPi);
  out = h;
  return true;
}

__device__ float hue_difference(float c1, float c2, float h1, float h2) {
  if (c1 == 0.0 || c2 == 0.0) return 0.0f;
  const float d = h2 - h1;
  if (double(fabsf(h1 - h2)) <= kPi) return d;
  if (h2 <= h1) return float(double(d) + 2. * kPi);
  return float(double(d) - 2. * kPi);
}

__device__ float mean_hue(float h1, float h2) {
  const float sum = h1 + h2;
  if (fabs(double(h1 - h2)) > kPi) return float((double(sum) + 2.0 * kPi) / 2.0);
  return float(double(sum) / 2.0);
}

__device__ bool hue_weighting(float hbar, float& out) {
  const double h = hbar;
  const Bound c1 = libm_result(cos(h - kPi / 6.0));
  const Bound c2 = libm_result(cos(2.0 * h));
  const Bound c3 = libm_result(cos(3.0 * h + kPi / 30.0));
  const Bound c4 = libm_result(cos(4.0 * h - 7.0 * kPi / 20.0));
  const Bound t = sub(add(add(sub(exact(1.0), scale(c1, 0.17)), scale(c2, 0.24)), scale(c3, 0.32)),
                      scale(c4, 0.20));
  return to_float(t, out);
}

__device__ float to_degrees(float radians) { return float(double(radians) * (180.0 / kPi)); }
__device__ float to_radians(float degrees) { return float(double(degrees) * (kPi / 180.0)); }

// The f32 values glibc's powf(c, 7) can return: consecutive floats from `first`, `count` of them
// (0 when more than kMaxPowfCandidates).
struct PowfCandidates {
  float first;
  int count;
};

__device__ PowfCandidates powf_seventh_candidates(float c) {
  const Bound x = exact(c);  // c >= 0
  const Bound x2 = mul_nonnegative(x, x);
  const Bound x7 = mul_nonnegative(mul_nonnegative(x2, x2), mul_nonnegative(x2, x));
  const double lo = __dmul_rd(x7.lo, 1.0 - kPowfRelative);
  const double hi = __dmul_ru(x7.hi, 1.0 + kPowfRelative);
  const float first = __double2float_rn(lo), last = __double2float_rn(hi);
  const int count = int(__float_as_int(last) - __float_as_int(first)) + 1;  // positive floats
  return {first, count <= kMaxPowfCandidates ? count : 0};
}

// dE00 of two colours, or false where the enclosures leave it undecided.
__device__ bool ciede2000(const Lab& c1_lab, const Lab& c2_lab, float powf_25_7, float& out) {
  const float kL = float(0.65), kC = 1.0f, kH = 4.0f;
  constexpr double k25To7 = 6103515625.0;

  const float delta_l = c2_lab.l - c1_lab.l;
  const float l_bar = (c1_lab.l + c2_lab.l) / 2;
  const float c1 = float(sqrt(square(c1_lab.a) + square(c1_lab.b)));
  const float c2 = float(sqrt(square(c2_lab.a) + square(c2_lab.b)));
  const float c_bar = (c1 + c2) / 2;

  const Bound c_bar7 = libm_result(pow(double(c_bar), 7.0));
  const Bound g_factor =
      sub(exact(1.0), sqrt_of(div_nonnegative(c_bar7, add(c_bar7, exact(k25To7)))));
  float a1, a2;
  if (!to_float(add(exact(double(c1_lab.a)), scale(g_factor, double(c1_lab.a / 2))), a1) ||
      !to_float(add(exact(double(c2_lab.a)), scale(g_factor, double(c2_lab.a / 2))), a2))
    return false;

  const float c1p = float(sqrt(square(a1) + square(c1_lab.b)));
  const float c2p = float(sqrt(square(a2) + square(c2_lab.b)));
  const float cbar_p = (c1p + c2p) / 2;
  const float delta_c = c2p - c1p;

  const double l50_sq = square(l_bar - 50);
  const float s_l = float(1. + ((0.015 * l50_sq) / sqrt(20 + l50_sq)));
  const float s_c = float(1. + 0.045 * double(cbar_p));

  float h1, h2, delta_hh, t;
  if (!hue_angle(c1_lab.b, a1, h1) || !hue_angle(c2_lab.b, a2, h2)) return false;
  const float delta_h = hue_difference(c1, c2, h1, h2);
  const double chord = 2.0 * sqrt(double(c1p * c2p));  // >= 0
  if (!to_float(scale(libm_result(sin(double(delta_h) / 2.0)), chord), delta_hh)) return false;
  const float hbar = mean_hue(h1, h2);
  if (!hue_weighting(hbar, t)) return false;
  const float s_h = float(1.0 + 0.015 * double(cbar_p) * double(t));

  // R_T = -2 sqrt(ratio) sin(theta): theta does not depend on powf, ratio does.
  const float angle = float((double(to_degrees(hbar)) - 275.0) * (1.0 / 25.0));
  const float exponent = -(angle * angle);
  float theta_degrees;
  if (!to_float(scale(libm_result(exp(double(exponent))), 60.0), theta_degrees)) return false;
  const Bound sin_theta = libm_result(sin(double(to_radians(theta_degrees))));

  const float lightness = delta_l / (kL * s_l);
  const float chroma = delta_c / (kC * s_c);
  const float hue = delta_hh / (kH * s_h);
  const double squares = square(lightness) + square(chroma) + square(hue);

  const PowfCandidates c7 = powf_seventh_candidates(cbar_p);
  if (c7.count == 0) return false;
  uint32_t result = 0;
  for (int k = 0; k < c7.count; ++k) {
    const float c7_k = __int_as_float(__float_as_int(c7.first) + k);
    const float ratio = c7_k / (c7_k + powf_25_7);
    float r_t;
    if (!to_float(scale(sin_theta, -2.0 * sqrt(double(ratio))), r_t)) return false;
    const float cross = r_t * chroma * hue;
    const uint32_t bits = __float_as_uint(float(sqrt(squares + double(cross))));
    if (k > 0 && bits != result) return false;
    result = bits;
  }
  out = __uint_as_float(result);
  return true;
}

template <typename Sample>
__global__ void __launch_bounds__(kThreads)
    differences_kernel(PixelLayout layout, const uint8_t* ref_frame, const uint8_t* dis_frame,
                       float* de00, uint32_t* undecided, uint32_t* undecided_count) {
  const uint64_t p = uint64_t(blockIdx.x) * kThreads + threadIdx.x;
  bool open = false;
  if (p < layout.pixels()) {
    const uint32_t y = uint32_t(p / layout.width), x = uint32_t(p % layout.width);
    const uint64_t c = uint64_t(y >> layout.shift_y) * layout.chroma_width + (x >> layout.shift_x);
    const Sample* ref = reinterpret_cast<const Sample*>(ref_frame);
    const Sample* dis = reinterpret_cast<const Sample*>(dis_frame);
    const uint32_t ry = ref[p], ru = ref[layout.cb_offset + c], rv = ref[layout.cr_offset + c];
    const uint32_t dy = dis[p], du = dis[layout.cb_offset + c], dv = dis[layout.cr_offset + c];
    float d = 0.0f;  // equal colours: exactly 0, as the CPU (ciede.cpp)
    if (ry != dy || ru != du || rv != dv) {
      Lab a, b;
      open = !yuv_to_lab(float(ry), float(ru), float(rv), layout.bit_depth, a) ||
             !yuv_to_lab(float(dy), float(du), float(dv), layout.bit_depth, b) ||
             !ciede2000(a, b, layout.twenty_five_to_the_seventh, d);
      if (open) d = 0.0f;
    }
    de00[p] = d;
  }
  const uint32_t word = __ballot_sync(0xffffffffu, open);
  if ((threadIdx.x & 31) == 0 && p < layout.pixels()) {
    undecided[p / 32] = word;
    if (word != 0) atomicAdd(undecided_count, uint32_t(__popc(word)));
  }
}

}  // namespace

PixelLayout make_pixel_layout(const PictureFormat& format) {
  const ChromaShift shift = chroma_shift(format);
  const unsigned bytes = format.bytes_per_sample();
  return PixelLayout{format.width,
                     format.height,
                     format.plane_width(1),
                     shift.x,
                     shift.y,
                     format.bit_depth,
                     bytes,
                     format.plane_offset(1) / bytes,
                     format.plane_offset(2) / bytes,
                     powf_25_to_the_seventh()};
}

void launch_differences(const PixelLayout& layout, const uint8_t* ref, const uint8_t* dis,
                        float* de00, uint32_t* undecided, uint32_t* undecided_count,
                        cudaStream_t stream) {
  vqx::cuda::check(cudaMemsetAsync(undecided_count, 0, sizeof(uint32_t), stream),
                   "ciede: undecided count reset");
  const unsigned blocks = unsigned((layout.pixels() + kThreads - 1) / kThreads);
  if (layout.bytes_per_sample == 1)
    differences_kernel<uint8_t><<<blocks, kThreads, 0, stream>>>(layout, ref, dis, de00,
                                                                 undecided, undecided_count);
  else
    differences_kernel<uint16_t><<<blocks, kThreads, 0, stream>>>(layout, ref, dis, de00,
                                                                  undecided, undecided_count);
  vqx::cuda::check_launch("ciede: differences_kernel");
}

}  // namespace vqx::ciede::cuda
