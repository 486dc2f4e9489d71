// integer `adm` on CUDA (shared/spec/vmaf.md 3, 11; contract: bit-identical to the CPU).
//
// Per frame: a DWT kernel per scale (3.3 / 3.4, reference and distorted in one launch) and, per
// scale, one score kernel that does 3.5, 3.7, 3.8 and 3.9 at once. A block takes a 32 x 8 tile of
// the inner rectangle; it decouples the tile plus its one-sample ring (positions mapped by the
// 3.8 neighbour rule, which keeps them inside the extended rectangle where the CPU decouples) into
// shared memory, with the masking contribution m of both CSF passes (CSF of a for DLM, of r for
// AIM). Each thread then forms the DLM and AIM thresholds and masked values and the denominator
// term of its pixel. One warp is one tile row: it sums its row's nine values (den, DLM, AIM x h, v,
// d) and adds them with 64-bit integer atomics into that row's slot. A last kernel applies each
// row's rounding shift (part of the definition, 10.2) and sums the rows into the result slot.
// Integer sums are exact and associative, so the values are the CPU's whatever the tiling. Every
// step keeps the CPU's integer widths (int16 at scale 0) and its wrapping; the decoupling's f64
// steps are single IEEE operations in the CPU's order.
#include <array>
#include <cmath>

#include "engine/cuda/cuda_check.h"
#include "metrics/integer_adm/adm_math.h"
#include "metrics/integer_adm/adm_outputs.h"
#include "metrics/integer_adm/cuda/adm_cuda.h"
#include "metrics/integer_adm/integer_adm.h"
#include "metrics/vmaf_common/cuda/block_sum.cuh"
#include "metrics/vmaf_common/feature_name.h"
#include "metrics/vmaf_common/size_limits.h"

namespace vqx {
namespace {

using namespace integer_adm;
using vmaf_cuda::block_add;

constexpr int kBlockX = 32, kBlockY = 8;
constexpr int kQuantities = 9;  // den h v d, DLM h v d, AIM h v d

__constant__ int32_t kLo[4] = {15826, 27411, 7345, -4240};
__constant__ int32_t kHi[4] = {-4240, -7345, 27411, -15826};

// 3.3 index rule: whole-sample reflection at the start, half-sample reflection at the end.
__device__ __forceinline__ int dwt_index(int k, int n) {
  if (k < 0) return -k;
  if (k >= n) return 2 * n - 1 - k;
  return k;
}

// Band planes of one picture at one scale: a, then the detail bands h, v, d (Orientation + 1).
template <typename Coef>
struct BandPlanes {
  Coef* plane[4];
};

// 3.3: one output sample of each band per thread; blockIdx.z: reference (0) or distorted (1).
template <typename Sample>
__global__ void __launch_bounds__(kBlockX* kBlockY)
    adm_dwt0_kernel(const Sample* __restrict__ ref, const Sample* __restrict__ dis, int width,
                    int height, unsigned bpc, bool lowpass_only, BandPlanes<int16_t> out_ref,
                    BandPlanes<int16_t> out_dis, int w, int h) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= h || j >= w) return;
  const Sample* luma = blockIdx.z == 0 ? ref : dis;
  const BandPlanes<int16_t>& out = blockIdx.z == 0 ? out_ref : out_dis;
  const uint32_t rb = uint32_t{1} << (bpc - 1);
  const uint32_t offset = 46342u * rb;
  const Sample* row[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) row[k] = luma + size_t(dwt_index(2 * i - 1 + k, height)) * width;
  int32_t tl[4], th[4];
#pragma unroll
  for (int c = 0; c < 4; ++c) {
    const int col = dwt_index(2 * j - 1 + c, width);
    const uint32_t s0 = row[0][col], s1 = row[1][col], s2 = row[2][col], s3 = row[3][col];
    // int32 sums in uint32 arithmetic (wrap like upstream for 16-bit input).
    const int32_t vl = int32_t(uint32_t(kLo[0]) * s0 + uint32_t(kLo[1]) * s1 +
                               uint32_t(kLo[2]) * s2 + uint32_t(kLo[3]) * s3 - offset);
    const int32_t vh = int32_t(uint32_t(kHi[0]) * s0 + uint32_t(kHi[1]) * s1 +
                               uint32_t(kHi[2]) * s2 + uint32_t(kHi[3]) * s3);
    tl[c] = int16_t((vl + int32_t(rb)) >> bpc);
    th[c] = int16_t((vh + int32_t(rb)) >> bpc);
  }
  const size_t at = size_t(i) * w + j;
  out.plane[0][at] =
      int16_t((kLo[0] * tl[0] + kLo[1] * tl[1] + kLo[2] * tl[2] + kLo[3] * tl[3] + 32768) >> 16);
  if (lowpass_only) return;
  out.plane[1 + kV][at] =
      int16_t((kHi[0] * tl[0] + kHi[1] * tl[1] + kHi[2] * tl[2] + kHi[3] * tl[3] + 32768) >> 16);
  out.plane[1 + kH][at] =
      int16_t((kLo[0] * th[0] + kLo[1] * th[1] + kLo[2] * th[2] + kLo[3] * th[3] + 32768) >> 16);
  out.plane[1 + kD][at] =
      int16_t((kHi[0] * th[0] + kHi[1] * th[1] + kHi[2] * th[2] + kHi[3] * th[3] + 32768) >> 16);
}

struct DwtRounding {
  long long cv, ch;
  int sv, sh;
};

// 3.4: scales 1-3 from the previous a band (int16_t at scale 1, int32_t after), int64 sums.
template <typename In>
__global__ void __launch_bounds__(kBlockX* kBlockY)
    adm_dwt_kernel(const In* __restrict__ ref, const In* __restrict__ dis, int in_w, int in_h,
                   DwtRounding rnd, BandPlanes<int32_t> out_ref, BandPlanes<int32_t> out_dis,
                   int w, int h) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= h || j >= w) return;
  const In* in = blockIdx.z == 0 ? ref : dis;
  const BandPlanes<int32_t>& out = blockIdx.z == 0 ? out_ref : out_dis;
  const In* row[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) row[k] = in + size_t(dwt_index(2 * i - 1 + k, in_h)) * in_w;
  long long tl[4], th[4];
#pragma unroll
  for (int c = 0; c < 4; ++c) {
    const int col = dwt_index(2 * j - 1 + c, in_w);
    const long long s0 = row[0][col], s1 = row[1][col], s2 = row[2][col], s3 = row[3][col];
    const long long vl = kLo[0] * s0 + kLo[1] * s1 + kLo[2] * s2 + kLo[3] * s3;
    const long long vh = kHi[0] * s0 + kHi[1] * s1 + kHi[2] * s2 + kHi[3] * s3;
    tl[c] = int32_t((vl + rnd.cv) >> rnd.sv);
    th[c] = int32_t((vh + rnd.cv) >> rnd.sv);
  }
  const size_t at = size_t(i) * w + j;
  auto lo = [&](const long long* v) {
    return int32_t((kLo[0] * v[0] + kLo[1] * v[1] + kLo[2] * v[2] + kLo[3] * v[3] + rnd.ch) >>
                   rnd.sh);
  };
  auto hi = [&](const long long* v) {
    return int32_t((kHi[0] * v[0] + kHi[1] * v[1] + kHi[2] * v[2] + kHi[3] * v[3] + rnd.ch) >>
                   rnd.sh);
  };
  out.plane[0][at] = lo(tl);
  out.plane[1 + kV][at] = hi(tl);
  out.plane[1 + kH][at] = lo(th);
  out.plane[1 + kD][at] = hi(th);
}

// Everything the score kernel of one scale needs, computed on the host with the CPU's formulas.
struct ScoreParams {
  int w, h;
  int left, top, right, bottom;          // inner rectangle
  int d1_left, d1_top, d1_right, d1_bottom;  // D1 block (empty unless scale 0 with SIMD compat)
  double gain_limit, cos1sq;
  uint32_t fixed[3];                     // h, v, d
  int z[3];
  long long zround[3];
  int den_q, den_zc;                     // scales 1-3 denominator
  long long den_zround;
  unsigned long long* rows;              // [h][kQuantities] of this scale
};

// Division table of 3.5 on the fly: DIV[32768 + q] = sign(q) trunc(2^30 / |q|), |q| <= 32768.
__device__ __forceinline__ long long div_lookup(int32_t q) {
  return q > 0 ? (long long)((1u << 30) / uint32_t(q)) : -(long long)((1u << 30) / uint32_t(-q));
}

__device__ __forceinline__ long long clamp_ratio(long long k) {
  return k < 0 ? 0 : (k > 32768 ? 32768 : k);
}

// 3.5 at one position: restored r and additive a of the three orientations (Coef-wrapped).
template <typename Coef, bool kScale0>
__device__ __forceinline__ void decouple(const BandPlanes<const Coef>& ref,
                                         const BandPlanes<const Coef>& dis, size_t at,
                                         double gain_limit, double cos1sq, int32_t r[3],
                                         int32_t a[3]) {
  int32_t o[3], t[3];
#pragma unroll
  for (int b = 0; b < 3; ++b) {
    o[b] = ref.plane[1 + b][at];
    t[b] = dis.plane[1 + b][at];
  }
  const long long oh = o[kH], ov = o[kV], th = t[kH], tv = t[kV];
  const long long dp = oh * th + ov * tv;
  const long long om = oh * oh + ov * ov;
  const long long tm = th * th + tv * tv;
  // int64 -> f32 first, then f64 (3.5 step 1).
  const double x = __ddiv_rn(double(__ll2float_rn(dp)), 4096.0);
  const bool flag =
      x >= 0 && __dmul_rn(x, x) >= __dmul_rn(__dmul_rn(cos1sq, __ddiv_rn(double(__ll2float_rn(om)), 4096.0)),
                                           __ddiv_rn(double(__ll2float_rn(tm)), 4096.0));
#pragma unroll
  for (int b = 0; b < 3; ++b) {
    long long k;
    if (o[b] == 0) {
      k = 32768;
    } else if (kScale0) {
      k = clamp_ratio((div_lookup(o[b]) * t[b] + 16384) >> 15);
    } else {
      const uint32_t abs_o = o[b] < 0 ? 0u - uint32_t(o[b]) : uint32_t(o[b]);
      uint32_t m = abs_o;
      int e = 0;
      if (abs_o >= 32768) {
        e = 17 - __clz(abs_o);
        m = (abs_o + (1u << (e - 1))) >> e;  // may equal 32768
      }
      const long long sign = o[b] < 0 ? -1 : 1;
      k = clamp_ratio(((div_lookup(int32_t(m)) * t[b]) * sign + (1ll << (14 + e))) >> (15 + e));
    }
    Coef rb = Coef((k * o[b] + 16384) >> 15);
    if (flag && k > 0) {
      const double q = __dmul_rn(double(rb), gain_limit);
      const double tt = double(t[b]);
      if (o[b] > 0) rb = Coef((long long)(tt < q ? tt : q));        // std::min, trunc
      else if (o[b] < 0) rb = Coef((long long)(q < tt ? tt : q));   // std::max, trunc
    }
    r[b] = rb;
    a[b] = Coef(t[b] - rb);
  }
}

// 3.7: the CSF-weighted value c of band value s and orientation b.
template <typename Coef, bool kScale0>
__device__ __forceinline__ int32_t csf_c(int32_t s, uint32_t fixed, int b) {
  if (kScale0) {
    const int shift = b == kD ? 17 : 15;
    const uint32_t round = b == kD ? 65535u : 16384u;  // 65535, not 65536 (10.2)
    return int16_t(int32_t(fixed * uint32_t(s) + round) >> shift);
  }
  return int32_t(((long long)fixed * s + (1ll << 27)) >> 28);
}
// 3.7: the masking contribution m of c.
template <typename Coef, bool kScale0>
__device__ __forceinline__ int32_t csf_m(int32_t c) {
  if (kScale0) return int16_t((4369 * abs(c) + 2048) >> 12);
  return Coef(int32_t((143165577ll * llabs((long long)c) - (1ll << 31)) >> 32));  // -2^31 (10.2)
}
// 3.8: the centre term of c at (i, j).
template <bool kScale0>
__device__ __forceinline__ int32_t centre(int32_t c, bool d1) {
  if (kScale0) {
    const int32_t full = (8738 * abs(c) + 2048) >> 12;
    return d1 ? full : int32_t(int16_t(full));
  }
  return int32_t((286331153ll * llabs((long long)c) - (1ll << 31)) >> 32);
}
// 3.8: the masked value of x against threshold thr.
template <bool kScale0>
__device__ __forceinline__ long long masked(int32_t xv, int32_t thr, const ScoreParams& p, int b) {
  if (kScale0) {
    const int u = b == kD ? 12 : 10;
    int32_t t = int32_t(uint32_t(xv) * p.fixed[b]);  // int32 product, wrapping
    t = int32_t(uint32_t(abs(t)) - (uint32_t(thr) << u));
    t = t > 0 ? t : 0;
    const int sh = b == kD ? 30 : 29;
    const int32_t xs = int32_t(((long long)t * t + (1ll << (sh - 1))) >> sh);
    return ((long long)xs * t + p.zround[b]) >> p.z[b];
  }
  int32_t t = int32_t(((long long)xv * p.fixed[b] + (1ll << 27)) >> 28);
  t = int32_t(uint32_t(abs(t)) - uint32_t(thr));
  t = t > 0 ? t : 0;
  const int32_t xs = int32_t(((long long)t * t + (1ll << 29)) >> 30);
  return ((long long)xs * t + p.zround[b]) >> p.z[b];
}

constexpr int kTileW = kBlockX, kTileH = kBlockY;
constexpr int kRingW = kTileW + 2, kRingH = kTileH + 2;

template <typename Coef, bool kScale0>
__global__ void __launch_bounds__(kBlockX* kBlockY)
    adm_score_kernel(BandPlanes<const Coef> ref, BandPlanes<const Coef> dis, ScoreParams p) {
  // Per ring position: r, a, m(CSF(a)) for DLM, m(CSF(r)) for AIM; three orientations each.
  __shared__ int32_t s_r[3][kRingH][kRingW], s_a[3][kRingH][kRingW];
  __shared__ int32_t s_mdlm[3][kRingH][kRingW], s_maim[3][kRingH][kRingW];
  const int x0 = p.left + blockIdx.x * kTileW, y0 = p.top + blockIdx.y * kTileH;
  const int tid = threadIdx.y * kBlockX + threadIdx.x;
  for (int idx = tid; idx < kRingH * kRingW; idx += kBlockX * kBlockY) {
    const int pr = idx / kRingW, pc = idx % kRingW;
    // 3.8 neighbour rule: -1 -> 1, n -> n-1 (positions past that are unused; clamped).
    int i = y0 - 1 + pr, j = x0 - 1 + pc;
    i = i < 0 ? 1 : (i >= p.h ? p.h - 1 : i);
    j = j < 0 ? 1 : (j >= p.w ? p.w - 1 : j);
    int32_t r[3], a[3];
    decouple<Coef, kScale0>(ref, dis, size_t(i) * p.w + j, p.gain_limit, p.cos1sq, r, a);
#pragma unroll
    for (int b = 0; b < 3; ++b) {
      s_r[b][pr][pc] = r[b];
      s_a[b][pr][pc] = a[b];
      s_mdlm[b][pr][pc] = csf_m<Coef, kScale0>(csf_c<Coef, kScale0>(a[b], p.fixed[b], b));
      s_maim[b][pr][pc] = csf_m<Coef, kScale0>(csf_c<Coef, kScale0>(r[b], p.fixed[b], b));
    }
  }
  __syncthreads();
  const int i = y0 + threadIdx.y, j = x0 + threadIdx.x;
  const int pr = threadIdx.y + 1, pc = threadIdx.x + 1;
  unsigned long long v[kQuantities] = {};
  if (i < p.bottom && j < p.right) {
    const bool d1 = i >= p.d1_top && i < p.d1_bottom && j >= p.d1_left && j < p.d1_right;
    int32_t thr_dlm = 0, thr_aim = 0;
#pragma unroll
    for (int b = 0; b < 3; ++b) {
      int32_t sum_dlm = 0, sum_aim = 0;
#pragma unroll
      for (int di = -1; di <= 1; ++di)
#pragma unroll
        for (int dj = -1; dj <= 1; ++dj) {
          if (di == 0 && dj == 0) continue;
          sum_dlm += s_mdlm[b][pr + di][pc + dj];
          sum_aim += s_maim[b][pr + di][pc + dj];
        }
      thr_dlm += sum_dlm + centre<kScale0>(csf_c<Coef, kScale0>(s_a[b][pr][pc], p.fixed[b], b), d1);
      thr_aim += sum_aim + centre<kScale0>(csf_c<Coef, kScale0>(s_r[b][pr][pc], p.fixed[b], b), d1);
    }
    const size_t at = size_t(i) * p.w + j;
#pragma unroll
    for (int b = 0; b < 3; ++b) {
      // 3.9 denominator term of the reference band.
      const int32_t o = ref.plane[1 + b][at];
      if (kScale0) {
        const unsigned long long a = uint16_t(abs(o));
        v[b] = a * a * a;
      } else {
        const unsigned long long a = (unsigned long long)llabs((long long)o);
        v[b] = ((((a * a + (1ull << p.den_q)) >> p.den_q) * a) + (unsigned long long)p.den_zround) >>
               p.den_zc;
      }
      v[3 + b] = (unsigned long long)masked<kScale0>(s_r[b][pr][pc], thr_dlm, p, b);
      v[6 + b] = (unsigned long long)masked<kScale0>(s_a[b][pr][pc], thr_aim, p, b);
    }
  }
  // One warp per tile row: the row's partial sums, one atomic each.
#pragma unroll
  for (int q = 0; q < kQuantities; ++q)
    for (int shift = 16; shift > 0; shift >>= 1) v[q] += __shfl_down_sync(0xffffffffu, v[q], shift);
  if (threadIdx.x == 0 && i < p.bottom)
#pragma unroll
    for (int q = 0; q < kQuantities; ++q)
      if (v[q] != 0) atomicAdd(p.rows + size_t(i) * kQuantities + q, v[q]);
}

// Per scale: rows [top, bottom) of the row sums, each shifted with its rounding (10.2), summed.
struct RowRounding {
  unsigned long long* rows;
  int top, bottom;
  unsigned long long den_round;
  int den_shift;
  long long cm_round;
  int cm_shift;
};
struct FinishParams {
  RowRounding scale[kScales];
};

__global__ void __launch_bounds__(256) adm_rows_kernel(FinishParams fp, unsigned long long* out) {
  const RowRounding& p = fp.scale[blockIdx.x];
  unsigned long long v[kQuantities] = {};
  for (int i = p.top + int(threadIdx.x); i < p.bottom; i += blockDim.x) {
    const unsigned long long* row = p.rows + size_t(i) * kQuantities;
#pragma unroll
    for (int b = 0; b < 3; ++b) {
      v[b] += (row[b] + p.den_round) >> p.den_shift;
      v[3 + b] += (unsigned long long)(((long long)row[3 + b] + p.cm_round) >> p.cm_shift);
      v[6 + b] += (unsigned long long)(((long long)row[6 + b] + p.cm_round) >> p.cm_shift);
    }
  }
  block_add<kQuantities>(v, out + blockIdx.x * kQuantities);
}

struct AdmResult {
  unsigned long long sums[kScales][kQuantities];
};

SimdCompat parse_compat(const std::string& s) {
  if (s == "none") return SimdCompat::kNone;
  if (s == "avx512") return SimdCompat::kAvx512;
  return SimdCompat::kAvx2;
}

inline int ceil_log2(double v) { return int(std::ceil(std::log2(v))); }

class IntegerAdmCuda final : public CudaMetric {
 public:
  explicit IntegerAdmCuda(const OptionValues& o)
      : names_(integer_adm_descriptor().make_cpu(o)->feature_names()),  // validates as the CPU
        gain_limit_(vmaf_common::normalise_double_option(o.get_double("adm_enhn_gain_limit"))),
        noise_weight_(vmaf_common::normalise_double_option(o.get_double("adm_noise_weight"))),
        dlm_weight_(vmaf_common::normalise_double_option(o.get_double("adm_dlm_weight"))),
        min_val_(vmaf_common::normalise_double_option(o.get_double("adm_min_val"))),
        skip_scale0_(o.get_bool("adm_skip_scale0")),
        skip_aim_(o.get_bool("adm_skip_aim")),
        debug_(o.get_bool("debug")),
        compat_(parse_compat(o.get_string("adm_simd_compat"))) {
    const double nvd = vmaf_common::normalise_double_option(o.get_double("adm_norm_view_dist"));
    weights_ = adm_weights(int(o.get_int("adm_csf_mode")), nvd, int(o.get_int("adm_ref_display_height")));
  }

  std::vector<std::string> feature_names() const override { return names_; }
  std::vector<std::string> stage_names() const override {
    return {"clear", "dwt0", "score0", "dwt1", "score1", "dwt2", "score2", "dwt3", "score3",
            "row sums"};
  }

  void init(const CudaMetricContext& context) override {
    vmaf_common::require_min_size(context.format, "adm");
    format_ = context.format;
    auto& device = *context.device;
    uint32_t w = format_.width, h = format_.height;
    size_t rows = 0;
    for (int s = 0; s < kScales; ++s) {
      w = (w + 1) / 2, h = (h + 1) / 2;
      width_[s] = w, height_[s] = h;
      rects_[s] = adm_rects(w, h);
      row_offset_[s] = rows;
      rows += h;
      const size_t coef = s == 0 ? sizeof(int16_t) : sizeof(int32_t);
      for (auto* b : {&ref_[s], &dis_[s]})
        *b = cuda::DeviceBuffer(device, 4 * size_t(w) * h * coef, "adm bands");
    }
    rows_bytes_ = rows * kQuantities * sizeof(unsigned long long);
    rows_ = cuda::DeviceBuffer(device, rows_bytes_, "adm row sums");
    const double cos1sq = double(float(std::cos(M_PI / 180.0) * std::cos(M_PI / 180.0)));
    for (int s = 0; s < kScales; ++s) {
      ScoreParams& p = params_[s];
      const AdmRects& r = rects_[s];
      p = ScoreParams{};
      p.w = int(width_[s]), p.h = int(height_[s]);
      p.left = r.inner.left, p.top = r.inner.top, p.right = r.inner.right, p.bottom = r.inner.bottom;
      p.gain_limit = gain_limit_, p.cos1sq = cos1sq;
      p.fixed[kH] = p.fixed[kV] = weights_[s].fixed_hv;
      p.fixed[kD] = weights_[s].fixed_d;
      // 3.8 shifts, as the CPU's cm_rows computes them.
      if (s == 0) {
        p.z[kH] = p.z[kV] = int(std::ceil(std::log2(double(p.w)) - 4));
        p.z[kD] = int(std::ceil(std::log2(double(p.w)) - 3));
      } else {
        p.z[kH] = p.z[kV] = p.z[kD] = ceil_log2(p.w);
      }
      for (int b = 0; b < 3; ++b) p.zround[b] = int64_t(uint32_t(std::pow(2, p.z[b] - 1)));
      if (s == 0 && compat_ != SimdCompat::kNone && r.inner.left > 0 && r.inner.right <= p.w - 1) {
        const int lanes = compat_ == SimdCompat::kAvx2 ? 6 : 14;
        p.d1_top = std::max(r.inner.top, 1);
        p.d1_bottom = std::min(r.inner.bottom, p.h - 1);
        p.d1_left = std::max(r.inner.left, 1);
        const int e = std::min(r.inner.right, p.w - 1);
        p.d1_right = e - ((e - p.d1_left) % lanes);
      }
      static constexpr int kQ[4] = {0, 31, 30, 31};
      p.den_q = kQ[s];
      p.den_zc = s == 0 ? 0 : ceil_log2(r.inner.right - r.inner.left);
      p.den_zround = s == 0 ? 0 : (1ll << (p.den_zc - 1));
      p.rows = rows_.get<unsigned long long>() + row_offset_[s] * kQuantities;

      RowRounding& f = finish_.scale[s];
      f.rows = p.rows, f.top = r.inner.top, f.bottom = r.inner.bottom;
      if (s == 0) {
        const int sa = std::max(0, int(std::ceil(std::log2(double(r.count)) - 20)));
        f.den_shift = sa, f.den_round = sa > 0 ? 1ull << (sa - 1) : 0;
      } else {
        const int yc = ceil_log2(r.inner.bottom - r.inner.top);
        f.den_shift = yc, f.den_round = 1ull << (yc - 1);
      }
      const int y = ceil_log2(p.h);
      f.cm_shift = y, f.cm_round = 1ll << (y - 1);
      if (s == 0 && skip_scale0_) f.bottom = f.top;  // scale 0 is not scored (3.12)
    }
  }

  size_t result_bytes() const override { return sizeof(AdmResult); }

  void enqueue(const CudaFrame& frame, uint64_t, cudaStream_t stream, void* result,
               StageMarks& marks) override {
    marks.stage(stream, 0);
    cuda::check(cudaMemsetAsync(result, 0, sizeof(AdmResult), stream), "adm: clear");
    cuda::check(cudaMemsetAsync(rows_.get(), 0, rows_bytes_, stream), "adm: clear rows");
    marks.stage(stream, 1);
    const dim3 block(kBlockX, kBlockY);
    {
      const int w = int(width_[0]), h = int(height_[0]);
      const dim3 grid((w + kBlockX - 1) / kBlockX, (h + kBlockY - 1) / kBlockY, 2);
      auto r = planes<int16_t>(ref_[0], 0), d = planes<int16_t>(dis_[0], 0);
      if (format_.bit_depth == 8)
        adm_dwt0_kernel<uint8_t><<<grid, block, 0, stream>>>(
            frame.ref, frame.dis, int(format_.width), int(format_.height), 8, skip_scale0_, r, d,
            w, h);
      else
        adm_dwt0_kernel<uint16_t><<<grid, block, 0, stream>>>(
            reinterpret_cast<const uint16_t*>(frame.ref),
            reinterpret_cast<const uint16_t*>(frame.dis), int(format_.width),
            int(format_.height), format_.bit_depth, skip_scale0_, r, d, w, h);
      cuda::check_launch("adm: dwt0 kernel");
    }
    marks.stage(stream, 2);
    if (!skip_scale0_) score<int16_t, true>(0, stream);
    static constexpr DwtRounding kRounding[4] = {
        {0, 0, 0, 0}, {0, 16384, 0, 15}, {32768, 32768, 16, 16}, {32768, 16384, 16, 15}};
    for (int s = 1; s < kScales; ++s) {
      marks.stage(stream, 1 + 2 * s);
      const int w = int(width_[s]), h = int(height_[s]);
      const dim3 grid((w + kBlockX - 1) / kBlockX, (h + kBlockY - 1) / kBlockY, 2);
      auto r = planes<int32_t>(ref_[s], s), d = planes<int32_t>(dis_[s], s);
      const int in_w = int(width_[s - 1]), in_h = int(height_[s - 1]);
      if (s == 1)
        adm_dwt_kernel<int16_t><<<grid, block, 0, stream>>>(
            ref_[0].get<const int16_t>(), dis_[0].get<const int16_t>(), in_w, in_h,
            kRounding[s], r, d, w, h);
      else
        adm_dwt_kernel<int32_t><<<grid, block, 0, stream>>>(
            ref_[s - 1].get<const int32_t>(), dis_[s - 1].get<const int32_t>(), in_w, in_h,
            kRounding[s], r, d, w, h);
      cuda::check_launch("adm: dwt kernel");
      marks.stage(stream, 2 + 2 * s);
      score<int32_t, false>(s, stream);
    }
    marks.stage(stream, 9);
    adm_rows_kernel<<<kScales, 256, 0, stream>>>(
        finish_, static_cast<AdmResult*>(result)->sums[0]);
    cuda::check_launch("adm: rows kernel");
  }

  void collect(const void* result, uint64_t frame, FeatureWriter& out) override {
    const auto& r = *static_cast<const AdmResult*>(result);
    std::array<AdmScaleValues, kScales> scales{};
    for (int s = 0; s < kScales; ++s) {
      if (s == 0 && skip_scale0_) {
        scales[0] = {0.0f, 1e-10f, 0.0f};  // 3.12
        continue;
      }
      std::array<uint64_t, 3> den{};
      std::array<int64_t, 3> dlm{}, aim{};
      for (int b = 0; b < 3; ++b) {
        den[b] = r.sums[s][b];
        dlm[b] = int64_t(r.sums[s][3 + b]);
        aim[b] = int64_t(r.sums[s][6 + b]);
      }
      AdmScaleValues& v = scales[s];
      v.den = adm_den_value(s, den, weights_[s], rects_[s], noise_weight_);
      v.num = adm_num_value(s, dlm, width_[s], height_[s], rects_[s].count, noise_weight_);
      if (!skip_aim_) v.aim = adm_num_value(s, aim, width_[s], height_[s], rects_[s].count, 0.0);
    }
    AdmFrameScores f = adm_combine(scales, format_.width, format_.height, dlm_weight_, min_val_);
    write_adm_outputs(out, frame, scales, f, debug_);
  }

 private:
  template <typename Coef>
  BandPlanes<Coef> planes(const cuda::DeviceBuffer& buffer, int s) const {
    BandPlanes<Coef> p;
    const size_t n = size_t(width_[s]) * height_[s];
    for (int k = 0; k < 4; ++k) p.plane[k] = buffer.get<Coef>() + k * n;
    return p;
  }

  template <typename Coef, bool kScale0>
  void score(int s, cudaStream_t stream) {
    const ScoreParams& p = params_[s];
    const dim3 grid((p.right - p.left + kTileW - 1) / kTileW,
                    (p.bottom - p.top + kTileH - 1) / kTileH);
    auto constant = [](BandPlanes<Coef> b) {
      BandPlanes<const Coef> c;
      for (int k = 0; k < 4; ++k) c.plane[k] = b.plane[k];
      return c;
    };
    adm_score_kernel<Coef, kScale0><<<grid, dim3(kBlockX, kBlockY), 0, stream>>>(
        constant(planes<Coef>(ref_[s], s)), constant(planes<Coef>(dis_[s], s)), p);
    cuda::check_launch("adm: score kernel");
  }

  std::vector<std::string> names_;
  double gain_limit_, noise_weight_, dlm_weight_, min_val_;
  bool skip_scale0_, skip_aim_, debug_;
  SimdCompat compat_;
  AdmWeights weights_{};
  PictureFormat format_;
  uint32_t width_[kScales] = {}, height_[kScales] = {};
  AdmRects rects_[kScales];
  size_t row_offset_[kScales] = {};
  size_t rows_bytes_ = 0;
  ScoreParams params_[kScales] = {};
  FinishParams finish_{};
  cuda::DeviceBuffer ref_[kScales], dis_[kScales], rows_;
};

}  // namespace

std::unique_ptr<CudaMetric> make_integer_adm_cuda(const OptionValues& options) {
  return std::make_unique<IntegerAdmCuda>(options);
}

}  // namespace vqx
