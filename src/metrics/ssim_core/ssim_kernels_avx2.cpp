// AVX2 row kernels of the SsimKernels table (ssim_kernels.h). Vectorised across output pixels
// only: each lane runs the plain twin's exact sequence of f32 products, f32->f64 widenings and f64
// additions, so every lane is bit-identical to the scalar code. No FMA (the target is "avx2" alone,
// and contraction is off).
#include <immintrin.h>

#include "metrics/ssim_core/ssim_row_kernels.h"

#if defined(__x86_64__) || defined(__i386__)
#define VQX_AVX2 __attribute__((target("avx2")))
#else
#error "ssim_kernels_avx2.cpp needs an x86 compiler"
#endif

namespace vqx::ssim::detail {
namespace {

// 16 outputs per step: four f64 accumulators of four lanes, 81 taps each in g_lpf order.
VQX_AVX2 void decimate_row_avx2(const float* const even[kLpfTaps], const float* const odd[kLpfTaps],
                                int out_width, float* out) {
  int x = 0;
  for (; x + 16 <= out_width; x += 16) {
    __m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd();
    __m256d a2 = _mm256_setzero_pd(), a3 = _mm256_setzero_pd();
    for (int v = 0; v < kLpfTaps; ++v) {
      const float* e = even[v] + x;
      const float* o = odd[v] + x;
      for (int u = 0; u < kLpfTaps; ++u) {
        const float* row = (u & 1) ? o : e;  // picked first: see decimate_one
        const float* src = row + u / 2;
        const __m256 k = _mm256_set1_ps(kLpf[v][u]);
        const __m256 p0 = _mm256_mul_ps(_mm256_loadu_ps(src), k);
        const __m256 p1 = _mm256_mul_ps(_mm256_loadu_ps(src + 8), k);
        a0 = _mm256_add_pd(a0, _mm256_cvtps_pd(_mm256_castps256_ps128(p0)));
        a1 = _mm256_add_pd(a1, _mm256_cvtps_pd(_mm256_extractf128_ps(p0, 1)));
        a2 = _mm256_add_pd(a2, _mm256_cvtps_pd(_mm256_castps256_ps128(p1)));
        a3 = _mm256_add_pd(a3, _mm256_cvtps_pd(_mm256_extractf128_ps(p1, 1)));
      }
    }
    _mm_storeu_ps(out + x, _mm256_cvtpd_ps(a0));
    _mm_storeu_ps(out + x + 4, _mm256_cvtpd_ps(a1));
    _mm_storeu_ps(out + x + 8, _mm256_cvtpd_ps(a2));
    _mm_storeu_ps(out + x + 12, _mm256_cvtpd_ps(a3));
  }
  for (; x < out_width; ++x) out[x] = decimate_one(even, odd, x);
}

// Four outputs per step, five quantities; the products r*r, d*d, r*d are formed in f32 per input
// pixel exactly as upstream forms them over the whole plane before convolving.
VQX_AVX2 void window_h_row_avx2(const float* ref, const float* dis, int map_width,
                                float* const out[kQuantities]) {
  int x = 0;
  for (; x + 4 <= map_width; x += 4) {
    __m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd(), a2 = _mm256_setzero_pd();
    __m256d a3 = _mm256_setzero_pd(), a4 = _mm256_setzero_pd();
    for (int t = 0; t < kWindowTaps; ++t) {
      const __m128 g = _mm_set1_ps(kGaussian[t]);
      const __m128 r = _mm_loadu_ps(ref + x + t);
      const __m128 d = _mm_loadu_ps(dis + x + t);
      a0 = _mm256_add_pd(a0, _mm256_cvtps_pd(_mm_mul_ps(r, g)));
      a1 = _mm256_add_pd(a1, _mm256_cvtps_pd(_mm_mul_ps(d, g)));
      a2 = _mm256_add_pd(a2, _mm256_cvtps_pd(_mm_mul_ps(_mm_mul_ps(r, r), g)));
      a3 = _mm256_add_pd(a3, _mm256_cvtps_pd(_mm_mul_ps(_mm_mul_ps(d, d), g)));
      a4 = _mm256_add_pd(a4, _mm256_cvtps_pd(_mm_mul_ps(_mm_mul_ps(r, d), g)));
    }
    _mm_storeu_ps(out[0] + x, _mm256_cvtpd_ps(a0));
    _mm_storeu_ps(out[1] + x, _mm256_cvtpd_ps(a1));
    _mm_storeu_ps(out[2] + x, _mm256_cvtpd_ps(a2));
    _mm_storeu_ps(out[3] + x, _mm256_cvtpd_ps(a3));
    _mm_storeu_ps(out[4] + x, _mm256_cvtpd_ps(a4));
  }
  for (; x < map_width; ++x) window_h_one(ref, dis, x, out);
}

// Vertical sums of eight pixels: 8-wide f32 products, each half widened into its own f64 chain.
VQX_AVX2 inline __m256 vertical8(const float* const rows[kWindowTaps], int x) {
  __m256d lo = _mm256_setzero_pd(), hi = _mm256_setzero_pd();
  for (int t = 0; t < kWindowTaps; ++t) {
    const __m256 p = _mm256_mul_ps(_mm256_loadu_ps(rows[t] + x), _mm256_set1_ps(kGaussian[t]));
    lo = _mm256_add_pd(lo, _mm256_cvtps_pd(_mm256_castps256_ps128(p)));
    hi = _mm256_add_pd(hi, _mm256_cvtps_pd(_mm256_extractf128_ps(p, 1)));
  }
  return _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo));
}

// l = (2*mu_r*mu_d + C1) / f64(den) for four lanes, numerator in f64 (spec 4.3).
VQX_AVX2 inline __m256d luminance4(__m128 mu_r, __m128 mu_d, __m128 den) {
  const __m256d num =
      _mm256_add_pd(_mm256_mul_pd(_mm256_mul_pd(_mm256_set1_pd(2.0), _mm256_cvtps_pd(mu_r)),
                                  _mm256_cvtps_pd(mu_d)),
                    _mm256_set1_pd(double(kC1)));
  return _mm256_div_pd(num, _mm256_cvtps_pd(den));
}

// c = (2*sigma + C2) / f64(den) for four lanes.
VQX_AVX2 inline __m256d contrast4(__m128 sigma, __m128 den) {
  const __m256d num = _mm256_add_pd(_mm256_mul_pd(_mm256_set1_pd(2.0), _mm256_cvtps_pd(sigma)),
                                    _mm256_set1_pd(double(kC2)));
  return _mm256_div_pd(num, _mm256_cvtps_pd(den));
}

// Eight pixels per step: the vertical pass, then spec 4.2 and 4.3 lane by lane.
VQX_AVX2 void window_v_terms_row_avx2(const float* const rows[kQuantities][kWindowTaps],
                                      int map_width, double* l, double* c, float* s) {
  const __m256 zero = _mm256_setzero_ps();
  const __m256 c1 = _mm256_set1_ps(kC1), c2 = _mm256_set1_ps(kC2), c3 = _mm256_set1_ps(kC3);
  int x = 0;
  for (; x + 8 <= map_width; x += 8) {
    const __m256 mu_r = vertical8(rows[0], x);
    const __m256 mu_d = vertical8(rows[1], x);
    const __m256 sum_rr = vertical8(rows[2], x);
    const __m256 sum_dd = vertical8(rows[3], x);
    const __m256 sum_rd = vertical8(rows[4], x);
    // max_ps(0, v) = (0 > v) ? 0 : v, upstream's MAX(0.0, v) including -0 and NaN.
    const __m256 var_r = _mm256_max_ps(zero, _mm256_sub_ps(sum_rr, _mm256_mul_ps(mu_r, mu_r)));
    const __m256 var_d = _mm256_max_ps(zero, _mm256_sub_ps(sum_dd, _mm256_mul_ps(mu_d, mu_d)));
    const __m256 cov = _mm256_sub_ps(sum_rd, _mm256_mul_ps(mu_r, mu_d));
    // Correctly rounded f32 sqrt == f32(sqrt_f64(f64(p))) (53 >= 2*24+2 bits: no double rounding).
    const __m256 sigma = _mm256_sqrt_ps(_mm256_mul_ps(var_r, var_d));
    const __m256 l_den =
        _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(mu_r, mu_r), _mm256_mul_ps(mu_d, mu_d)), c1);
    const __m256 c_den = _mm256_add_ps(_mm256_add_ps(var_r, var_d), c2);
    _mm256_storeu_pd(l + x, luminance4(_mm256_castps256_ps128(mu_r), _mm256_castps256_ps128(mu_d),
                                       _mm256_castps256_ps128(l_den)));
    _mm256_storeu_pd(l + x + 4,
                     luminance4(_mm256_extractf128_ps(mu_r, 1), _mm256_extractf128_ps(mu_d, 1),
                                _mm256_extractf128_ps(l_den, 1)));
    _mm256_storeu_pd(c + x,
                     contrast4(_mm256_castps256_ps128(sigma), _mm256_castps256_ps128(c_den)));
    _mm256_storeu_pd(c + x + 4,
                     contrast4(_mm256_extractf128_ps(sigma, 1), _mm256_extractf128_ps(c_den, 1)));
    // Flat-region fix: cov < 0 and sigma <= 0 (ordered compares: false on NaN, as in C) -> +0.
    const __m256 flat =
        _mm256_and_ps(_mm256_cmp_ps(cov, zero, _CMP_LT_OQ), _mm256_cmp_ps(sigma, zero, _CMP_LE_OQ));
    const __m256 cov_fixed = _mm256_andnot_ps(flat, cov);
    _mm256_storeu_ps(s + x, _mm256_div_ps(_mm256_add_ps(cov_fixed, c3), _mm256_add_ps(sigma, c3)));
  }
  for (; x < map_width; ++x) {
    const LcsTerm t = window_v_terms_one(rows, x);
    l[x] = t.l;
    c[x] = t.c;
    s[x] = t.s;
  }
}

}  // namespace

void install_avx2_kernels(SsimKernels& kernels) {
  kernels.decimate_row = decimate_row_avx2;
  kernels.window_h_row = window_h_row_avx2;
  kernels.window_v_terms_row = window_v_terms_row_avx2;
}

}  // namespace vqx::ssim::detail
