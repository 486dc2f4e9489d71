#include "metrics/speed_core/speed_params.h"

#include <fmt/format.h>

#include <cmath>

#include "core/error.h"

namespace vqx::speed {

PrescaleMethod parse_prescale_method(const std::string& name) {
  if (name == "bilinear") return PrescaleMethod::kBilinear;
  if (name == "bicubic") return PrescaleMethod::kBicubic;
  if (name == "lanczos4") return PrescaleMethod::kLanczos4;
  return PrescaleMethod::kNearest;
}

bool is_valid_kernel_scale(float ks32) {
  // speed.md 6.1: each constant is an f32 expression; the test |ks32 - k| < 1e-3 subtracts in
  // f32 and compares against the f64 literal.
  const float scales[] = {1.0f,          1.0f / 2.0f,    3.0f / 2.0f, 2.0f,         2.0f / 3.0f,
                          24.0f / 10.0f, 360.0f / 97.0f, 4.0f / 3.0f, 3.5f / 3.0f,  3.75f / 3.0f,
                          4.25f / 3.0f,  5.0f / 3.0f,    3.0f,        1.0f / 2.25f, 1.4746f,
                          1.54f,         1.6f,           1.06667f,    0.711111f,    0.740740f,
                          1.111111f};
  for (float k : scales)
    if (double(std::fabs(ks32 - k)) < 1e-3) return true;
  return false;
}

Geometry make_geometry(uint32_t w, uint32_t h, double prescale) {
  Geometry g;
  g.w = w;
  g.h = h;
  // speed.md 4: sw = trunc((f64)w * ps + 0.5), computed even when the resampler is skipped.
  g.sw = uint32_t(double(w) * prescale + 0.5);
  g.sh = uint32_t(double(h) * prescale + 0.5);
  g.prescale_active = std::fabs(prescale - 1.0) >= 1e-3;
  g.ow = g.sw >> 4;
  g.oh = g.sh >> 4;
  g.tw = g.ow / kBlock * kBlock;
  g.th = g.oh / kBlock * kBlock;
  g.nbx = g.tw / kBlock;
  g.nby = g.th / kBlock;
  g.nb = g.nbx * g.nby;
  if (g.tw >= kBlock && g.th >= kBlock) {
    g.mw = g.tw - (kBlock - 1);
    g.mh = g.th - (kBlock - 1);
    g.n = g.mw * g.mh;
  }
  return g;
}

void validate_geometry(const Geometry& g, double prescale, const std::string& what) {
  if (g.tw < kBlock || g.th < kBlock)
    throw InputError(fmt::format(
        "{}: chroma plane {}x{} scaled by {:g} is {}x{}, below the 80x80 SpEED needs for one 5x5 "
        "block after decimation by 16",
        what, g.w, g.h, prescale, g.sw, g.sh));
  if (!g.prescale_active && (g.sw != g.w || g.sh != g.h))
    throw InputError(fmt::format(
        "{}: speed_prescale={:g} is within 1e-3 of 1, so libvmaf skips the resampler, but it "
        "changes the {}x{} chroma plane to {}x{}; use 1 or a value further from 1",
        what, prescale, g.w, g.h, g.sw, g.sh));
}

}  // namespace vqx::speed
