#pragma once
// The contrast-sensitivity weights of libvmaf's float ADM (feature/adm_tools.c, adm_tools.h,
// barten_csf_tools.h, adm_csf_tools.h): per scale one f32 factor for the horizontal and vertical
// bands and one for the diagonal band.
namespace vqx::float_adm {

struct CsfOptions {
  int mode = 0;  // 1 Barten, 2 ADM native (DLM paper), anything else Watson 97
  double norm_view_dist = 3.0;
  int ref_display_height = 1080;
  double csf_scale = 1.0, csf_diag_scale = 1.0;  // Barten only
  double f1[4] = {-1, -1, -1, -1};               // per-scale overrides, used when >= 0
  double f2[4] = {-1, -1, -1, -1};
};

struct CsfFactors {
  float hv, d;
};

// The factors of `scale` (0 finest .. 3): the model's, then the overrides. Each model keeps
// upstream's f32/f64 mix and calls the same libm functions (pow, exp, log10) as upstream.
CsfFactors csf_factors(const CsfOptions& o, int scale);

}  // namespace vqx::float_adm
