#pragma once
// The host-side arithmetic of libvmaf's integer psnr, shared by every backend: each backend only
// has to produce the exact integer SSE of each plane.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/options.h"
#include "core/picture.h"

namespace vqx::psnr {

// The options, as both backends read them.
struct PsnrOptions {
  bool enable_chroma, enable_mse, enable_apsnr, reduced_hbd_peak;
  double min_sse;
  explicit PsnrOptions(const OptionValues& o)
      : enable_chroma(o.get_bool("enable_chroma")),
        enable_mse(o.get_bool("enable_mse")),
        enable_apsnr(o.get_bool("enable_apsnr")),
        reduced_hbd_peak(o.get_bool("reduced_hbd_peak")),
        min_sse(o.get_double("min_sse")) {}
};

inline constexpr const char* kPlaneNames[3] = {"y", "cb", "cr"};

// psnr_y[, psnr_cb, psnr_cr][, mse_...]: chroma columns are declared even for 4:0:0 input, where
// they are never written.
std::vector<std::string> feature_names(const PsnrOptions& options);

struct PsnrParams {
  uint32_t peak = 255;
  double psnr_max[3] = {60, 60, 60};
};

PsnrParams make_params(const PictureFormat& format, bool reduced_hbd_peak, double min_sse);

// 10*log10(peak^2 / max(mse, 1e-16)) capped at psnr_max, as libvmaf.
double psnr_from_sse(uint64_t sse, uint64_t pixels, uint32_t peak, double psnr_max);
double mse_from_sse(uint64_t sse, uint64_t pixels);
// Whole-clip PSNR from the summed SSE and pixel count (enable_apsnr).
double aggregate_psnr(uint64_t sse, uint64_t pixels, uint32_t peak);

// Exact sum of squared differences of one plane.
uint64_t plane_sse(const Picture& ref, const Picture& dis, unsigned plane);

}  // namespace vqx::psnr
