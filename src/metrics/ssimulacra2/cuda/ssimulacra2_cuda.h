#pragma once
// The CUDA twin of ssimulacra2 (shared/spec/ssimulacra2.md section 15): every stage on the device,
// per-pixel bit-identical to the CPU stages of ssimulacra2_core.h, the 108 sums from a fixed
// double-double reduction tree, one readback per frame, pooling on the host with pool_score().
#include <memory>
#include <string>
#include <vector>

#include "engine/cuda/cuda_metric.h"
#include "metrics/ssimulacra2/ssimulacra2_core.h"

namespace vqx {

std::unique_ptr<CudaMetric> make_ssimulacra2_cuda(const OptionValues& options);

namespace ssimulacra2::cuda {

// Every intermediate plane of one scale, read back from the device (debug path only).
// Plane order: linear and xyb: ref R G B (X Y B), then dis; products: per channel p11, p22, p12;
// hblur and vblur: per channel G(img1), G(img2), G(p11), G(p22), G(p12) after the horizontal and
// after both passes; terms: per channel d (SSIM), art (ringing), det (blurring).
struct DebugScale {
  uint32_t width = 0, height = 0;
  std::vector<float> linear, xyb, products, hblur, vblur;
  std::vector<double> terms;
};

struct DebugFrame {
  std::vector<DebugScale> scales;
  FrameSums sums;      // from the device's reduction tree
  double score = 0.0;  // pool_score(sums)
};

// How the device pipeline runs (the metric uses the defaults; the others serve tests and benches).
struct PipelineOptions {
  bool debug = false;           // also write every intermediate plane (DebugScale)
  int max_scales = kNumScales;  // stop early, as the stop rule would for a smaller picture
  bool concurrent = true;       // scales 1.. on side streams when their planes fit the budget
  bool force_chain = false;     // scales 1.. in sequence on one side stream, at any size
  bool scalar_rows = false;     // horizontal pass without float4 loads/stores (timing)
  bool vblur_low_regs = false;  // vertical/terms kernel capped at 80 registers (timing)
  // Terms with the inlined fast path of the f64 division (same bits, __ddiv_rn where the fast
  // path does not apply), 32-bit pixel indices and the rows' terms formed without branches.
  bool fast_terms = true;
  int terms_batch = 4;         // fast_terms: pixels whose terms are formed together (4 or 2)
  // Session 15: the vertical pass + terms by blur_columns_terms_pipe_kernel, the terms of a chunk
  // and the walk of the next interleaved (leanp, the default; the same bits with fewer
  // instructions, docs/ssimulacra2.md); false = the kernels before (fast_terms, VQX_SS2_VBLUR=fast).
  bool vblur_pipe = true;
  // Concurrent/chain schedules: the downsample into the next level in its own kernel before the
  // XYB, so that the next scales start while this scale's XYB runs.
  bool split_xyb = false;
  // XYB kernel with the cube roots' divisions inlined, the EOTF without its redundant selects,
  // 4:2:0 chroma formed once per 2x2 block and float2 stores (the default since session 14; the
  // same bits; VQX_SS2_XYB=plain the kernel before).
  bool fast_xyb = true;
  // The strip schedule (session 14): each scale at least strip_min_height rows high runs its
  // horizontal pass in strips of strip_rows rows (a multiple of 32; 0 = the whole plane at once)
  // into a ring of strip_depth * strip_rows + 32 rows of planes, and its vertical pass + terms
  // strip by strip behind it (each column's recurrence state, pending inputs and f64
  // accumulators carried between launches: the same bits as the full-frame kernels). The
  // horizontal pass of strips i + 1 .. i + strip_depth runs beside the vertical pass of strip i.
  // Applies with the fast terms only. Off by default:
  // slower on the H200 (docs/ssimulacra2.md, session 14), kept for its memory (VQX_SS2_STRIPS=1).
  int strip_rows = 0;
  int strip_depth = 1;
  int strip_min_height = 1440;
  // Debug path: keep the ring (the horizontal-pass planes are then not read back) instead of
  // full planes.
  bool strip_debug_ring = false;
  bool force_concurrent = false;  // scales 1.. on their own side streams at any size
  // Strips: the XYB + downsample of a scale in strips too, on its own stream ahead of the
  // horizontal pass (XYB -> H -> V pipeline); not with split_xyb.
  bool strip_xyb = false;
  // The XYB planes in a transposed (column-major) layout and the horizontal pass walking them
  // with coalesced loads (session 15; the default). Applies with the default kernels and no
  // strips; false (VQX_SS2_HBLUR=poles2): row-major planes and the poles2 kernel before it.
  bool transposed_xyb = true;
  // With transposed_xyb and no strip_rows of their own: planes at least strip_min_height rows
  // high run as `bands` strips of whole planes (no ring), their XYB by strips too, so that the
  // walk of one band overlaps the XYB of the next and the vertical pass of the one before
  // (session 15). 0 or 1: off. Applies only with the scales concurrent (not the debug path).
  int bands = 0;
  // The chain schedule (4K): 0 = scales 1.. in sequence on one side stream (session 14); 1 =
  // scales 2.. on a second one, in the linear planes of level 1; 2 = every scale s >= 2 whose
  // planes fit in level s - 1's linear planes on a stream of its own (session 15).
  int split_chain = 2;
};

// Runs one frame pair through the device kernels of the metric, with every debug plane written,
// synchronising after each scale (never used by the metric). `max_scales` stops early (1 = only
// scale 0), as the fork's stop rule would for a smaller picture. `matrix` null = R'G'B' input.
// `variant` picks the kernel variants (its debug, max_scales and schedule fields are ignored:
// the scales run in sequence); the default is the metric's own choice.
DebugFrame run_debug_frame(const Picture& ref, const Picture& dis, const YuvMatrix* matrix,
                           EdgeDifference edge_difference, int max_scales = kNumScales,
                           const PipelineOptions& variant = PipelineOptions{});

// Device check of the inlined division (div_rn_fast) against __ddiv_rn on `count` operand pairs
// of each kind the terms divide (section 7's (f32 x f32) / f32 and section 8's (1 + e2) / (1 + e1)
// from random f32 bit patterns, plus special values); returns the number of pairs whose bits
// differ.
uint64_t division_mismatches(uint64_t count, uint32_t seed);

// Device check of the XYB kernel's fast cube root (VQX_SS2_XYB=fast) against cbrt_approx on all
// 2^32 f32 bit patterns; returns the number whose result bits differ. eotf_mismatches (if not
// null): the same count for its EOTF (srgb_eotf01 against srgb_eotf, on clamp01 of every pattern).
uint64_t cbrt_mismatches(uint64_t* eotf_mismatches = nullptr);

// Device time of the metric's whole frame (its CUDA graph, as the engine runs it), replayed
// `frames` times after a warm-up on one uploaded pair; for bench/ssimulacra2_cuda_bench.
struct DeviceTiming {
  double ms_per_frame = 0.0;
  size_t peak_bytes = 0;  // of this pipeline and the two input frames
  bool concurrent = false;
  double score = 0.0;
  bool replicas_differ = false;  // in_flight > 1: a replica's sums differ from the first's
};
// in_flight > 1: that many pipelines (replicas of the metric's buffers), frame i on replica
// i % in_flight's stream: device time per frame with several frames in flight.
DeviceTiming time_device_frames(const Picture& ref, const Picture& dis, const YuvMatrix* matrix,
                                const PipelineOptions& options, int frames, int in_flight = 1);

// Timeline of one frame (bench only): the metric's graph with timing events around every kernel
// (as graph nodes), replayed; start and end of each kernel in ms from the frame's start. A
// start is when its stream reached the launch (the kernel may begin later if the GPU is full).
struct TraceEvent {
  std::string what;  // XYB, down, H, V, reduce
  int scale = 0, strip = -1;
  float start_ms = 0.0f, end_ms = 0.0f;
};
std::vector<TraceEvent> trace_device_frame(const Picture& ref, const Picture& dis,
                                           const YuvMatrix* matrix, const PipelineOptions& options);

}  // namespace ssimulacra2::cuda
}  // namespace vqx
