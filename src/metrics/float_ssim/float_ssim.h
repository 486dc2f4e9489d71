#pragma once
// libvmaf's float_ssim (Netflix upstream), bit-exact. It is one scale of the MS-SSIM machinery
// (metrics/ssim_core/ssim_stages.h) after an optional box decimation; docs/float_ssim.md.
#include "engine/metric.h"
#include "metrics/ssim_core/ssim_stages.h"

namespace vqx {

class ThreadPool;

const MetricDescriptor& float_ssim_descriptor();

namespace ssim {

// Upstream's decimation factor: `scale` when positive, else max(1, round(min(w, h) / 256)) with the
// IQA library's rounding (f32 division, halves away from zero).
int box_factor(int scale_option, Size size);
// Size after decimating by `factor`: w/f + (w&1) by h/f + (h&1) (upstream's formula, odd sizes
// included), or `size` itself for factor 1.
Size box_decimated_size(Size size, int factor);
// Upstream's _iqa_decimate with a factor x factor box of f32 weights 1/(factor^2): output (x, y) is
// an f64 sum (rows outer) of f32 products of the taps u, v = -(f/2) .. f-1-(f/2) around
// (f*x, f*y), symmetric extension, rounded to f32. Rows run in parallel when `pool` is given.
void box_decimate(const float* in, Size size, int factor, float* out, ThreadPool* pool);

}  // namespace ssim
}  // namespace vqx
