// integer `vif` on CUDA (shared/spec/vmaf.md 2, 11; contract in shared/spec/README.md: integer
// features bit-identical to the CPU). Per frame and scale: one statistic kernel (2.5 steps 1-3:
// vertical and horizontal Q16 filters in shared-memory tiles, the variances, the per-pixel log2
// and f64 terms) that adds NL, DL, NN, DN into the result slot with 64-bit integer atomics, and
// one downsampling kernel (2.7) for the next scale. Integer sums are exact and associative, so
// neither the tiling nor the order of the atomics can change them; the per-pixel f64 steps are
// single IEEE operations (__ddiv_rn, __dmul_rn, ...) in the CPU's order. The host turns the sums
// into num/den with the CPU's vif_scale_result and writes the CPU's outputs.
#include <array>

#include "engine/cuda/cuda_check.h"
#include "core/error.h"
#include "metrics/integer_vif/cuda/vif_cuda.h"
#include "metrics/integer_vif/integer_vif.h"
#include "metrics/integer_vif/vif_math.h"
#include "metrics/vmaf_common/cuda/block_sum.cuh"
#include "metrics/vmaf_common/feature_name.h"
#include "metrics/vmaf_common/size_limits.h"

namespace vqx {
namespace {

using namespace integer_vif;
using vmaf_cuda::block_add;
using vmaf_cuda::mirror_index;

constexpr int kBlockX = 32, kBlockY = 8;      // 256 threads
constexpr int kTileW = 32, kTileH = 32;       // statistic: outputs per block
constexpr int kDownTileW = 32, kDownTileH = 8;  // downsampling: outputs per block

struct Taps {
  uint32_t f[17];
};

// Rounding of the vertical pass (2.5 table): (sv, cv) for means, (sq, cq) for second moments.
struct VerticalRounding {
  unsigned sv, sq;
  uint32_t cv;
  unsigned long long cq;
};

VerticalRounding vertical_rounding(int scale, unsigned bpc) {
  if (scale > 0) return {16, 16, 32768u, 32768ull};
  unsigned sq = bpc == 8 ? 0 : 2 * (bpc - 8);
  return {bpc, sq, uint32_t{1} << (bpc - 1), bpc == 8 ? 0ull : 1ull << (sq - 1)};
}

__device__ __forceinline__ int lg32(const uint16_t* __restrict__ table, uint32_t x) {
  int e = 16 - __clz(x);
  return int(__ldg(table + (x >> e))) + 2048 * e;
}
__device__ __forceinline__ int lg64(const uint16_t* __restrict__ table, unsigned long long x) {
  int e = 48 - __clzll(x);
  return int(__ldg(table + (x >> e))) + 2048 * e;
}

constexpr int32_t kNoiseVariance = 131072;

// Four values of a shared row starting at a 16-byte aligned column, as one 128-bit load.
template <int N>
__device__ __forceinline__ void load_row(const uint32_t* row, uint32_t (&v)[N]) {
#pragma unroll
  for (int m = 0; m < N / 4; ++m) {
    const uint4 q = reinterpret_cast<const uint4*>(row)[m];
    v[4 * m] = q.x, v[4 * m + 1] = q.y, v[4 * m + 2] = q.z, v[4 * m + 3] = q.w;
  }
}

// 2.5 for one kTileW x kTileH block of outputs at scale with radius R. Samples are raw luma
// (uint8_t/uint16_t) at scale 0 and Q8 uint16_t above. Register blocking: in the vertical pass a
// thread walks four output rows of one column, in the horizontal pass it forms four adjacent
// outputs of one row from one run of 128-bit shared loads. Exact integer sums: their order is free.
template <typename Sample, int R>
__global__ void __launch_bounds__(kBlockX* kBlockY)
    vif_statistic_kernel(const Sample* __restrict__ ref, const Sample* __restrict__ dis, int w,
                         int h, Taps taps, VerticalRounding vr, double gain_limit,
                         const uint16_t* __restrict__ table, unsigned long long* acc) {
  // Columns of the tile plus its ring, rounded up to whole 128-bit loads (the extra columns are
  // filled like the others and never summed).
  constexpr int kRun = (4 + 2 * R + 3) / 4 * 4;  // values one thread reads per row
  constexpr int IW = kTileW - 4 + kRun, IH = kTileH + 2 * R;
  static_assert(IW % 4 == 0 && kTileH % 4 == 0 && kTileW * kTileH == 4 * kBlockX * kBlockY);
  __shared__ uint16_t sx[IH][IW], sy[IH][IW];
  __shared__ __align__(16) uint32_t vm1[kTileH][IW], vm2[kTileH][IW], vq11[kTileH][IW],
      vq22[kTileH][IW], vq12[kTileH][IW];
  const int x0 = blockIdx.x * kTileW, y0 = blockIdx.y * kTileH;
  const int tid = threadIdx.y * kBlockX + threadIdx.x;
  constexpr int kThreads = kBlockX * kBlockY;

  for (int idx = tid; idx < IH * IW; idx += kThreads) {
    const int r = idx / IW, c = idx % IW;
    const size_t at = size_t(mirror_index(y0 - R + r, h)) * w + mirror_index(x0 - R + c, w);
    sx[r][c] = ref[at];
    sy[r][c] = dis[at];
  }
  __syncthreads();

  // Vertical pass: output rows r0..r0+3 of column c from input rows r0..r0+3+2R.
  for (int idx = tid; idx < (kTileH / 4) * IW; idx += kThreads) {
    const int r0 = 4 * (idx / IW), c = idx % IW;
    uint32_t a1[4] = {}, a2[4] = {};
    unsigned long long b11[4] = {}, b22[4] = {}, b12[4] = {};
#pragma unroll
    for (int k = 0; k < 4 + 2 * R; ++k) {
      const uint32_t x = sx[r0 + k][c], y = sy[r0 + k][c];
      const uint32_t xx = x * x, yy = y * y, xy = x * y;  // < 2^32 for 16-bit samples
#pragma unroll
      for (int o = 0; o < 4; ++o) {
        const int t = k - o;
        if (t < 0 || t > 2 * R) continue;
        const uint32_t f = taps.f[t];
        a1[o] += f * x;
        a2[o] += f * y;
        b11[o] += (unsigned long long)f * xx;
        b22[o] += (unsigned long long)f * yy;
        b12[o] += (unsigned long long)f * xy;
      }
    }
#pragma unroll
    for (int o = 0; o < 4; ++o) {
      vm1[r0 + o][c] = (a1[o] + vr.cv) >> vr.sv;
      vm2[r0 + o][c] = (a2[o] + vr.cv) >> vr.sv;
      vq11[r0 + o][c] = uint32_t((b11[o] + vr.cq) >> vr.sq);
      vq22[r0 + o][c] = uint32_t((b22[o] + vr.cq) >> vr.sq);
      vq12[r0 + o][c] = uint32_t((b12[o] + vr.cq) >> vr.sq);
    }
  }
  __syncthreads();

  // Horizontal pass: outputs c0..c0+3 of row r.
  const int r = tid / (kTileW / 4), c0 = 4 * (tid % (kTileW / 4));
  uint32_t mu1[4] = {}, mu2[4] = {};
  unsigned long long x11[4] = {}, x22[4] = {}, x12[4] = {};
  {
    uint32_t v[kRun];
    load_row(&vm1[r][c0], v);
#pragma unroll
    for (int o = 0; o < 4; ++o)
#pragma unroll
      for (int k = 0; k <= 2 * R; ++k) mu1[o] += taps.f[k] * v[o + k];
    load_row(&vm2[r][c0], v);
#pragma unroll
    for (int o = 0; o < 4; ++o)
#pragma unroll
      for (int k = 0; k <= 2 * R; ++k) mu2[o] += taps.f[k] * v[o + k];
    load_row(&vq11[r][c0], v);
#pragma unroll
    for (int o = 0; o < 4; ++o)
#pragma unroll
      for (int k = 0; k <= 2 * R; ++k) x11[o] += (unsigned long long)taps.f[k] * v[o + k];
    load_row(&vq22[r][c0], v);
#pragma unroll
    for (int o = 0; o < 4; ++o)
#pragma unroll
      for (int k = 0; k <= 2 * R; ++k) x22[o] += (unsigned long long)taps.f[k] * v[o + k];
    load_row(&vq12[r][c0], v);
#pragma unroll
    for (int o = 0; o < 4; ++o)
#pragma unroll
      for (int k = 0; k <= 2 * R; ++k) x12[o] += (unsigned long long)taps.f[k] * v[o + k];
  }

  long long num_log = 0, den_log = 0, num_flat = 0, den_flat = 0;
  const double eps = 65536 * 1.0e-10;
#pragma unroll
  for (int o = 0; o < 4; ++o) {
    const int i = y0 + r, j = x0 + c0 + o;
    if (i >= h || j >= w) continue;
    const uint32_t u11 = uint32_t(((unsigned long long)mu1[o] * mu1[o] + 0x80000000ull) >> 32);
    const uint32_t u22 = uint32_t(((unsigned long long)mu2[o] * mu2[o] + 0x80000000ull) >> 32);
    const uint32_t u12 = uint32_t(((unsigned long long)mu1[o] * mu2[o] + 0x80000000ull) >> 32);
    const uint32_t v11 = uint32_t((x11[o] + 32768) >> 16);
    const uint32_t v22 = uint32_t((x22[o] + 32768) >> 16);
    const uint32_t v12 = uint32_t((x12[o] + 32768) >> 16);
    const int32_t sigma1 = int32_t(v11 - u11);  // 32-bit wrapping subtraction (2.5)
    const int32_t t2 = int32_t(v22 - u22);
    const int32_t sigma2 = t2 > 0 ? t2 : 0;
    const int32_t sigma12 = int32_t(v12 - u12);
    // 2.5 step 3, the CPU's accumulate_row operation by operation.
    if (sigma1 >= kNoiseVariance) {
      den_log += lg32(table, uint32_t(kNoiseVariance + sigma1)) - 2048 * 17;
      if (sigma12 > 0 && sigma2 > 0) {
        double g = __ddiv_rn(double(sigma12), __dadd_rn(double(sigma1), eps));
        int32_t sv = int32_t(__dsub_rn(double(sigma2), __dmul_rn(g, double(sigma12))));
        sv = sv > 0 ? sv : 0;
        g = g < gain_limit ? g : gain_limit;
        const uint32_t n1 = uint32_t(sv + kNoiseVariance);
        const long long n2 = (long long)(__dmul_rn(__dmul_rn(g, g), double(sigma1))) + n1;
        num_log += lg64(table, (unsigned long long)n2) - lg64(table, n1);
      }
    } else {
      num_flat += sigma2;
      den_flat += 1;
    }
  }
  unsigned long long sums[4] = {(unsigned long long)num_log, (unsigned long long)den_log,
                                (unsigned long long)num_flat, (unsigned long long)den_flat};
  block_add<4>(sums, acc);  // NL, DL, NN, DN as two's complement
}

// 2.7: filters `in` (w x h) with the next scale's taps (radius R) and keeps even rows and columns.
// blockIdx.z selects the reference (0) or the distorted (1) plane.
template <typename Sample, int R>
__global__ void __launch_bounds__(kBlockX* kBlockY)
    vif_downsample_kernel(const Sample* __restrict__ in_ref, const Sample* __restrict__ in_dis,
                          int w, int h, Taps taps, unsigned shift, uint32_t round,
                          uint16_t* __restrict__ out_ref, uint16_t* __restrict__ out_dis) {
  constexpr int TW = 2 * kDownTileW + 2 * R;
  __shared__ uint32_t t[kDownTileH][TW];
  const Sample* in = blockIdx.z == 0 ? in_ref : in_dis;
  uint16_t* out = blockIdx.z == 0 ? out_ref : out_dis;
  const int ow = w / 2, oh = h / 2;
  const int ox0 = blockIdx.x * kDownTileW, oy0 = blockIdx.y * kDownTileH;
  const int tid = threadIdx.y * kBlockX + threadIdx.x;
  for (int idx = tid; idx < kDownTileH * TW; idx += kBlockX * kBlockY) {
    const int r = idx / TW, c = idx % TW;
    const int ci = 2 * min(oy0 + r, oh - 1);
    const int col = mirror_index(2 * ox0 - R + c, w);
    uint32_t a = 0;
#pragma unroll
    for (int k = 0; k <= 2 * R; ++k)
      a += taps.f[k] * uint32_t(in[size_t(mirror_index(ci - R + k, h)) * w + col]);
    t[r][c] = (a + round) >> shift;
  }
  __syncthreads();
  const int oi = oy0 + threadIdx.y, oj = ox0 + threadIdx.x;
  if (oi >= oh || oj >= ow) return;
  uint32_t sum = 0;
#pragma unroll
  for (int k = 0; k <= 2 * R; ++k) sum += taps.f[k] * t[threadIdx.y][2 * threadIdx.x + k];
  out[size_t(oi) * ow + oj] = uint16_t((sum + 32768) >> 16);
}

struct VifResult {
  unsigned long long acc[kScales][4];  // NL, DL, NN, DN (two's complement) per scale
};

class IntegerVifCuda final : public CudaMetric {
 public:
  explicit IntegerVifCuda(const OptionValues& o)
      : names_(integer_vif_descriptor().make_cpu(o)->feature_names()),
        gain_limit_(vmaf_common::normalise_double_option(o.get_double("vif_enhn_gain_limit"))),
        skip_scale0_(o.get_bool("vif_skip_scale0")),
        debug_(o.get_bool("debug")) {}

  std::vector<std::string> feature_names() const override { return names_; }
  std::vector<std::string> stage_names() const override {
    return {"clear", "scale0", "downsample 0->1", "scale1", "downsample 1->2", "scale2",
            "downsample 2->3", "scale3"};
  }

  void init(const CudaMetricContext& context) override {
    vmaf_common::require_min_size(context.format, "vif");
    format_ = context.format;
    auto& device = *context.device;
    uint32_t w = format_.width, h = format_.height;
    for (int s = 1; s < kScales; ++s) {
      w /= 2, h /= 2;
      width_[s] = w, height_[s] = h;
      for (auto* b : {&ref_[s], &dis_[s]})
        *b = cuda::DeviceBuffer(device, size_t(w) * h * sizeof(uint16_t), "vif pyramid");
    }
    width_[0] = format_.width, height_[0] = format_.height;
    // The CPU's log2 table (2.4), shared, not recomputed.
    table_ = cuda::DeviceBuffer(device, 65536 * sizeof(uint16_t), "vif log2 table");
    cuda::copy_to_device_now(table_.get(), log2_table(), 65536 * sizeof(uint16_t),
                            "vif: log2 table upload");
    for (int s = 0; s < kScales; ++s)
      for (int k = 0; k < kFilterTaps[s]; ++k) taps_[s].f[k] = kFilter[s][k];
  }

  size_t result_bytes() const override { return sizeof(VifResult); }

  void enqueue(const CudaFrame& frame, uint64_t, cudaStream_t stream, void* result,
               StageMarks& marks) override {
    marks.stage(stream, 0);
    cuda::check(cudaMemsetAsync(result, 0, sizeof(VifResult), stream), "vif: clear");
    auto* r = static_cast<VifResult*>(result);
    if (format_.bit_depth == 8)
      run(reinterpret_cast<const uint8_t*>(frame.ref), reinterpret_cast<const uint8_t*>(frame.dis),
          stream, r, marks);
    else
      run(reinterpret_cast<const uint16_t*>(frame.ref),
          reinterpret_cast<const uint16_t*>(frame.dis), stream, r, marks);
  }

  void collect(const void* result, uint64_t frame, FeatureWriter& out) override {
    const auto& r = *static_cast<const VifResult*>(result);
    std::array<VifScaleResult, kScales> scales{};
    for (int s = 0; s < kScales; ++s) {
      if (s == 0 && skip_scale0_) continue;
      VifAccumulators acc;
      acc.num_log = int64_t(r.acc[s][0]);
      acc.den_log = int64_t(r.acc[s][1]);
      acc.num_flat = int64_t(r.acc[s][2]);
      acc.den_flat = int64_t(r.acc[s][3]);
      scales[s] = vif_scale_result(acc);
    }
    // The CPU twin's outputs (integer_vif.cpp extract), in the same order.
    for (int s = 0; s < kScales; ++s) {
      double score = (s == 0 && skip_scale0_) ? 0.0 : double(scales[s].num / scales[s].den);
      out.put(frame, s, score);
    }
    if (!debug_) return;
    double num = 0, den = 0;
    for (int s = skip_scale0_ ? 1 : 0; s < kScales; ++s) {
      num += double(scales[s].num);
      den += double(scales[s].den);
    }
    out.put(frame, 4, den == 0 ? 1.0 : num / den);
    out.put(frame, 5, num);
    out.put(frame, 6, den);
    for (int s = 0; s < kScales; ++s) {
      bool skipped = s == 0 && skip_scale0_;
      out.put(frame, 7 + 2 * s, skipped ? 0.0 : double(scales[s].num));
      out.put(frame, 8 + 2 * s, skipped ? -1.0 : double(scales[s].den));
    }
  }

 private:
  template <typename Sample, int R>
  void statistic(const Sample* ref, const Sample* dis, int s, cudaStream_t stream,
                 VifResult* result) {
    dim3 grid((width_[s] + kTileW - 1) / kTileW, (height_[s] + kTileH - 1) / kTileH);
    vif_statistic_kernel<Sample, R><<<grid, dim3(kBlockX, kBlockY), 0, stream>>>(
        ref, dis, int(width_[s]), int(height_[s]), taps_[s],
        vertical_rounding(s, format_.bit_depth), gain_limit_, table_.get<uint16_t>(),
        result->acc[s]);
    cuda::check_launch("vif: statistic kernel");
  }

  template <typename Sample, int R>
  void downsample(const Sample* ref, const Sample* dis, int from, cudaStream_t stream) {
    const int ow = int(width_[from] / 2), oh = int(height_[from] / 2);
    dim3 grid((ow + kDownTileW - 1) / kDownTileW, (oh + kDownTileH - 1) / kDownTileH, 2);
    const unsigned shift = from == 0 ? format_.bit_depth : 16;
    const uint32_t round = from == 0 ? uint32_t{1} << (format_.bit_depth - 1) : 32768u;
    vif_downsample_kernel<Sample, R><<<grid, dim3(kBlockX, kBlockY), 0, stream>>>(
        ref, dis, int(width_[from]), int(height_[from]), taps_[from + 1], shift, round,
        ref_[from + 1].get<uint16_t>(), dis_[from + 1].get<uint16_t>());
    cuda::check_launch("vif: downsample kernel");
  }

  template <typename Sample>
  void run(const Sample* ref, const Sample* dis, cudaStream_t stream, VifResult* result,
           StageMarks& marks) {
    marks.stage(stream, 1);
    if (!skip_scale0_) statistic<Sample, 8>(ref, dis, 0, stream, result);
    marks.stage(stream, 2);
    downsample<Sample, 4>(ref, dis, 0, stream);
    auto level = [&](int s) {
      return std::pair{ref_[s].get<const uint16_t>(), dis_[s].get<const uint16_t>()};
    };
    marks.stage(stream, 3);
    statistic<uint16_t, 4>(level(1).first, level(1).second, 1, stream, result);
    marks.stage(stream, 4);
    downsample<uint16_t, 2>(level(1).first, level(1).second, 1, stream);
    marks.stage(stream, 5);
    statistic<uint16_t, 2>(level(2).first, level(2).second, 2, stream, result);
    marks.stage(stream, 6);
    downsample<uint16_t, 1>(level(2).first, level(2).second, 2, stream);
    marks.stage(stream, 7);
    statistic<uint16_t, 1>(level(3).first, level(3).second, 3, stream, result);
  }

  std::vector<std::string> names_;
  double gain_limit_;
  bool skip_scale0_, debug_;
  PictureFormat format_;
  uint32_t width_[kScales] = {}, height_[kScales] = {};
  cuda::DeviceBuffer ref_[kScales], dis_[kScales];  // [0] unused: scale 0 is the frame itself
  cuda::DeviceBuffer table_;
  Taps taps_[kScales] = {};
};

}  // namespace

std::unique_ptr<CudaMetric> make_integer_vif_cuda(const OptionValues& options) {
  return std::make_unique<IntegerVifCuda>(options);
}

}  // namespace vqx
