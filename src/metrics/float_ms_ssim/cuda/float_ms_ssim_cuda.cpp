// float_ms_ssim on CUDA (shared/spec/ms_ssim.md section 10). Per frame, all enqueued with no host
// wait, forked from the engine's stream: a side stream runs the four 9x9 decimations (level 1
// reading the uploaded luma directly), the windows, terms and tile sums of scales 1-4 in one launch
// and their sum trees, while the engine's stream runs scale 0's windows (they need no pyramid) in
// kScale0Bands launches of whole tile bands and its sum trees; the trees write the 20 f64 sums into
// the result slot (the engine's one readback per frame) and the side stream joins back. Each
// pyramid level and each scale's partial sums has its own buffer, allocated once in init().
#include "metrics/float_ms_ssim/cuda/float_ms_ssim_cuda.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <memory>

#include "core/error.h"
#include "engine/cuda/cuda_check.h"
#include "engine/cuda/device_context.h"
#include "metrics/float_ms_ssim/float_ms_ssim_outputs.h"
#include "metrics/ssim_core/cuda/ssim_cuda.h"
#include "metrics/ssim_core/ssim_stages.h"

namespace vqx {
namespace {

using ssim::kScales;
using ssim::Size;
namespace sc = ssim::cuda;

struct MsSsimResult {
  double sums[kScales][sc::kSumQuantities];  // l, c, s, ssim of each scale
};

class FloatMsSsimCuda final : public CudaMetric {
 public:
  explicit FloatMsSsimCuda(const OptionValues& o)
      : enable_lcs_(o.get_bool("enable_lcs")),
        enable_db_(o.get_bool("enable_db")),
        clip_db_(o.get_bool("clip_db")),
        enable_chroma_set_(o.is_set("enable_chroma")) {}

  std::vector<std::string> feature_names() const override {
    return ssim::float_ms_ssim_feature_names(enable_lcs_);
  }

  std::vector<std::string> stage_names() const override {
    return {"scale-0 windows+trees || pyramid + scales 1-4 + trees", "join",
            "after the join (nothing)"};
  }

  void init(const CudaMetricContext& context) override {
    const PictureFormat& f = context.format;
    // The CPU twin's check and message (spec 3.1).
    if (f.width < uint32_t(ssim::kMsSsimMinSize) || f.height < uint32_t(ssim::kMsSsimMinSize))
      throw InputError(
          fmt::format("float_ms_ssim needs at least {0}x{0} pixels (an 11x11 window at its 5th "
                      "scale), got {1}x{2}",
                      ssim::kMsSsimMinSize, f.width, f.height));
    if (enable_chroma_set_)
      std::fputs("warning: float_ms_ssim: enable_chroma has no effect (MS-SSIM scores luma only)\n",
                 stderr);
    format_ = f;
    max_db_ = ssim::max_db(clip_db_, f.bit_depth, f.width, f.height);
    sc::prepare_device();
    side_ = std::make_unique<cuda::Stream>();
    fork_event_ = std::make_unique<cuda::Event>();
    join_event_ = std::make_unique<cuda::Event>();
    sizes_[0] = {int(f.width), int(f.height)};
    for (int k = 1; k < kScales; ++k) sizes_[k] = ssim::half_size(sizes_[k - 1]);
    for (int k = 0; k < kScales; ++k) {
      if (k > 0) {
        const size_t bytes = sizes_[k].pixels() * sizeof(float);
        level_ref_[k] = cuda::DeviceBuffer(*context.device, bytes, "float_ms_ssim pyramid");
        level_dis_[k] = cuda::DeviceBuffer(*context.device, bytes, "float_ms_ssim pyramid");
      }
      partials_[k] = cuda::DeviceBuffer(
          *context.device,
          sc::partial_count(sizes_[k]) * sc::kSumQuantities * sizeof(sc::PartialSum),
          "float_ms_ssim partial sums");
      partial_ptrs_[k] = partials_[k].get<sc::PartialSum>();
    }
  }

  size_t result_bytes() const override { return sizeof(MsSsimResult); }

  void enqueue(const CudaFrame& frame, uint64_t, cudaStream_t stream, void* result,
               StageMarks& marks) override {
    std::array<sc::ScaleJob, kScales> jobs{};
    jobs[0].ref = sc::luma_plane(frame.ref, format_);
    jobs[0].dis = sc::luma_plane(frame.dis, format_);
    // Without enable_lcs a scale's l mean is read only through pow(l, alpha), which is 1 for
    // alpha == 0 whatever l is, and no ssim sum is ever read: such scales need c and s alone.
    for (int k = 0; k < kScales; ++k)
      jobs[size_t(k)].cs_only = !enable_lcs_ && ssim::kAlpha[k] == 0.0f;
    double* sums = &static_cast<MsSsimResult*>(result)->sums[0][0];
    marks.stage(stream, 0);
    // The side stream: pyramid, scales 1-4 and their trees (one tree per scale and quantity, on
    // whichever stream: the same sums).
    cudaStream_t side = side_->get();
    cuda::check(cudaEventRecord(fork_event_->get(), stream), "float_ms_ssim: fork");
    cuda::check(cudaStreamWaitEvent(side, fork_event_->get(), 0), "float_ms_ssim: fork");
    enqueue_pyramid(jobs, side);
    sc::enqueue_windows(jobs.data() + 1, kScales - 1, partial_ptrs_.data() + 1, side);
    sc::enqueue_reduce(sizes_.data() + 1, kScales - 1, partial_ptrs_.data() + 1,
                       sums + sc::kSumQuantities, side);
    cuda::check(cudaEventRecord(join_event_->get(), side), "float_ms_ssim: join");
    enqueue_scale0_windows(jobs[0], stream);
    sc::enqueue_reduce(sizes_.data(), 1, partial_ptrs_.data(), sums, stream);
    marks.stage(stream, 1);
    cuda::check(cudaStreamWaitEvent(stream, join_event_->get(), 0), "float_ms_ssim: join");
    marks.stage(stream, 2);
  }

  // Levels 1-4 (spec 3.3: level k from level k-1, reference and distorted independently) into
  // jobs[1..4]: one enqueue_decimate per level.
  void enqueue_pyramid(std::array<sc::ScaleJob, kScales>& jobs, cudaStream_t stream) {
    for (int k = 1; k < kScales; ++k) {
      sc::enqueue_decimate(jobs[k - 1].ref, jobs[k - 1].dis, level_ref_[k].get<float>(),
                           level_dis_[k].get<float>(), stream);
      jobs[k].ref = {level_ref_[k].get(), sc::SampleType::kF32, 8, sizes_[k]};
      jobs[k].dis = {level_dis_[k].get(), sc::SampleType::kF32, 8, sizes_[k]};
    }
  }

  // Scale 0's windows as kScale0Bands launches of whole 64-row tile bands (the same tiles, partials
  // at the same places: the same sums bit for bit). Ready grids of equal priority get their blocks
  // dispatched in launch order, so with one launch the side stream's smaller launches would wait
  // for all of scale 0's blocks; between bands they get in.
  void enqueue_scale0_windows(const sc::ScaleJob& job, cudaStream_t stream) {
    const int map_rows = ssim::map_size(sizes_[0]).height;
    const int tile_rows = (map_rows + sc::kWindowTileRows - 1) / sc::kWindowTileRows;
    if (tile_rows < 2) {
      sc::enqueue_windows(&job, 1, partial_ptrs_.data(), stream);
      return;
    }
    const int n = std::min(kScale0Bands, tile_rows);
    const size_t sample_bytes = format_.bit_depth > 8 ? 2 : 1;
    const size_t tiles_x = sc::partial_count(sizes_[0]) / size_t(tile_rows);
    for (int c = 0; c < n; ++c) {
      const int t0 = tile_rows * c / n, t1 = tile_rows * (c + 1) / n;
      const int row0 = t0 * sc::kWindowTileRows;
      const int rows = std::min(map_rows, t1 * sc::kWindowTileRows) - row0;
      sc::ScaleJob band = job;
      const size_t offset = size_t(row0) * size_t(sizes_[0].width) * sample_bytes;
      band.ref.data = static_cast<const uint8_t*>(job.ref.data) + offset;
      band.dis.data = static_cast<const uint8_t*>(job.dis.data) + offset;
      band.ref.size.height = band.dis.size.height = rows + ssim::kWindowMargin;
      sc::PartialSum* partials = partial_ptrs_[0] + size_t(t0) * tiles_x * sc::kSumQuantities;
      sc::enqueue_windows(&band, 1, &partials, stream);
    }
  }

  // The CPU twin's per-frame code (float_ms_ssim.cpp) on the device sums.
  void collect(const void* result, uint64_t frame, FeatureWriter& out) override {
    const auto& r = *static_cast<const MsSsimResult*>(result);
    std::array<ssim::ScaleMeans, kScales> means{};
    for (int k = 0; k < kScales; ++k) {
      ssim::ScaleSums sums;
      sums.l = r.sums[k][0];
      sums.c = r.sums[k][1];
      sums.s = r.sums[k][2];
      sums.ssim = r.sums[k][3];
      means[size_t(k)] = sums.means(ssim::map_size(sizes_[k]));
    }
    bool infinite = false;
    const double score = ssim::combine_scales(means, &infinite);
    if (infinite) throw InputError(fmt::format("float_ms_ssim is infinite at frame {}", frame));
    out.put(frame, 0, enable_db_ ? ssim::to_db(score, max_db_) : score);
    if (!enable_lcs_) return;
    for (int k = 0; k < kScales; ++k) {
      const ssim::ScaleMeans& m = means[size_t(k)];
      out.put(frame, size_t(1 + k), double(m.l));
      out.put(frame, size_t(1 + kScales + k), double(m.c));
      out.put(frame, size_t(1 + 2 * kScales + k), double(m.s));
    }
  }

 private:
  bool enable_lcs_, enable_db_, clip_db_, enable_chroma_set_;
  PictureFormat format_;
  double max_db_ = 0;
  std::array<Size, kScales> sizes_{};
  std::array<cuda::DeviceBuffer, kScales> level_ref_, level_dis_;  // [0] unused: the upload
  std::array<cuda::DeviceBuffer, kScales> partials_;
  std::array<sc::PartialSum*, kScales> partial_ptrs_{};
  static constexpr int kScale0Bands = 3;
  std::unique_ptr<cuda::Stream> side_;
  std::unique_ptr<cuda::Event> fork_event_, join_event_;
};

}  // namespace

std::unique_ptr<CudaMetric> make_float_ms_ssim_cuda(const OptionValues& options) {
  return std::make_unique<FloatMsSsimCuda>(options);
}

}  // namespace vqx
