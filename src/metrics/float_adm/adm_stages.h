#pragma once
// The stages of libvmaf's float ADM (feature/adm.c, adm_tools.c) on packed f32 bands: the db2
// wavelet, the decoupling of the distorted detail into restored and additive parts, the CSF, the
// contrast masking and the p-norm pooling. Every fold is upstream's: f32 running sums, one per
// row, then over the rows.
#include <vector>

#include "metrics/float_adm/adm_csf.h"

namespace vqx {
class ThreadPool;
}

namespace vqx::float_adm {

// One level of the wavelet: approximation a and the horizontal, vertical and diagonal details
// (upstream's naming: h is high-pass vertically, v high-pass horizontally), w x h samples each.
struct Bands {
  int w = 0, h = 0;
  std::vector<float> a, hor, ver, diag;
  void resize(int width, int height);
};

// db2 analysis of a w x h plane into ((w + 1) / 2) x ((h + 1) / 2) bands: vertical pass first,
// four taps each, mirrored at both ends (upstream's dwt2_src_indices_filt). With
// approximation_only only band a is made (adm_skip_scale0's scale 0).
void dwt2(const float* src, int w, int h, bool approximation_only, Bands& out, ThreadPool* pool);

// n / d as upstream's x86-64 build computes it in the decoupling: n times the RCPSS estimate of
// 1 / d refined by one Newton-Raphson step, xi + xi (1 - d xi). It is not the correctly rounded
// quotient; upstream's portable C (and vqx on other architectures) divides.
float quotient(float n, float d);

// Upstream's two border regions of a w x h band (border_factor 0.1): the filter region, one
// sample wider on each side (the masking reads a 3x3 neighbourhood), clamped to the band, and
// the score region, unclamped.
struct Region {
  int left, top, right, bottom;
};
Region filter_region(int w, int h);
Region score_region(int w, int h);

// Restored (r) and additive (a) detail of the distorted bands over the filter region: the gain
// k = dis / (ref + 1e-30), clamped to [0, 1], where the quotient is upstream's x86 reciprocal
// (RCPSS refined by one Newton step, see adm_stages.cpp); within one degree of the reference's
// orientation the restored detail may grow by up to enhn_gain_limit.
void decouple(const Bands& ref, const Bands& dis, double enhn_gain_limit, Bands& r, Bands& a,
              ThreadPool* pool);

// CSF-weighted detail over the filter region: out = factor * src and masker = |out| / 30
// (upstream's f64 constant 0.0333333351, rounded to f32).
void csf(const Bands& src, const CsfFactors& f, Bands& out, Bands& masker);

// sum over the three detail bands of (sum |f * ref|^p)^(1/p) + (N * noise_weight)^(1/p), the
// sums over the score region (adm_csf_den_scale_s).
float den_scale(const Bands& ref, const CsfFactors& f, double p_norm, double noise_weight);

// The same pooling of max(|f * src| - t, 0) where the masking threshold t at a sample is the f32
// sum over the three bands of the 3x3 neighbourhood of `masker` with the centre replaced by
// |weighted| / 15 (0.0666666701 in f64); t = 0 with bypass_cm (adm_cm_s).
float masked_pool(const Bands& src, const Bands& weighted, const Bands& masker, const CsfFactors& f,
                  bool bypass_cm, double p_norm, double noise_weight, ThreadPool* pool);

}  // namespace vqx::float_adm
