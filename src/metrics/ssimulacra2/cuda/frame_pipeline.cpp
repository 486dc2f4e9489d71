// The per-frame schedule of SSIMULACRA 2 on the device (frame_pipeline.h).
#include "metrics/ssimulacra2/cuda/frame_pipeline.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"
#include "engine/cuda/cuda_check.h"

namespace vqx::ssimulacra2::cuda {
namespace {

using vqx::cuda::check;

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

}  // namespace

void FramePipeline::init(const PictureFormat& format, const YuvMatrix* matrix,
                         EdgeDifference edge_difference, vqx::cuda::DeviceContext& device,
                         const ScheduleBudget& budget) {
  if (blocked_plane(format.width, format.height).floats > UINT32_MAX)
    throw InputError(fmt::format(
        "ssimulacra2: {} is too large for the CUDA path (its padded planes would hold 2^32 or "
        "more samples)",
        format.describe()));
  edge_difference_ = edge_difference;
  xyb_launch_.source = frame_source(format, matrix);
  xyb_launch_.rgb = matrix == nullptr;
  xyb_launch_.wide = format.bit_depth > 8;
  ones_ = ones_block();
  sizes_ = scale_sizes(format.width, format.height);
  const int scales = sizes_.count;
  size_t linear_floats = 0, partial_dd = 0, pyramid = 0;
  for (int s = 0; s < scales; ++s) {
    const size_t n = size_t(sizes_.width[s]) * sizes_.height[s];
    plane_[s] = blocked_plane(sizes_.width[s], sizes_.height[s]);
    table_.partial_offset[s] = partial_dd;
    table_.strips[s] = column_strips(sizes_.width[s]);
    partial_dd += size_t(3) * table_.strips[s] * kSums;
    if (s > 0) linear_floats += 6 * n;
    pyramid += n;
  }
  table_.scales = scales;
  if (scales == 0) return;  // smaller than 8x8: no scale, score 100 (the fork's rule)

  // The schedule, by the planes' memory (row-major sizes; the blocked planes are a little larger).
  const size_t n0 = size_t(sizes_.width[0]) * sizes_.height[0];
  const size_t n1 = scales > 1 ? size_t(sizes_.width[1]) * sizes_.height[1] : 0;
  schedule_ = Schedule::kSequential;
  if (scales > 1) {
    if (sizeof(float) * 21 * pyramid <= budget.concurrent_bytes)
      schedule_ = Schedule::kConcurrent;
    else if (sizeof(float) * 21 * (n0 + n1) <= budget.chain_bytes)
      schedule_ = Schedule::kChain;
  }
  const bool concurrent = schedule_ == Schedule::kConcurrent;
  const bool chain = schedule_ == Schedule::kChain;

  // One set of XYB and horizontal-pass planes per scale (concurrent), for scales 0 and 1 (chain),
  // or one for all (sequential).
  size_t xyb_set = 0, hblur_set = 0;
  for (int s = 0; s < scales; ++s) {
    if (concurrent || s == 0 || (chain && s == 1)) {
      xyb_set += plane_[s].floats;
      hblur_set += size_t(sizes_.width[s]) * sizes_.height[s];
    }
  }
  xyb_ = vqx::cuda::DeviceBuffer(device, sizeof(float) * 6 * xyb_set, "ssimulacra2 XYB planes");
  hblur_ = vqx::cuda::DeviceBuffer(device, sizeof(float) * 15 * hblur_set,
                                   "ssimulacra2 horizontal blur planes");
  for (size_t s = 0, xo = 0, ho = 0; s < size_t(scales); ++s) {
    xyb_at_[s] = xyb_.get<float>() + 6 * xo;
    hblur_at_[s] = hblur_.get<float>() + 15 * ho;
    if (concurrent || (chain && s == 0)) {
      xo += plane_[s].floats;
      ho += size_t(sizes_.width[s]) * sizes_.height[s];
    }
  }
  const int side_streams = concurrent ? scales - 1 : chain ? 1 : 0;
  for (int s = 1; s <= side_streams; ++s) {
    side_[s] = std::make_unique<vqx::cuda::Stream>();
    side_done_[s] = std::make_unique<vqx::cuda::Event>();
  }
  if (concurrent || chain)
    for (int s = 0; s < scales; ++s) xyb_done_[s] = std::make_unique<vqx::cuda::Event>();
  if (linear_floats)
    linear_ = vqx::cuda::DeviceBuffer(device, sizeof(float) * linear_floats,
                                      "ssimulacra2 linear RGB pyramid");
  partials_ = vqx::cuda::DeviceBuffer(device, sizeof(Dd) * partial_dd, "ssimulacra2 partial sums");
  for (int s = 1; s < scales; ++s)
    level_[s] = s == 1 ? linear_.get<float>()
                       : level_[s - 1] + size_t(6) * sizes_.width[s - 1] * sizes_.height[s - 1];

  // The chain split: scale s >= 2 in level s - 1's linear planes, on a stream of its own, where
  // its planes fit there (scale 2 only if it fits; then every later one that does).
  auto fits = [&](int s) {
    return 6 * plane_[s].floats + 15 * size_t(sizes_.width[s]) * sizes_.height[s] <=
           size_t(6) * sizes_.width[s - 1] * sizes_.height[s - 1];
  };
  chain_split_ = chain && scales >= 3 && fits(2);
  for (int s = 2; s < scales && chain_split_; ++s) {
    own_stream_[s] = s == 2 || fits(s);
    if (own_stream_[s]) {
      xyb_at_[s] = level_[s - 1];
      hblur_at_[s] = level_[s - 1] + 6 * plane_[s].floats;
      side_[s] = std::make_unique<vqx::cuda::Stream>();
      side_done_[s] = std::make_unique<vqx::cuda::Event>();
    } else {  // after scale s - 1, in its set (sized for s - 1: larger)
      xyb_at_[s] = xyb_at_[s - 1];
      hblur_at_[s] = hblur_at_[s - 1];
    }
  }
  for (int s = 0; s < scales; ++s)
    vec_rows_[s] = sizes_.width[s] % 4 == 0 && aligned16(xyb_at_[s]) && aligned16(hblur_at_[s]);
}

std::vector<std::string> FramePipeline::stage_names() const {
  if (schedule_ != Schedule::kSequential)
    return {"s0 yuv->linear->xyb+down", "s0 blur H (15 planes)", "s0 blur V + terms + sums",
            "scales 1.. (side streams) beyond s0", "reduce 108 sums"};
  std::vector<std::string> names;
  for (int s = 0; s < kNumScales; ++s) {
    const std::string scale = "s" + std::to_string(s) + " ";
    names.push_back(scale + (s == 0 ? "yuv->linear->xyb+down" : "xyb+down"));
    names.push_back(scale + "blur H (15 planes)");
    names.push_back(scale + "blur V + terms + sums");
  }
  names.push_back("reduce 108 sums");
  return names;
}

void FramePipeline::enqueue_xyb(int s, const uint8_t* ref, const uint8_t* dis,
                                cudaStream_t stream) {
  XybLaunch l = xyb_launch_;
  l.source.frame[0] = ref;
  l.source.frame[1] = dis;
  l.linear = s > 0 ? level_[s] : nullptr;
  l.width = sizes_.width[s];
  l.height = sizes_.height[s];
  l.plane = plane_[s];
  l.xyb = xyb_at_[s];
  l.down = s + 1 < sizes_.count ? level_[s + 1] : nullptr;
  launch_xyb(l, stream);
}

void FramePipeline::enqueue_rows(int s, cudaStream_t stream) {
  RowsLaunch l;
  l.xyb = xyb_at_[s];
  l.ones = ones_;
  l.width = sizes_.width[s];
  l.height = sizes_.height[s];
  l.plane = plane_[s];
  l.hblur = hblur_at_[s];
  l.vec = vec_rows_[s];
  launch_blur_rows(l, stream);
}

void FramePipeline::enqueue_columns(int s, cudaStream_t stream) {
  ColumnsLaunch l;
  l.hblur = hblur_at_[s];
  l.xyb = xyb_at_[s];
  l.width = sizes_.width[s];
  l.height = sizes_.height[s];
  l.plane = plane_[s];
  l.f32_end = uint32_t(f32_difference_count(size_t(l.width) * l.height, edge_difference_));
  l.partials = partials_.get<Dd>() + table_.partial_offset[s];
  launch_blur_columns_terms(l, stream);
}

void FramePipeline::enqueue_reduce(cudaStream_t stream, double* result) {
  launch_reduce(partials_.get<Dd>(), table_, result, stream);
}

// Stages 1-3 of scale s; stage marks 3 s, 3 s + 1, 3 s + 2.
void FramePipeline::enqueue_scale(int s, const uint8_t* ref, const uint8_t* dis,
                                  cudaStream_t stream, StageMarks* marks) {
  if (marks) marks->stage(stream, size_t(3 * s));
  enqueue_xyb(s, ref, dis, stream);
  if (marks) marks->stage(stream, size_t(3 * s + 1));
  enqueue_rows(s, stream);
  if (marks) marks->stage(stream, size_t(3 * s + 2));
  enqueue_columns(s, stream);
}

void FramePipeline::enqueue_frame(const uint8_t* ref, const uint8_t* dis, cudaStream_t stream,
                                  double* result, StageMarks* marks) {
  const int scales = sizes_.count;
  if (scales == 0) {
    check(cudaMemsetAsync(result, 0, sizeof(double) * kResultDoubles, stream),
          "ssimulacra2: clear");
    return;
  }
  if (schedule_ == Schedule::kSequential) {
    for (int s = 0; s < scales; ++s) enqueue_scale(s, ref, dis, stream, marks);
    if (marks) marks->stage(stream, size_t(3 * kNumScales));
    enqueue_reduce(stream, result);
    return;
  }
  if (marks) marks->stage(stream, 0);
  enqueue_xyb(0, ref, dis, stream);
  check(cudaEventRecord(xyb_done_[0]->get(), stream), "ssimulacra2: fork");
  if (schedule_ == Schedule::kChain) {
    cudaStream_t side = side_[1]->get();
    check(cudaStreamWaitEvent(side, xyb_done_[0]->get(), 0), "ssimulacra2: fork");
    if (chain_split_) {
      for (int s = 1, owner = 1; s < scales; ++s) {
        if (s >= 2 && own_stream_[s]) owner = s;
        cudaStream_t on = side_[owner]->get();
        if (s >= 2 && own_stream_[s])
          check(cudaStreamWaitEvent(on, xyb_done_[s - 1]->get(), 0), "ssimulacra2: fork");
        enqueue_xyb(s, ref, dis, on);
        check(cudaEventRecord(xyb_done_[s]->get(), on), "ssimulacra2: fork");
        enqueue_rows(s, on);
        enqueue_columns(s, on);
        const bool owner_ends = s + 1 == scales || own_stream_[s + 1];
        if (s >= 2 && owner_ends)
          check(cudaEventRecord(side_done_[owner]->get(), on), "ssimulacra2: join");
      }
    } else {
      for (int s = 1; s < scales; ++s) {  // each scale after the last reader of the shared set
        enqueue_xyb(s, ref, dis, side);
        enqueue_rows(s, side);
        enqueue_columns(s, side);
      }
    }
    check(cudaEventRecord(side_done_[1]->get(), side), "ssimulacra2: join");
  } else {
    for (int s = 1; s < scales; ++s) {
      cudaStream_t side = side_[s]->get();
      check(cudaStreamWaitEvent(side, xyb_done_[s - 1]->get(), 0), "ssimulacra2: fork");
      enqueue_xyb(s, ref, dis, side);
      check(cudaEventRecord(xyb_done_[s]->get(), side), "ssimulacra2: fork");
      enqueue_rows(s, side);
      enqueue_columns(s, side);
      check(cudaEventRecord(side_done_[s]->get(), side), "ssimulacra2: join");
    }
  }
  if (marks) marks->stage(stream, 1);
  enqueue_rows(0, stream);
  if (marks) marks->stage(stream, 2);
  enqueue_columns(0, stream);
  if (marks) marks->stage(stream, 3);
  for (int s = 1; s < scales; ++s)
    if (side_done_[s])
      check(cudaStreamWaitEvent(stream, side_done_[s]->get(), 0), "ssimulacra2: join");
  if (marks) marks->stage(stream, 4);
  enqueue_reduce(stream, result);
}

}  // namespace vqx::ssimulacra2::cuda
