// ciede on CUDA (docs/ciede.md, "CUDA twin"): the metric class. Per frame the device writes every
// position's dE00 or marks it undecided, and copies the frame pair beside them into the result
// slot; collect() computes the undecided positions with glibc from that copy (the CPU's own code,
// ciede::difference_at) and adds all values in raster order in f64, as the CPU does.
#include <algorithm>
#include <thread>
#include <vector>

#include "core/thread_pool.h"
#include "engine/cuda/cuda_check.h"
#include "metrics/ciede/ciede_math.h"
#include "metrics/ciede/cuda/ciede_cuda.h"
#include "metrics/ciede/cuda/ciede_kernels.h"

namespace vqx {
namespace {

constexpr size_t kAlign = 256;
constexpr size_t kPositionsPerTask = 256;
// Undecided positions are rare (0.08% of random pictures' positions, 0.24% of blue ones); where a
// picture has many (large flat areas of one undecided colour pair) a pool of host threads
// computes them.
constexpr size_t kPoolThreshold = 4096;

size_t align_up(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

// The result slot: undecided count, the dE00 values, the undecided mask, the frame pair.
struct SlotLayout {
  size_t values = 0, mask = 0, ref = 0, dis = 0, total = 0;
};

SlotLayout make_slot_layout(const ciede::cuda::PixelLayout& pixels, size_t frame_bytes) {
  SlotLayout s;
  s.values = kAlign;
  s.mask = align_up(s.values + pixels.pixels() * sizeof(float));
  s.ref = align_up(s.mask + pixels.mask_words() * sizeof(uint32_t));
  s.dis = align_up(s.ref + frame_bytes);
  s.total = align_up(s.dis + frame_bytes);
  return s;
}

class CiedeCuda final : public CudaMetric {
 public:
  std::vector<std::string> feature_names() const override { return {"ciede2000"}; }
  std::vector<std::string> stage_names() const override { return {"differences", "frame_copy"}; }

  void init(const CudaMetricContext& context) override {
    ciede::require_supported(context.format);
    format_ = context.format;
    pixels_ = ciede::cuda::make_pixel_layout(format_);
    slot_ = make_slot_layout(pixels_, format_.frame_bytes());
  }

  size_t result_bytes() const override { return slot_.total; }

  void enqueue(const CudaFrame& frame, uint64_t, cudaStream_t stream, void* result,
               StageMarks& marks) override {
    uint8_t* slot = static_cast<uint8_t*>(result);
    marks.stage(stream, 0);
    ciede::cuda::launch_differences(pixels_, frame.ref, frame.dis,
                                    reinterpret_cast<float*>(slot + slot_.values),
                                    reinterpret_cast<uint32_t*>(slot + slot_.mask),
                                    reinterpret_cast<uint32_t*>(slot), stream);
    marks.stage(stream, 1);
    const size_t bytes = format_.frame_bytes();
    cuda::check(cudaMemcpyAsync(slot + slot_.ref, frame.ref, bytes, cudaMemcpyDeviceToDevice,
                                stream),
                "ciede: reference copy");
    cuda::check(cudaMemcpyAsync(slot + slot_.dis, frame.dis, bytes, cudaMemcpyDeviceToDevice,
                                stream),
                "ciede: distorted copy");
  }

  void collect(const void* result, uint64_t frame, FeatureWriter& out) override {
    const uint8_t* slot = static_cast<const uint8_t*>(result);
    const float* values = reinterpret_cast<const float*>(slot + slot_.values);
    const std::vector<uint64_t> open = undecided_positions(slot);
    std::vector<float> resolved(open.size());
    auto resolve = [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i)
        resolved[i] = ciede::difference_at(slot + slot_.ref, slot + slot_.dis, format_, open[i]);
    };
    if (open.size() >= kPoolThreshold)
      host_pool().parallel_for(open.size(), kPositionsPerTask, resolve);
    else
      resolve(0, open.size());

    // The CPU's raster-order f64 sum, with the host's values at the undecided positions.
    double sum = 0.;
    size_t next = 0;
    const uint64_t n = pixels_.pixels();
    for (uint64_t p = 0; p < n; ++p) {
      if (next < open.size() && open[next] == p)
        sum += resolved[next++];
      else
        sum += values[p];
    }
    out.put(frame, 0, ciede::score_from_sum(sum, format_.width, format_.height));
  }

 private:
  std::vector<uint64_t> undecided_positions(const uint8_t* slot) const {
    const uint32_t* mask = reinterpret_cast<const uint32_t*>(slot + slot_.mask);
    std::vector<uint64_t> open;
    open.reserve(*reinterpret_cast<const uint32_t*>(slot));
    for (uint64_t w = 0; w < pixels_.mask_words(); ++w)
      for (uint32_t bits = mask[w]; bits != 0; bits &= bits - 1)
        open.push_back(w * 32 + uint64_t(__builtin_ctz(bits)));
    return open;
  }

  ThreadPool& host_pool() {
    if (!pool_) pool_ = std::make_unique<ThreadPool>(std::max(1u, std::thread::hardware_concurrency()));
    return *pool_;
  }

  PictureFormat format_;
  ciede::cuda::PixelLayout pixels_{};
  SlotLayout slot_;
  std::unique_ptr<ThreadPool> pool_;
};

}  // namespace

std::unique_ptr<CudaMetric> make_ciede_cuda(const OptionValues&) {
  return std::make_unique<CiedeCuda>();
}

}  // namespace vqx
