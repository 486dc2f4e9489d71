#pragma once
// SpEED (libvmaf's speed.c; shared by speed_chroma and speed_temporal): resolved options and the
// per-plane geometry.
// Spec: shared/spec/speed.md sections 1 (options), 4 (geometry), 5.1 (prescale activity), 6.1-6.2.
#include <cstdint>
#include <string>

namespace vqx::speed {

enum class PrescaleMethod : uint8_t { kNearest, kBilinear, kBicubic, kLanczos4 };

// The prescale method named by a validated option value (nearest, bilinear, bicubic, lanczos4).
PrescaleMethod parse_prescale_method(const std::string& name);

// Option values as the extractor uses them (speed.md 1.2): the f32 narrowings are done here.
struct SpeedParams {
  float kernel_scale = 1.0f;  // ks32 = RN32(speed_kernelscale)
  double prescale = 1.0;      // ps, f64
  PrescaleMethod method = PrescaleMethod::kNearest;
  float sigma_nn = 0.29f;   // σ = RN32(speed_sigma_nn)
  float nn_floor = 0.0f;    // φ = RN32(speed_nn_floor)
  double max_val = 1000.0;  // M, f64 output clip
  int weight_var_mode = 0;  // wvm, 0..6 (speed.md 9.2)
};

// True if ks32 is within 1e-3 of one of upstream's 21 kernel scales (speed.md 6.1).
bool is_valid_kernel_scale(float ks32);

// Everything about one plane's sizes (speed.md 4). All values are in samples.
struct Geometry {
  uint32_t w = 0, h = 0;         // chroma plane (floor-sized for subsampled layouts)
  uint32_t sw = 0, sh = 0;       // scaled size trunc(n*ps + 0.5)
  bool prescale_active = false;  // |ps - 1| >= 1e-3 (speed.md 5.1)
  uint32_t ow = 0, oh = 0;       // operating size: scaled >> 4
  uint32_t tw = 0, th = 0;       // truncated to whole 5x5 blocks
  uint32_t nbx = 0, nby = 0, nb = 0;
  uint32_t mw = 0, mh = 0, n = 0;  // covariance sub-window and its sample count N
};

inline constexpr uint32_t kBlock = 5;        // block side B
inline constexpr uint32_t kDecimation = 16;  // 4 octaves, phase 0

// Pure arithmetic of speed.md 4; no validation (see validate_geometry).
Geometry make_geometry(uint32_t w, uint32_t h, double prescale);

// Throws InputError when upstream would crash or misbehave: fewer than one 5x5 block
// (sw or sh < 80), or a prescale within 1e-3 of 1 that still changes the size (speed.md 5.1).
void validate_geometry(const Geometry& g, double prescale, const std::string& what);

}  // namespace vqx::speed
