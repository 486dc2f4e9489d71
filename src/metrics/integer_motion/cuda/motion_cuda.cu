// integer `motion` on CUDA (shared/spec/vmaf.md 4, 11; contract: bit-identical to the CPU).
//
// Device state: the last `lag` reference luma planes (lag 1, or 2 with the five-frame window) in a
// ring, and a frame counter. Per frame: the SAD kernel reads the plane of frame n - lag from ring
// slot n % lag, then the copy kernel stores frame n's luma in that slot and the counter advances.
// The slot is chosen on the device from the counter, so enqueue() launches the same work for
// every frame (graph_safe). Frames n < lag compare with the zeroed ring; the host writes 0 for
// them, as the CPU does.
//
// Exactness: the y pass and x pass are the CPU's integer steps. libvmaf keeps a uint32 per row;
// every |x-pass value| is at most 65535 (the Q16 taps sum to 65536 and the y pass leaves Q(16 -
// bpc) values of at most 65535) and a row has at most kMaxDimension = 65536 samples, so a row
// total is below 2^32 and its uint32 truncation is the identity: summing all absolute values
// into one uint64, in any order, gives the CPU's SAD.
#include <algorithm>
#include <optional>
#include <vector>

#include "engine/cuda/cuda_check.h"
#include "metrics/integer_motion/cuda/motion_cuda.h"
#include "metrics/integer_motion/integer_motion.h"
#include "metrics/integer_motion/motion_math.h"
#include "metrics/vmaf_common/cuda/block_sum.cuh"
#include "metrics/vmaf_common/feature_name.h"
#include "metrics/vmaf_common/size_limits.h"

namespace vqx {
namespace {

using namespace integer_motion;
using vmaf_cuda::block_add;
using vmaf_cuda::mirror_index;

constexpr int kBlockX = 32, kBlockY = 8;
constexpr int kTileW = 64, kTileH = 16;  // outputs per block
constexpr int kR = 2;                    // the 5-tap blur

__constant__ int32_t kTaps[5] = {3571, 16004, 26386, 16004, 3571};

// 4.2 over one tile. Wide: int32 up to 12 bits, int64 above (both exact, as on the CPU).
template <typename Sample, typename Wide>
__global__ void __launch_bounds__(kBlockX* kBlockY)
    motion_sad_kernel(const Sample* __restrict__ ring, size_t plane_samples, int lag,
                      const unsigned long long* __restrict__ counter,
                      const Sample* __restrict__ cur, int w, int h, unsigned bpc,
                      unsigned long long* sad) {
  constexpr int IW = kTileW + 2 * kR;
  __shared__ int32_t y[kTileH][IW];
  const Sample* prev = ring + size_t(*counter % unsigned(lag)) * plane_samples;
  const int x0 = blockIdx.x * kTileW, y0 = blockIdx.y * kTileH;
  const int tid = threadIdx.y * kBlockX + threadIdx.x;
  const Wide round = Wide(1) << (bpc - 1);
  for (int idx = tid; idx < kTileH * IW; idx += kBlockX * kBlockY) {
    const int r = idx / IW, c = idx % IW;
    const int i = min(y0 + r, h - 1);
    const int col = mirror_index(x0 - kR + c, w);
    Wide acc = 0;
#pragma unroll
    for (int k = 0; k < 5; ++k) {
      const size_t at = size_t(mirror_index(i - kR + k, h)) * w + col;
      acc += Wide(kTaps[k]) * (Wide(prev[at]) - Wide(cur[at]));
    }
    y[r][c] = int32_t((acc + round) >> bpc);  // arithmetic shift (floor)
  }
  __syncthreads();
  unsigned long long total[1] = {0};
  for (int idx = tid; idx < kTileH * kTileW; idx += kBlockX * kBlockY) {
    const int r = idx / kTileW, c = idx % kTileW;
    if (y0 + r >= h || x0 + c >= w) continue;
    long long s = 0;
#pragma unroll
    for (int k = 0; k < 5; ++k) s += (long long)kTaps[k] * y[r][c + k];
    total[0] += (unsigned long long)abs(int32_t((s + 32768) >> 16));
  }
  block_add<1>(total, sad);
}

// Stores the current reference luma in ring slot counter % lag (16 bytes per thread).
__global__ void motion_store_kernel(uint8_t* __restrict__ ring, size_t slot_bytes,
                                    size_t plane_bytes, int lag,
                                    const unsigned long long* __restrict__ counter,
                                    const uint8_t* __restrict__ cur) {
  uint8_t* dst = ring + size_t(*counter % unsigned(lag)) * slot_bytes;
  const size_t vectors = plane_bytes / 16;
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t v = size_t(blockIdx.x) * blockDim.x + threadIdx.x; v < vectors; v += stride)
    reinterpret_cast<uint4*>(dst)[v] = reinterpret_cast<const uint4*>(cur)[v];
  for (size_t i = vectors * 16 + size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < plane_bytes;
       i += stride)
    dst[i] = cur[i];
}

__global__ void motion_advance_kernel(unsigned long long* counter) { ++*counter; }


class IntegerMotionCuda final : public CudaMetric {
 public:
  explicit IntegerMotionCuda(const OptionValues& o)
      : names_(integer_motion_descriptor().make_cpu(o)->feature_names()),
        force_zero_(o.get_bool("motion_force_zero")),
        fps_weight_(vmaf_common::normalise_double_option(o.get_double("motion_fps_weight"))),
        debug_(o.get_bool("debug")) {
    post_.five_frame_window = o.get_bool("motion_five_frame_window");
    post_.moving_average = o.get_bool("motion_moving_average");
    post_.blend_factor = vmaf_common::normalise_double_option(o.get_double("motion_blend_factor"));
    post_.blend_offset = vmaf_common::normalise_double_option(o.get_double("motion_blend_offset"));
    post_.max_val = vmaf_common::normalise_double_option(o.get_double("motion_max_val"));
    lag_ = post_.five_frame_window ? 2 : 1;
    post_stream_.emplace(post_, force_zero_);
  }

  std::vector<std::string> feature_names() const override { return names_; }
  std::vector<std::string> stage_names() const override { return {"sad", "store previous"}; }
  bool temporal() const override { return true; }
  uint64_t final_lag() const override { return lag_; }

  void init(const CudaMetricContext& context) override {
    vmaf_common::require_min_size(context.format, "motion");
    format_ = context.format;
    plane_bytes_ = format_.plane_bytes(0);
    // Frames arrive in order (temporal); the ring's slot 0 is 16-byte aligned, and plane_bytes_
    // is rounded so every slot is.
    slot_bytes_ = (plane_bytes_ + 255) / 256 * 256;
    if (force_zero_) return;
    ring_ = cuda::DeviceBuffer(*context.device, slot_bytes_ * lag_, "motion previous luma");
    counter_ = cuda::DeviceBuffer(*context.device, sizeof(unsigned long long), "motion counter");
    cuda::clear_device_now(ring_.get(), slot_bytes_ * lag_, "motion: ring clear");
    cuda::clear_device_now(counter_.get(), sizeof(unsigned long long), "motion: counter");
    const int sms = context.device->properties().multiProcessorCount;
    store_blocks_ = unsigned(std::min<size_t>((plane_bytes_ / 16 + 255) / 256 + 1, size_t(sms) * 4));
  }

  size_t result_bytes() const override { return sizeof(unsigned long long); }

  void enqueue(const CudaFrame& frame, uint64_t, cudaStream_t stream, void* result,
               StageMarks& marks) override {
    marks.stage(stream, 0);
    cuda::check(cudaMemsetAsync(result, 0, sizeof(unsigned long long), stream), "motion: clear");
    if (force_zero_) return;
    auto* sad = static_cast<unsigned long long*>(result);
    const auto* counter = counter_.get<const unsigned long long>();
    const int w = int(format_.width), h = int(format_.height);
    dim3 grid((w + kTileW - 1) / kTileW, (h + kTileH - 1) / kTileH);
    const size_t slot_samples = slot_bytes_ / format_.bytes_per_sample();
    if (format_.bit_depth == 8)
      motion_sad_kernel<uint8_t, int32_t><<<grid, dim3(kBlockX, kBlockY), 0, stream>>>(
          ring_.get<const uint8_t>(), slot_samples, int(lag_), counter, frame.ref, w, h, 8, sad);
    else if (format_.bit_depth <= 12)
      motion_sad_kernel<uint16_t, int32_t><<<grid, dim3(kBlockX, kBlockY), 0, stream>>>(
          ring_.get<const uint16_t>(), slot_samples, int(lag_), counter,
          reinterpret_cast<const uint16_t*>(frame.ref), w, h, format_.bit_depth, sad);
    else
      motion_sad_kernel<uint16_t, long long><<<grid, dim3(kBlockX, kBlockY), 0, stream>>>(
          ring_.get<const uint16_t>(), slot_samples, int(lag_), counter,
          reinterpret_cast<const uint16_t*>(frame.ref), w, h, format_.bit_depth, sad);
    cuda::check_launch("motion: sad kernel");
    marks.stage(stream, 1);
    motion_store_kernel<<<store_blocks_, 256, 0, stream>>>(
        ring_.get<uint8_t>(), slot_bytes_, plane_bytes_, int(lag_), counter, frame.ref);
    cuda::check_launch("motion: store kernel");
    motion_advance_kernel<<<1, 1, 0, stream>>>(counter_.get<unsigned long long>());
    cuda::check_launch("motion: advance kernel");
  }

  // The CPU twin's extract() on the device's SAD.
  void collect(const void* result, uint64_t frame, FeatureWriter& out) override {
    double score = 0.0;
    if (!force_zero_ && frame >= lag_)
      score = motion_score(*static_cast<const unsigned long long*>(result), format_.width,
                           format_.height, fps_weight_, post_.max_val);
    out.put(frame, kSad, score);
    if (debug_) out.put(frame, kDebugMotion, score);
    post_stream_->add(score, motion_post_writer(out));
  }

  // The CPU twin's flush().
  void finish(const void*, FeatureWriter& out) override { post_stream_->finish(motion_post_writer(out)); }

 private:
  std::vector<std::string> names_;
  bool force_zero_;
  double fps_weight_;
  bool debug_;
  MotionPostOptions post_;
  uint64_t lag_ = 1;
  PictureFormat format_;
  size_t plane_bytes_ = 0, slot_bytes_ = 0;
  unsigned store_blocks_ = 1;
  cuda::DeviceBuffer ring_, counter_;
  std::optional<MotionPostStream> post_stream_;
};

}  // namespace

std::unique_ptr<CudaMetric> make_integer_motion_cuda(const OptionValues& options) {
  return std::make_unique<IntegerMotionCuda>(options);
}

}  // namespace vqx
