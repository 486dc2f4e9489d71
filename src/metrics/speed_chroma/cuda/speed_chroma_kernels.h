#pragma once
// The per-sample and per-entry arithmetic of the SpEED-chroma CUDA twin, written once for both the
// device (the kernels in speed_chroma_cuda.cu) and the host (tests/gpu/speed_chroma_cuda_test.cpp
// runs these same functions on the CPU against the CPU twin's stage functions, so the logic is
// checked even where there is no GPU).
//
// Every function reproduces one CPU stage operation by operation (shared/spec/speed.md):
//   scaled_sample       - 3 (conversion) and 5.2/5.3 (prescale), as speed_preprocess.cpp
//   decimated_sample    - 6.4 (antialias convolution, vertical pass first) sampled at (16i, 16j), 7.3
//   residual_sample     - 7.4-7.5 (E = D - conv(D, mean taps) on the full ow x oh image)
//   offset_mean         - 8.2 (f32 fold from +0 in raster order, divided by (f32)N)
//   covariance_entry    - 8.3 (f64 deviations; AVX2 lane grouping: 8 FMA lanes, one 4-block,
//                         unfused tail; the fixed combination; RN32(sum / N))
// Each value is a fixed sequential fold: the same operations in the same order as the CPU, so the
// results are bit-identical whatever the grid shape. On the device every operation is an explicit
// _rn intrinsic (no contraction, no fast math); on the host the build has -ffp-contract=off.
#include <cstdint>

#if defined(__CUDACC__)
#define VQX_SPEED_HD __host__ __device__ __forceinline__
#else
#include <cmath>
#define VQX_SPEED_HD inline
#endif

namespace vqx::speed::cuda_twin {

inline constexpr uint32_t kMaxAntialiasTaps = 64;  // ks <= 4: at most 37 taps (speed.md 6.2)
inline constexpr uint32_t kMaxMeanTaps = 16;       // ks <= 4: at most 9 taps
inline constexpr uint32_t kMatrixEntries = 625;    // 25 x 25
inline constexpr uint32_t kPairs = 325;            // q >= q' pairs of the symmetric K

enum SourceMode : uint32_t { kIdentity = 0, kBilinear = 1, kNearest = 2 };

// Everything the kernels need about one geometry; trivially copyable (a kernel argument).
struct KernelParams {
  uint32_t w, h;    // chroma plane read (floor-sized, speed.md 3)
  uint32_t sw, sh;  // scaled size
  uint32_t ow, oh;  // decimated size
  uint32_t tw, th;  // truncated size (the part of E that is kept)
  uint32_t mw, mh, n;
  uint32_t mode;              // SourceMode
  uint32_t bytes_per_sample;  // 1 or 2
  uint32_t bit_depth;
  float divisor;  // 2^(bpc-8), for > 8 bit
  uint32_t antialias_n, mean_n;
  float antialias[kMaxAntialiasTaps];
  float mean[kMaxMeanTaps];
  uint64_t plane_offset[2];  // bytes from the frame start, planes 1 and 2
  uint32_t plane_stride[2];  // samples per row of the picture's planes 1 and 2
  // Prescale tables (device pointers in the kernels, host pointers in host tests).
  const uint32_t* bx_i1;
  const uint32_t* bx_i2;
  const float* bx_frac;
  const uint32_t* by_i1;
  const uint32_t* by_i2;
  const float* by_frac;
  const uint32_t* nx;
  const uint32_t* ny;
};

// --- single IEEE operations -----------------------------------------------------------------

VQX_SPEED_HD float add32(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
VQX_SPEED_HD float sub32(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
VQX_SPEED_HD float mul32(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
VQX_SPEED_HD float div32(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
VQX_SPEED_HD double add64(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
VQX_SPEED_HD double sub64(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
VQX_SPEED_HD double mul64(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
VQX_SPEED_HD double div64(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}
// fma64(a, b, c) = a*b + c rounded once (std::fma on the CPU: the same correctly rounded value).
VQX_SPEED_HD double fma64(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}
VQX_SPEED_HD float narrow32(double v) {
#if defined(__CUDA_ARCH__)
  return __double2float_rn(v);
#else
  return float(v);
#endif
}

// Mirror without repeating the edge sample (speed.md 6.4; speed_preprocess.h mirror_index).
VQX_SPEED_HD int64_t mirror(int64_t t, int64_t n) {
  if (t < 0) return -t;
  if (t >= n) return 2 * n - 2 - t;
  return t;
}

// --- section 3: one converted source sample (plane index 0 = U, 1 = V) ----------------------

VQX_SPEED_HD float source_sample(const KernelParams& p, const uint8_t* frame, uint32_t plane,
                                 uint32_t y, uint32_t x) {
  const uint8_t* base = frame + p.plane_offset[plane];
  const uint64_t at = uint64_t(y) * p.plane_stride[plane] + x;
  if (p.bytes_per_sample == 1) return add32(float(base[at]), -128.0f);  // exact (speed.md 3)
  const uint16_t v = reinterpret_cast<const uint16_t*>(base)[at];
  return add32(div32(float(v), p.divisor), -128.0f);  // exact: power-of-two divisor
}

// --- section 5: one sample of the (possibly) prescaled image --------------------------------

VQX_SPEED_HD float scaled_sample(const KernelParams& p, const uint8_t* frame, uint32_t plane,
                                 uint32_t y, uint32_t x) {
  if (p.mode == kIdentity) return source_sample(p, frame, plane, y, x);
  if (p.mode == kNearest) return source_sample(p, frame, plane, p.ny[y], p.nx[x]);
  // Bilinear (speed.md 5.2; speed_preprocess.cpp bilinear_row): the same f32 products and sums
  // in the same order, the first term not added to +0.
  const float dy = p.by_frac[y];
  const uint32_t y1 = p.by_i1[y], y2 = p.by_i2[y];
  const float dx = p.bx_frac[x];
  const uint32_t x1 = p.bx_i1[x], x2 = p.bx_i2[x];
  const float a = sub32(1.0f, dy);
  const float ax = sub32(1.0f, dx);
  float v = mul32(mul32(a, ax), source_sample(p, frame, plane, y1, x1));
  v = add32(v, mul32(mul32(a, dx), source_sample(p, frame, plane, y1, x2)));
  v = add32(v, mul32(mul32(dy, ax), source_sample(p, frame, plane, y2, x1)));
  v = add32(v, mul32(mul32(dy, dx), source_sample(p, frame, plane, y2, x2)));
  return v;
}

// --- sections 6.4 and 7.3: D[i][j] = A[16 i][16 j] -------------------------------------------
// The horizontal fold at column 16 j over the vertical folds at row 16 i, each from +0 over the
// taps in order (the CPU's convolve(), vertical pass first, T kept in f32).
VQX_SPEED_HD float decimated_sample(const KernelParams& p, const uint8_t* frame, uint32_t plane,
                                    uint32_t i, uint32_t j) {
  const int64_t r = int64_t(p.antialias_n - 1) / 2;
  const int64_t y0 = int64_t(i) * 16, x0 = int64_t(j) * 16;
  float acc = 0.0f;
  for (uint32_t k = 0; k < p.antialias_n; ++k) {
    const uint32_t x = uint32_t(mirror(x0 - r + int64_t(k), p.sw));
    float v = 0.0f;
    for (uint32_t kk = 0; kk < p.antialias_n; ++kk) {
      const uint32_t y = uint32_t(mirror(y0 - r + int64_t(kk), p.sh));
      v = add32(v, mul32(p.antialias[kk], scaled_sample(p, frame, plane, y, x)));
    }
    acc = add32(acc, mul32(p.antialias[k], v));
  }
  return acc;
}

// --- sections 7.4-7.5: E[i][j] = D[i][j] - G[i][j], G = conv(D, mean taps) on ow x oh ---------
// `d` is one image's D, ow x oh, tight rows.
VQX_SPEED_HD float residual_sample(const KernelParams& p, const float* d, uint32_t i, uint32_t j) {
  const int64_t r = int64_t(p.mean_n - 1) / 2;
  float acc = 0.0f;
  for (uint32_t k = 0; k < p.mean_n; ++k) {
    const uint32_t x = uint32_t(mirror(int64_t(j) - r + int64_t(k), p.ow));
    float t = 0.0f;
    for (uint32_t kk = 0; kk < p.mean_n; ++kk) {
      const uint32_t y = uint32_t(mirror(int64_t(i) - r + int64_t(kk), p.oh));
      t = add32(t, mul32(p.mean[kk], d[size_t(y) * p.ow + x]));
    }
    acc = add32(acc, mul32(p.mean[k], t));
  }
  return sub32(d[size_t(i) * p.ow + j], acc);
}

// --- section 8.2: mu_q -----------------------------------------------------------------------
// `e` is one image's E truncated to tw x th, tight rows (stride tw).
VQX_SPEED_HD float offset_mean(const KernelParams& p, const float* e, uint32_t q) {
  const uint32_t oy = q / 5, ox = q % 5;
  float acc = 0.0f;
  for (uint32_t i = 0; i < p.mh; ++i) {
    const float* row = e + size_t(oy + i) * p.tw + ox;
    for (uint32_t j = 0; j < p.mw; ++j) acc = add32(acc, row[j]);
  }
  return div32(acc, float(p.n));  // (f32)N is exact: N < 2^24
}

// Pair index 0..324 -> (q, q') with q' <= q, q ascending then q' ascending.
VQX_SPEED_HD void pair_of(uint32_t index, uint32_t& q, uint32_t& qp) {
  q = 0;
  while (index >= q + 1) {
    index -= q + 1;
    ++q;
  }
  qp = index;
}

// --- section 8.3: K[q][q'] with the AVX2 grouping (speed_covariance.cpp covariance_plain) ----
VQX_SPEED_HD float covariance_entry(const KernelParams& p, const float* e, const float* mu,
                                    uint32_t q, uint32_t qp) {
  const uint32_t ay = q / 5, ax = q % 5, by = qp / 5, bx = qp % 5;
  const double ma = double(mu[q]), mb = double(mu[qp]);
  double lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  double tail = 0.0;
  for (uint32_t i = 0; i < p.mh; ++i) {
    const float* ra = e + size_t(ay + i) * p.tw + ax;
    const float* rb = e + size_t(by + i) * p.tw + bx;
    uint32_t j = 0;
    for (; j + 8 <= p.mw; j += 8)
      for (int l = 0; l < 8; ++l)
        lane[l] = fma64(sub64(double(ra[j + l]), ma), sub64(double(rb[j + l]), mb), lane[l]);
    if (j + 4 <= p.mw) {
      for (int l = 0; l < 4; ++l)
        lane[l] = fma64(sub64(double(ra[j + l]), ma), sub64(double(rb[j + l]), mb), lane[l]);
      j += 4;
    }
    for (; j < p.mw; ++j)  // unfused tail
      tail = add64(tail, mul64(sub64(double(ra[j]), ma), sub64(double(rb[j]), mb)));
  }
  const double sum =
      add64(add64(add64(add64(add64(lane[0], lane[4]), add64(lane[1], lane[5])),
                        add64(lane[2], lane[6])),
                  add64(lane[3], lane[7])),
            tail);
  return narrow32(div64(sum, double(p.n)));
}

}  // namespace vqx::speed::cuda_twin
