// The plain twins of the integer VIF row kernels (shared/spec/vmaf.md 2.5, 2.7): the
// straightforward transcription of the spec, one pass per tap over whole rows, 64-bit lanes where
// the spec sums in uint64. Mirrored taps are added before the multiply (exact in the integer
// widths used, 2.8). Also the table builder: these entries first, then each level's overrides.
#include "metrics/integer_vif/vif_kernels.h"

#include <cstddef>
#include <vector>

#include "metrics/integer_vif/vif_rows.h"
#include "metrics/vmaf_common/mirror.h"

namespace vqx::integer_vif {
namespace {

using vmaf_common::mirror;
using vmaf_common::mirror_pad;

// Row buffers of one thread for rows of up to `width` samples. m1..q12 are padded by the largest
// filter radius on both sides; b11, b22, b12 hold uint32 or uint64 lanes (see vertical_pass).
struct PlainScratch {
  static constexpr size_t kPad = 8;
  uint32_t width = 0;
  std::vector<uint32_t> a1, a2, m1, m2, q11, q22, q12, mu1, mu2;
  std::vector<uint64_t> b11, b22, b12, x11, x22, x12;
  std::vector<int32_t> s1, s2, s12;

  void reserve(uint32_t w) {
    if (w <= width) return;
    width = w;
    const size_t n = w + 2 * kPad;
    for (auto* v : {&a1, &a2, &m1, &m2, &q11, &q22, &q12, &mu1, &mu2}) v->assign(n, 0);
    for (auto* v : {&b11, &b22, &b12, &x11, &x22, &x12}) v->assign(n, 0);
    for (auto* v : {&s1, &s2, &s12}) v->assign(n, 0);
  }
};

PlainScratch& thread_scratch(uint32_t w) {
  thread_local PlainScratch scratch;
  scratch.reserve(w);
  return scratch;
}

// Vertical pass of 2.5 for row i: m1, m2, q11, q22, q12 at [r, r + w) of the padded rows.
template <typename Wide, typename Sample>
void vertical_pass(const Sample* ref, const Sample* dis, uint32_t w, uint32_t h, int scale,
                   PlainScratch& s, uint32_t i, const VerticalRounding& rnd) {
  const int r = kFilterRadius[scale];
  const uint16_t* f = kFilter[scale];
  const unsigned sv = rnd.sv, sq = rnd.sq;
  const uint32_t cv = rnd.cv;
  const Wide cq = Wide(rnd.cq);
  uint32_t* __restrict a1 = s.a1.data();
  uint32_t* __restrict a2 = s.a2.data();
  Wide* __restrict b11 = reinterpret_cast<Wide*>(s.b11.data());
  Wide* __restrict b22 = reinterpret_cast<Wide*>(s.b22.data());
  Wide* __restrict b12 = reinterpret_cast<Wide*>(s.b12.data());
  {
    const Sample* __restrict pr = ref + size_t(i) * w;
    const Sample* __restrict pd = dis + size_t(i) * w;
    const uint32_t fc = f[r];
    for (uint32_t j = 0; j < w; ++j) {
      uint32_t x = pr[j], y = pd[j];
      a1[j] = fc * x;
      a2[j] = fc * y;
      b11[j] = Wide(fc) * (Wide(x) * x);
      b22[j] = Wide(fc) * (Wide(y) * y);
      b12[j] = Wide(fc) * (Wide(x) * y);
    }
  }
  for (int k = 0; k < r; ++k) {
    const Sample* __restrict rt = ref + size_t(mirror(int64_t(i) - r + k, h)) * w;
    const Sample* __restrict rb = ref + size_t(mirror(int64_t(i) + r - k, h)) * w;
    const Sample* __restrict dt = dis + size_t(mirror(int64_t(i) - r + k, h)) * w;
    const Sample* __restrict db = dis + size_t(mirror(int64_t(i) + r - k, h)) * w;
    const uint32_t fk = f[k];
    for (uint32_t j = 0; j < w; ++j) {
      uint32_t xt = rt[j], xb = rb[j], yt = dt[j], yb = db[j];
      a1[j] += fk * (xt + xb);
      a2[j] += fk * (yt + yb);
      b11[j] += Wide(fk) * (Wide(xt) * xt + Wide(xb) * xb);
      b22[j] += Wide(fk) * (Wide(yt) * yt + Wide(yb) * yb);
      b12[j] += Wide(fk) * (Wide(xt) * yt + Wide(xb) * yb);
    }
  }
  uint32_t* __restrict m1 = s.m1.data() + r;
  uint32_t* __restrict m2 = s.m2.data() + r;
  uint32_t* __restrict q11 = s.q11.data() + r;
  uint32_t* __restrict q22 = s.q22.data() + r;
  uint32_t* __restrict q12 = s.q12.data() + r;
  for (uint32_t j = 0; j < w; ++j) {
    m1[j] = (a1[j] + cv) >> sv;
    m2[j] = (a2[j] + cv) >> sv;
    q11[j] = uint32_t((b11[j] + cq) >> sq);
    q22[j] = uint32_t((b22[j] + cq) >> sq);
    q12[j] = uint32_t((b12[j] + cq) >> sq);
  }
  for (auto* p : {&s.m1, &s.m2, &s.q11, &s.q22, &s.q12}) mirror_pad(p->data(), w, r);
}

// Horizontal pass of 2.5 and the variances sigma1, sigma2 (clamped at 0), sigma12.
void horizontal_pass(uint32_t w, int scale, PlainScratch& s) {
  const int r = kFilterRadius[scale];
  const uint16_t* f = kFilter[scale];
  uint32_t* __restrict mu1 = s.mu1.data();
  uint32_t* __restrict mu2 = s.mu2.data();
  uint64_t* __restrict x11 = s.x11.data();
  uint64_t* __restrict x22 = s.x22.data();
  uint64_t* __restrict x12 = s.x12.data();
  const uint32_t* __restrict m1 = s.m1.data();
  const uint32_t* __restrict m2 = s.m2.data();
  const uint32_t* __restrict q11 = s.q11.data();
  const uint32_t* __restrict q22 = s.q22.data();
  const uint32_t* __restrict q12 = s.q12.data();
  {
    const uint32_t fc = f[r];
    for (uint32_t j = 0; j < w; ++j) {
      mu1[j] = fc * m1[j + r];
      mu2[j] = fc * m2[j + r];
      x11[j] = uint64_t(fc) * q11[j + r];
      x22[j] = uint64_t(fc) * q22[j + r];
      x12[j] = uint64_t(fc) * q12[j + r];
    }
  }
  for (int k = 0; k < r; ++k) {
    const uint32_t fk = f[k];
    const int o = 2 * r - k;
    for (uint32_t j = 0; j < w; ++j) {
      // Every partial sum is below the full sum, which fits (2.8).
      mu1[j] += fk * (m1[j + k] + m1[j + o]);
      mu2[j] += fk * (m2[j + k] + m2[j + o]);
      x11[j] += uint64_t(fk) * q11[j + k] + uint64_t(fk) * q11[j + o];
      x22[j] += uint64_t(fk) * q22[j + k] + uint64_t(fk) * q22[j + o];
      x12[j] += uint64_t(fk) * q12[j + k] + uint64_t(fk) * q12[j + o];
    }
  }
  for (uint32_t j = 0; j < w; ++j) {
    uint32_t u11 = uint32_t((uint64_t(mu1[j]) * mu1[j] + 0x80000000u) >> 32);
    uint32_t u22 = uint32_t((uint64_t(mu2[j]) * mu2[j] + 0x80000000u) >> 32);
    uint32_t u12 = uint32_t((uint64_t(mu1[j]) * mu2[j] + 0x80000000u) >> 32);
    uint32_t v11 = uint32_t((x11[j] + 32768) >> 16);
    uint32_t v22 = uint32_t((x22[j] + 32768) >> 16);
    uint32_t v12 = uint32_t((x12[j] + 32768) >> 16);
    s.s1[j] = int32_t(v11 - u11);  // 32-bit wrapping subtraction (2.5)
    int32_t t2 = int32_t(v22 - u22);
    s.s2[j] = t2 > 0 ? t2 : 0;
    s.s12[j] = int32_t(v12 - u12);
  }
}

// 2.5 step 3 over one row of variances.
void accumulate_row(const uint16_t* table, uint32_t w, const PlainScratch& s, double gain_limit,
                    VifAccumulators& acc) {
  for (uint32_t j = 0; j < w; ++j) {
    if (s.s1[j] >= kNoiseVariance) {
      log_pixel(table, s.s1[j], s.s2[j], s.s12[j], gain_limit, acc.num_log, acc.den_log);
    } else {
      acc.num_flat += s.s2[j];
      acc.den_flat += 1;
    }
  }
}

template <typename Sample>
VifAccumulators statistic_rows(const Sample* ref, const Sample* dis, uint32_t w, uint32_t h,
                               int scale, unsigned bpc, double gain_limit, uint32_t row_begin,
                               uint32_t row_end) {
  PlainScratch& s = thread_scratch(w);
  const VerticalRounding rnd = vertical_rounding(scale, bpc);
  VifAccumulators acc;
  for (uint32_t i = row_begin; i < row_end; ++i) {
    // 2.8: at 8-bit scale 0 every vertical sum fits 32 bits, so narrower lanes are exact.
    if (scale == 0 && bpc == 8)
      vertical_pass<uint32_t>(ref, dis, w, h, scale, s, i, rnd);
    else
      vertical_pass<uint64_t>(ref, dis, w, h, scale, s, i, rnd);
    horizontal_pass(w, scale, s);
    accumulate_row(log2_table(), w, s, gain_limit, acc);
  }
  return acc;
}

template <typename Sample>
void downsample_rows(const Sample* in, uint32_t w, uint32_t h, int from_scale, unsigned bpc,
                     uint16_t* out, uint32_t row_begin, uint32_t row_end) {
  PlainScratch& s = thread_scratch(w);
  const int next = from_scale + 1;
  const int r = kFilterRadius[next];
  const uint16_t* f = kFilter[next];
  const unsigned sh = from_scale == 0 ? bpc : 16;
  const uint32_t c = from_scale == 0 ? uint32_t{1} << (bpc - 1) : 32768u;
  const uint32_t out_w = w / 2;
  uint32_t* __restrict acc = s.a1.data();
  uint32_t* __restrict t = s.m1.data();
  for (uint32_t i = row_begin; i < row_end; ++i) {
    // Only even rows and columns survive the decimation (2.7 step 3), so only they are filtered.
    const int64_t ci = int64_t(2 * i);
    {
      const Sample* __restrict p = in + size_t(ci) * w;
      const uint32_t fc = f[r];
      for (uint32_t j = 0; j < w; ++j) acc[j] = fc * p[j];
    }
    for (int k = 0; k < r; ++k) {
      const Sample* __restrict pt = in + size_t(mirror(ci - r + k, h)) * w;
      const Sample* __restrict pb = in + size_t(mirror(ci + r - k, h)) * w;
      const uint32_t fk = f[k];
      for (uint32_t j = 0; j < w; ++j) acc[j] += fk * (uint32_t(pt[j]) + pb[j]);
    }
    for (uint32_t j = 0; j < w; ++j) t[r + j] = (acc[j] + c) >> sh;
    mirror_pad(t, w, r);
    uint16_t* __restrict o = out + size_t(i) * out_w;
    for (uint32_t j = 0; j < out_w; ++j) {
      uint32_t sum = f[r] * t[2 * j + r];
      for (int k = 0; k < r; ++k) sum += f[k] * (t[2 * j + k] + t[2 * j + 2 * r - k]);
      o[j] = uint16_t((sum + 32768) >> 16);
    }
  }
}

}  // namespace

VifKernels plain_vif_kernels() {
  VifKernels k;
  k.u8 = {statistic_rows<uint8_t>, downsample_rows<uint8_t>};
  k.u16 = {statistic_rows<uint16_t>, downsample_rows<uint16_t>};
  return k;
}

VifKernels make_vif_kernels(const CpuFeatures& cpu) {
  VifKernels k = plain_vif_kernels();
  if (cpu.avx2) install_avx2_kernels(k);
  if (cpu.avx512) install_avx512_kernels(k);
  if (cpu.avx512_vnni) install_avx512_vnni_kernels(k);
  return k;
}

const VifKernels& vif_kernels() {
  static const VifKernels kernels = make_vif_kernels(host_cpu_features());
  return kernels;
}

}  // namespace vqx::integer_vif
