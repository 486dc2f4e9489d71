// AVX2/FMA twin of covariance_plain (speed.md 8.3), compiled for that ISA by function attribute
// only; the dispatcher calls it after checking the CPU. Lanes 0-3 live in `lo`, 4-7 in `hi`.
// Tested against covariance_plain bit for bit (tests/unit/speed_chroma_stages_test.cpp).
#include "metrics/speed_chroma/speed_covariance.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

namespace vqx::speed {

__attribute__((target("avx2,fma"))) void covariance_avx2(const std::vector<double>& dev,
                                                          const Geometry& g, Matrix25& k) {
  const double n = double(g.n);
  for (int q = 0; q < kDim; ++q) {
    const double* dx = dev.data() + size_t(q) * g.n;
    for (int p = 0; p <= q; ++p) {
      const double* dy = dev.data() + size_t(p) * g.n;
      __m256d lo = _mm256_setzero_pd(), hi = _mm256_setzero_pd();
      double tail = 0.0;
      for (uint32_t i = 0; i < g.mh; ++i) {
        const double* a = dx + size_t(i) * g.mw;
        const double* b = dy + size_t(i) * g.mw;
        uint32_t j = 0;
        for (; j + 8 <= g.mw; j += 8) {
          lo = _mm256_fmadd_pd(_mm256_loadu_pd(a + j), _mm256_loadu_pd(b + j), lo);
          hi = _mm256_fmadd_pd(_mm256_loadu_pd(a + j + 4), _mm256_loadu_pd(b + j + 4), hi);
        }
        if (j + 4 <= g.mw) {
          lo = _mm256_fmadd_pd(_mm256_loadu_pd(a + j), _mm256_loadu_pd(b + j), lo);
          j += 4;
        }
        for (; j < g.mw; ++j) tail = tail + a[j] * b[j];
      }
      alignas(32) double s[4];
      _mm256_store_pd(s, _mm256_add_pd(lo, hi));  // A_l + A_(l+4), one rounding each
      const double sum = (((s[0] + s[1]) + s[2]) + s[3]) + tail;
      const float v = float(sum / n);
      k[size_t(q) * kDim + size_t(p)] = v;
      k[size_t(p) * kDim + size_t(q)] = v;
    }
  }
}

}  // namespace vqx::speed

#else

#include <stdexcept>

namespace vqx::speed {
void covariance_avx2(const std::vector<double>&, const Geometry&, Matrix25&) {
  throw std::logic_error("covariance_avx2 called on a non-x86 build");
}
}  // namespace vqx::speed

#endif
