#pragma once
// The device work of SSIMULACRA 2 for one geometry: its buffers, allocated once, and the per-frame
// schedule of the stages (device_stages.h). Per frame, per processed scale s: XYB + downsample,
// the horizontal pass, the vertical pass + terms + block sums; then the reduce. All of it is
// enqueued on the stream it is given and on side streams it forks from and joins back into it:
// no host wait, and the engine may capture it into a CUDA graph.
#include <memory>
#include <string>
#include <vector>

#include "engine/cuda/cuda_metric.h"
#include "engine/cuda/device_context.h"
#include "metrics/ssimulacra2/cuda/device_stages.h"

namespace vqx::ssimulacra2::cuda {

// How the scales of a frame run; init() chooses by the picture's size.
enum class Schedule {
  // Scales 1.. each on a side stream of its own, beside scale 0, with planes of its own; scale s
  // waits only for the XYB kernel of scale s - 1, which wrote its linear planes.
  kConcurrent,
  // Scales 1.. on side streams beside scale 0 in one set of planes sized for scale 1; with the
  // chain split, every scale s >= 2 whose planes fit in level s - 1's linear planes runs on a
  // stream of its own in those (only scale s - 1's XYB kernel reads them, and scale s's XYB waits
  // for it anyway: no extra memory); the others follow the scale before them in its planes.
  kChain,
  kSequential,  // every scale in sequence, in one set of planes
};

// The device memory the schedules may take. The metric uses the defaults; the tests pass smaller
// budgets to run the chain and sequential schedules on small pictures.
struct ScheduleBudget {
  // Concurrent when every scale's XYB and horizontal-pass planes fit (up to about 2560x1440).
  size_t concurrent_bytes = size_t{640} << 20;
  // Else chain when scale 0's planes and one set for scale 1 fit: 831 MiB at 3840x2160, about
  // 965 MiB peak with the linear pyramid and the engine's frames. Larger pictures: sequential.
  size_t chain_bytes = size_t{880} << 20;
};

class FramePipeline {
 public:
  // Everything for frames of `format` (`matrix` null = R'G'B' samples). Throws InputError for a
  // picture whose blocked planes the kernels cannot index with 32 bits.
  void init(const PictureFormat& format, const YuvMatrix* matrix, EdgeDifference edge_difference,
            vqx::cuda::DeviceContext& device, const ScheduleBudget& budget = ScheduleBudget{});

  Schedule schedule() const { return schedule_; }
  bool chain_split() const { return chain_split_; }
  // The stages enqueue_frame() marks, for --profile.
  std::vector<std::string> stage_names() const;

  // One frame pair (Picture layout, device): the 108 sums (kResultDoubles) into `result`.
  void enqueue_frame(const uint8_t* ref, const uint8_t* dis, cudaStream_t stream, double* result,
                     StageMarks* marks);
  // The sums of a host copy of `result`.
  FrameSums frame_sums(const double* result) const { return cuda::frame_sums(sizes_, result); }

 private:
  void enqueue_scale(int s, const uint8_t* ref, const uint8_t* dis, cudaStream_t stream,
                     StageMarks* marks);
  void enqueue_xyb(int s, const uint8_t* ref, const uint8_t* dis, cudaStream_t stream);
  void enqueue_rows(int s, cudaStream_t stream);
  void enqueue_columns(int s, cudaStream_t stream);
  void enqueue_reduce(cudaStream_t stream, double* result);

  XybLaunch xyb_launch_{};  // the scale-independent part of stage 1's launches
  EdgeDifference edge_difference_ = EdgeDifference::kFloatGroupsOf8;
  Schedule schedule_ = Schedule::kSequential;
  bool chain_split_ = false;
  bool own_stream_[kNumScales] = {};  // chain split: scale s on a stream of its own
  ScaleSizes sizes_;
  BlockedPlane plane_[kNumScales];
  ScaleTable table_{};
  const float* ones_ = nullptr;
  bool vec_rows_[kNumScales] = {};
  float* level_[kNumScales] = {};     // linear RGB of scales 1.. (6 planes each)
  float* xyb_at_[kNumScales] = {};    // 6 blocked planes of scale s
  float* hblur_at_[kNumScales] = {};  // 15 planes of scale s
  std::unique_ptr<vqx::cuda::Stream> side_[kNumScales];
  std::unique_ptr<vqx::cuda::Event> xyb_done_[kNumScales], side_done_[kNumScales];
  vqx::cuda::DeviceBuffer xyb_, hblur_, linear_, partials_;
};

}  // namespace vqx::ssimulacra2::cuda
