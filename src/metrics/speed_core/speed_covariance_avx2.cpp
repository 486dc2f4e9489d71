// The AVX2 + FMA level of the SpEED kernels: the twin of covariance_plain (speed.md 8.3),
// compiled for that ISA by function attribute only. For one entry, lanes 0-3 live in one
// register and lanes 4-7 in another, exactly as upstream's kernel. Four entries (q, p..p+3) are
// computed side by side to hide the FMA latency; each keeps its own accumulators, so the grouping
// of every sum is unchanged. Tested against covariance_plain bit for bit
// (tests/unit/speed_chroma_stages_test.cpp).
#include "metrics/speed_core/speed_kernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

namespace vqx::speed {
namespace {

template <int kEntries>
__attribute__((target("avx2,fma"))) inline void entries(const double* dx, const double* const* dy,
                                                        const Geometry& g, float* out) {
  __m256d lo[kEntries], hi[kEntries];
  double tail[kEntries];
  for (int e = 0; e < kEntries; ++e) lo[e] = hi[e] = _mm256_setzero_pd(), tail[e] = 0.0;
  for (uint32_t i = 0; i < g.mh; ++i) {
    const size_t base = size_t(i) * g.mw;
    const double* a = dx + base;
    uint32_t j = 0;
    for (; j + 8 <= g.mw; j += 8) {
      const __m256d a0 = _mm256_loadu_pd(a + j), a1 = _mm256_loadu_pd(a + j + 4);
      for (int e = 0; e < kEntries; ++e) {
        lo[e] = _mm256_fmadd_pd(a0, _mm256_loadu_pd(dy[e] + base + j), lo[e]);
        hi[e] = _mm256_fmadd_pd(a1, _mm256_loadu_pd(dy[e] + base + j + 4), hi[e]);
      }
    }
    if (j + 4 <= g.mw) {
      const __m256d a0 = _mm256_loadu_pd(a + j);
      for (int e = 0; e < kEntries; ++e)
        lo[e] = _mm256_fmadd_pd(a0, _mm256_loadu_pd(dy[e] + base + j), lo[e]);
      j += 4;
    }
    for (; j < g.mw; ++j)
      for (int e = 0; e < kEntries; ++e) tail[e] = tail[e] + a[j] * dy[e][base + j];  // unfused
  }
  const double n = double(g.n);
  for (int e = 0; e < kEntries; ++e) {
    alignas(32) double s[4];
    _mm256_store_pd(s, _mm256_add_pd(lo[e], hi[e]));  // A_l + A_(l+4), one rounding each
    const double sum = (((s[0] + s[1]) + s[2]) + s[3]) + tail[e];
    out[e] = float(sum / n);
  }
}

__attribute__((target("avx2,fma"))) void covariance_avx2(const std::vector<double>& dev,
                                                         const Geometry& g, Matrix25& k) {
  for (int q = 0; q < kDim; ++q) {
    const double* dx = dev.data() + size_t(q) * g.n;
    int p = 0;
    float v[4];
    const double* dy[4];
    for (; p + 4 <= q + 1; p += 4) {
      for (int e = 0; e < 4; ++e) dy[e] = dev.data() + size_t(p + e) * g.n;
      entries<4>(dx, dy, g, v);
      for (int e = 0; e < 4; ++e)
        k[size_t(q) * kDim + size_t(p + e)] = k[size_t(p + e) * kDim + size_t(q)] = v[e];
    }
    for (; p <= q; ++p) {
      dy[0] = dev.data() + size_t(p) * g.n;
      entries<1>(dx, dy, g, v);
      k[size_t(q) * kDim + size_t(p)] = k[size_t(p) * kDim + size_t(q)] = v[0];
    }
  }
}

}  // namespace

void install_avx2_fma_kernels(SpeedKernels& k) { k.covariance = covariance_avx2; }

}  // namespace vqx::speed

#else

namespace vqx::speed {
// Not an x86 build: the plain kernels stay.
void install_avx2_fma_kernels(SpeedKernels&) {}
}  // namespace vqx::speed

#endif
