#pragma once
// libvmaf's float_ms_ssim (Netflix upstream), bit-exact: shared/spec/ms_ssim.md,
// docs/float_ms_ssim.md.
#include <array>
#include <vector>

#include "engine/metric.h"
#include "metrics/ssim_core/ssim_kernels.h"

namespace vqx {

const MetricDescriptor& float_ms_ssim_descriptor();

namespace ssim {

// The pyramid of one frame pair; kept between frames to avoid reallocating.
struct MsSsimScratch {
  std::array<std::vector<float>, kScales> ref, dis;
};

struct MsSsimScores {
  double score = 0;  // before any dB conversion
  std::array<ScaleMeans, kScales> means{};
  bool infinite = false;  // the product reached +inf (upstream fails the frame)
};

// Whole float_ms_ssim of the luma planes of `ref` and `dis` (same format, at least
// kMsSsimMinSize in each dimension).
MsSsimScores compute_ms_ssim(const Picture& ref, const Picture& dis, MsSsimScratch& scratch,
                             ThreadPool* pool, const SsimKernels& kernels);

}  // namespace ssim
}  // namespace vqx
