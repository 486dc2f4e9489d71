#pragma once
// For the tests only: the device stages of SSIMULACRA 2 run on given pictures with every stage
// output read back, whole frames under a given schedule, and the device checks of the kernels'
// inlined arithmetic. Each call makes its own device context and buffers and waits for its own
// work; the metric never calls any of this.
#include <cstdint>
#include <vector>

#include "core/picture.h"
#include "metrics/ssimulacra2/cuda/frame_pipeline.h"
#include "metrics/ssimulacra2/ssimulacra2_core.h"

namespace vqx::ssimulacra2::cuda {

// Every intermediate plane of one scale, in the CPU's row-major layout. linear and xyb: ref R G B
// (X Y B), then dis; products: per channel p11, p22, p12; hblur and vblur: per channel G(img1),
// G(img2), G(p11), G(p22), G(p12) after the horizontal pass and after both passes; terms: per
// channel d (SSIM), art (ringing), det (blurring).
struct StageScale {
  uint32_t width = 0, height = 0;
  std::vector<float> linear, xyb, products, hblur, vblur;
  std::vector<double> terms;
};

struct StageFrame {
  std::vector<StageScale> scales;
  FrameSums sums;      // from the device's reduction tree
  double score = 0.0;  // pool_score(sums)
};

// The metric's kernels on one frame pair, scale after scale, each scale's planes read back.
// `max_scales` stops early (1 = only scale 0), as the stop rule would for a smaller picture.
// `matrix` null = R'G'B' pictures.
StageFrame run_stages(const Picture& ref, const Picture& dis, const YuvMatrix* matrix,
                      EdgeDifference edge_difference, int max_scales = kNumScales);

struct ScheduledFrame {
  Schedule schedule = Schedule::kSequential;
  bool chain_split = false;
  FrameSums sums;
  double score = 0.0;
};
// One frame through FramePipeline as the engine runs it (captured into a CUDA graph and
// replayed), its schedule chosen within `budget`.
ScheduledFrame run_frame(const Picture& ref, const Picture& dis, const YuvMatrix* matrix,
                         EdgeDifference edge_difference, const ScheduleBudget& budget);

// The inlined f64 division of the terms (div_rn_fast, with __ddiv_rn where its fast path does not
// apply) against __ddiv_rn on `count` operand pairs of each kind the terms divide (section 7's
// (f32 x f32) / f32 and section 8's (1 + e2) / (1 + e1) from random f32 bit patterns, plus special
// values): the number of pairs whose bits differ.
uint64_t division_mismatches(uint64_t count, uint32_t seed);

// The XYB kernel's cube root (cbrt_approx_seq where it applies) against cbrt_approx on all 2^32
// f32 bit patterns: the number whose result bits differ. `eotf_mismatches`: the same count for
// its EOTF (srgb_eotf01 against srgb_eotf, on clamp01 of every pattern).
uint64_t cbrt_mismatches(uint64_t* eotf_mismatches);

// The check kernels' launchers (blur_columns_terms.cu, xyb.cu): `mismatches` is a device counter
// (two for the cube root: roots, EOTF) that the kernels add to.
void launch_division_check(uint64_t count, uint32_t seed, unsigned long long* mismatches,
                           cudaStream_t stream);
void launch_cbrt_check(unsigned long long* mismatches, cudaStream_t stream);

}  // namespace vqx::ssimulacra2::cuda
