// psnr on CUDA (shared/spec/psnr.md; contract in shared/spec/README.md: bit-identical to the CPU).
// The device computes each plane's sum of squared differences exactly in 64-bit integers; the
// host turns it into PSNR with the same psnr_math code as the CPU path. Integer sums are exact and
// associative, so the grid shape and the order of the atomic adds cannot change the result.
#include <array>

#include "engine/cuda/cuda_check.h"
#include "metrics/psnr/cuda/psnr_cuda.h"
#include "metrics/psnr/psnr_math.h"

namespace vqx {
namespace {

constexpr int kThreads = 256;

struct PlaneSpans {
  unsigned long long offset[3];  // bytes from the frame start
  unsigned long long count[3];   // samples
};

// Squared differences of 16 packed 8-bit samples, summed exactly (at most 16 * 255^2 < 2^21).
__device__ __forceinline__ unsigned sse16(uint4 a, uint4 b) {
  unsigned acc = 0;
  unsigned d;
  d = __vabsdiffu4(a.x, b.x);
  acc = __dp4a(d, d, acc);
  d = __vabsdiffu4(a.y, b.y);
  acc = __dp4a(d, d, acc);
  d = __vabsdiffu4(a.z, b.z);
  acc = __dp4a(d, d, acc);
  d = __vabsdiffu4(a.w, b.w);
  acc = __dp4a(d, d, acc);
  return acc;
}

// Squared differences of 8 packed 16-bit samples, each up to 65535^2 < 2^32: summed in 64 bits.
__device__ __forceinline__ unsigned long long sse8x16(uint4 a, uint4 b) {
  const unsigned wa[4] = {a.x, a.y, a.z, a.w}, wb[4] = {b.x, b.y, b.z, b.w};
  unsigned long long acc = 0;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    long long lo = (long long)(wa[i] & 0xffffu) - (long long)(wb[i] & 0xffffu);
    long long hi = (long long)(wa[i] >> 16) - (long long)(wb[i] >> 16);
    acc += (unsigned long long)(lo * lo) + (unsigned long long)(hi * hi);
  }
  return acc;
}

// One grid row (blockIdx.y) per plane. The plane is one contiguous run of samples (tight rows),
// read as 16-byte vectors between a scalar head (up to 16-byte alignment; reference and distorted
// share the offset, so both are aligned alike) and a scalar tail.
template <typename Sample>
__global__ void __launch_bounds__(kThreads) plane_sse_kernel(const uint8_t* ref, const uint8_t* dis,
                                                             PlaneSpans spans,
                                                             unsigned long long* sse) {
  const unsigned plane = blockIdx.y;
  const unsigned long long offset = spans.offset[plane];
  const unsigned long long n = spans.count[plane];
  const Sample* a = reinterpret_cast<const Sample*>(ref + offset);
  const Sample* b = reinterpret_cast<const Sample*>(dis + offset);
  constexpr unsigned kPerVector = 16 / sizeof(Sample);
  unsigned long long head = ((16 - offset % 16) % 16) / sizeof(Sample);
  if (head > n) head = n;
  const unsigned long long vectors = (n - head) / kPerVector;
  const unsigned long long tail = head + vectors * kPerVector;
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  const unsigned long long tid = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;

  unsigned long long acc = 0;
  for (unsigned long long i = tid; i < head; i += stride) {
    long long d = (long long)a[i] - (long long)b[i];
    acc += (unsigned long long)(d * d);
  }
  const uint4* va = reinterpret_cast<const uint4*>(a + head);
  const uint4* vb = reinterpret_cast<const uint4*>(b + head);
  for (unsigned long long v = tid; v < vectors; v += stride) {
    uint4 x = __ldg(va + v), y = __ldg(vb + v);
    if constexpr (sizeof(Sample) == 1) acc += sse16(x, y);
    else acc += sse8x16(x, y);
  }
  for (unsigned long long i = tail + tid; i < n; i += stride) {
    long long d = (long long)a[i] - (long long)b[i];
    acc += (unsigned long long)(d * d);
  }

  // Warp, then block reduction (integers: exact in any order), one atomic per block.
  for (int shift = 16; shift > 0; shift >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, shift);
  __shared__ unsigned long long warp_sums[kThreads / 32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = acc;
  __syncthreads();
  if (warp == 0) {
    acc = lane < kThreads / 32 ? warp_sums[lane] : 0;
    for (int shift = 16; shift > 0; shift >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, shift);
    if (lane == 0 && acc != 0) atomicAdd(sse + plane, acc);
  }
}

// The result slot: the exact SSE of each plane.
struct PsnrResult {
  unsigned long long sse[3];
};

class PsnrCuda final : public CudaMetric {
 public:
  explicit PsnrCuda(const OptionValues& options) : options_(options) {}

  std::vector<std::string> feature_names() const override { return psnr::feature_names(options_); }
  std::vector<std::string> stage_names() const override { return {"clear", "sse"}; }

  void init(const CudaMetricContext& context) override {
    format_ = context.format;
    planes_ = options_.enable_chroma ? format_.plane_count() : 1;
    params_ = psnr::make_params(format_, options_.reduced_hbd_peak, options_.min_sse);
    unsigned long long largest = 0;
    for (unsigned p = 0; p < planes_; ++p) {
      spans_.offset[p] = format_.plane_offset(p);
      spans_.count[p] = (unsigned long long)format_.plane_width(p) * format_.plane_height(p);
      largest = spans_.count[p] > largest ? spans_.count[p] : largest;
    }
    // Enough blocks to fill the device a few times over; the shape cannot change the sums.
    unsigned long long per_vector = 16 / format_.bytes_per_sample();
    unsigned long long wanted = (largest / per_vector + kThreads - 1) / kThreads;
    unsigned cap = 4u * unsigned(context.device->properties().multiProcessorCount);
    blocks_ = unsigned(wanted < 1 ? 1 : (wanted > cap ? cap : wanted));
  }

  size_t result_bytes() const override { return sizeof(PsnrResult); }

  void enqueue(const CudaFrame& frame, uint64_t, cudaStream_t stream, void* result,
               StageMarks& marks) override {
    marks.stage(stream, 0);
    cuda::check(cudaMemsetAsync(result, 0, sizeof(PsnrResult), stream), "psnr: clear");
    marks.stage(stream, 1);
    auto* sse = static_cast<unsigned long long*>(result);
    dim3 grid(blocks_, planes_);
    if (format_.bytes_per_sample() == 1)
      plane_sse_kernel<uint8_t><<<grid, kThreads, 0, stream>>>(frame.ref, frame.dis, spans_, sse);
    else
      plane_sse_kernel<uint16_t><<<grid, kThreads, 0, stream>>>(frame.ref, frame.dis, spans_, sse);
    cuda::check_launch("psnr: plane_sse_kernel");
  }

  // The CPU path's per-frame code, on the device's exact SSE.
  void collect(const void* result, uint64_t frame, FeatureWriter& out) override {
    const auto& r = *static_cast<const PsnrResult*>(result);
    unsigned declared = options_.enable_chroma ? 3 : 1;
    for (unsigned p = 0; p < planes_; ++p) {
      uint64_t sse = r.sse[p];
      uint64_t pixels = uint64_t{format_.plane_width(p)} * format_.plane_height(p);
      out.put(frame, p, psnr::psnr_from_sse(sse, pixels, params_.peak, params_.psnr_max[p]));
      if (options_.enable_mse) out.put(frame, declared + p, psnr::mse_from_sse(sse, pixels));
      if (options_.enable_apsnr) {
        clip_sse_[p] += sse;
        clip_pixels_[p] += pixels;
      }
    }
  }

  void finish(const void*, FeatureWriter& out) override {
    if (!options_.enable_apsnr) return;
    for (unsigned p = 0; p < planes_; ++p)
      out.put_aggregate(std::string("apsnr_") + psnr::kPlaneNames[p],
                        psnr::aggregate_psnr(clip_sse_[p], clip_pixels_[p], params_.peak));
  }

 private:
  psnr::PsnrOptions options_;
  PictureFormat format_;
  unsigned planes_ = 3;
  psnr::PsnrParams params_;
  PlaneSpans spans_{};
  unsigned blocks_ = 1;
  std::array<uint64_t, 3> clip_sse_{};
  std::array<uint64_t, 3> clip_pixels_{};
};

}  // namespace

std::unique_ptr<CudaMetric> make_psnr_cuda(const OptionValues& options) {
  return std::make_unique<PsnrCuda>(options);
}

}  // namespace vqx
