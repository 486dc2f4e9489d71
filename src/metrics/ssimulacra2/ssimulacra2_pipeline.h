#pragma once
// One frame pair through every SSIMULACRA 2 stage (shared/spec/ssimulacra2.md section 1), with
// the work of a frame spread over a thread pool. Only independent work runs concurrently (lines of
// a blur, pixels of a pointwise stage, the separate accumulator chains), so the result has the
// same bits for every thread count.
#include <functional>
#include <vector>

#include "core/picture.h"
#include "metrics/ssimulacra2/ssimulacra2_core.h"
#include "metrics/ssimulacra2/ssimulacra2_kernels.h"

namespace vqx {
class ThreadPool;
}

namespace vqx::ssimulacra2 {

// Scratch planes for one frame at a time (about 13.5 planes of the input size per image pair).
// Not thread-safe: one frame per workspace at a time.
class Workspace {
 public:
  explicit Workspace(const Ssimulacra2Kernels& kernels) : kernels_(kernels) {}
  // Prepares linear-RGB planes of w x h for the reference (image 0) and distorted (image 1).
  void resize(uint32_t w, uint32_t h);
  RgbPlanes linear(int image);

  // Runs sections 3-9 on the linear planes (which it overwrites) and returns the sums.
  // `pool` may be null (everything runs in the calling thread).
  FrameSums run(ThreadPool* pool, EdgeDifference edge_difference);

 private:
  const Ssimulacra2Kernels& kernels_;
  uint32_t width_ = 0, height_ = 0;
  std::vector<float> full_;   // 6 planes: linear RGB at scale 0, later the blur outputs
  std::vector<float> half_;   // 6 planes of the half-size scale
  std::vector<float> xyb_;    // 6 planes: XYB of both images at the current scale
};

// Fills the workspace's linear planes from Y'CbCr pictures (`matrix`) or, when `matrix` is null,
// from R'G'B' pictures (ColorModel::kRGB).
void load_linear(Workspace& workspace, const Picture& ref, const Picture& dis,
                 const YuvMatrix* matrix, ThreadPool* pool);

// load_linear + run + pool_score. The metric uses EdgeDifference::kFloatGroupsOf8 (the goldens).
double score_pair(Workspace& workspace, const Picture& ref, const Picture& dis,
                  const YuvMatrix* matrix, ThreadPool* pool,
                  EdgeDifference edge_difference = EdgeDifference::kFloatGroupsOf8);

// The same computation streamed in strips of rows (the metric's path): per scale, each strip goes
// from the picture (or the scale's linear planes) through XYB, products and both blur passes to the
// sums while it is in cache; the vertical pass carries each column's recurrence from strip to
// strip, so every column and every sum sees the operations of Workspace::run in the same order
// and run() returns the same bits (ssimulacra2_metric_test). Only the next scale's linear planes
// are whole planes: about 2 planes of the input size per image pair instead of 13.5.
// Not thread-safe: one frame per workspace at a time.
class StreamWorkspace {
 public:
  explicit StreamWorkspace(const Ssimulacra2Kernels& kernels) : kernels_(kernels) {}
  // `matrix` null = R'G'B' pictures. `pool` may be null.
  FrameSums run(const Picture& ref, const Picture& dis, const YuvMatrix* matrix, ThreadPool* pool,
                EdgeDifference edge_difference);

 private:
  const Ssimulacra2Kernels& kernels_;
  std::vector<float> strip_;   // 6 strips of linear RGB at scale 0
  std::vector<float> xyb_;     // 6 rings of XYB rows
  std::vector<float> blur_;    // 15 rings: blur inputs, then outputs (3 channels x 5 planes)
  std::vector<float> state_;   // 15 planes' vertical recurrence state per column
  std::vector<float> down_[2]; // linear RGB of the odd / even scales > 0 (6 planes each)
};

// StreamWorkspace::run + pool_score.
double score_pair_streamed(StreamWorkspace& workspace, const Picture& ref, const Picture& dis,
                           const YuvMatrix* matrix, ThreadPool* pool,
                           EdgeDifference edge_difference = EdgeDifference::kFloatGroupsOf8);

// Calls body(begin, end) over [0, n) in chunks of `grain`, on the pool when there is one.
void for_chunks(ThreadPool* pool, size_t n, size_t grain,
                const std::function<void(size_t, size_t)>& body);

}  // namespace vqx::ssimulacra2
