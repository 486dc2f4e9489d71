#pragma once
// The stages of libvmaf's float VIF (feature/vif.c, vif_tools.c), on packed f32 planes. The
// Gaussian taps, the mirror rule and the prescale are the shared SpEED folder's (libvmaf's VIF and
// SpEED share vif_tools.c; src/metrics/speed_core/speed_preprocess.h).
//
// libvmaf's x86 build filters with convolution_avx.c where the filter has at most 17 taps. That
// unit is compiled with -mfma but in ISO C mode, so nothing is contracted: it multiplies and adds
// each tap in the same order as the portable C, and its edge columns and rows use the same mirror.
// Both builds therefore give the same bits, and so does this single implementation.
#include <cstddef>
#include <vector>

namespace vqx {
class ThreadPool;
}

namespace vqx::float_vif {

// Gaussian taps of scale 0..3 for kernel scale ks32: libvmaf's vif_get_filter.
std::vector<float> scale_taps(int scale, float ks32);

// What the separable filter is applied to: a, a * a, or a * b (f32 products).
enum class FilterInput { kPlain, kSquare, kProduct };

// out = taps (x) taps applied to the input, vertical pass first (each sum folded from +0 in tap
// order, f32), taps outside the plane mirrored without repeating the edge. `b` is read only for
// kProduct. Rows run in parallel when `pool` is given.
void filter(FilterInput input, const std::vector<float>& taps, const float* a, const float* b,
            int width, int height, float* out, ThreadPool* pool);

// out[i][j] = in[2i][2j] for i < height / 2, j < width / 2.
void decimate(const float* in, int width, int height, float* out);

// decimate(filter(kPlain, taps, in)) in one pass that computes only the kept samples: the same
// sums in the same order, so the same bits (tests/unit/float_vif_adm_metric_test.cpp).
void filter_and_decimate(const std::vector<float>& taps, const float* in, int width, int height,
                         float* out, ThreadPool* pool);

// libvmaf's log2f approximation (VIF_OPT_FAST_LOG2): exponent plus a degree-8 polynomial of the
// mantissa, Horner's rule in f32.
float fast_log2(float x);

struct ScaleSums {
  float num, den;
};

// The VIF statistic of one scale from the filtered planes: per pixel the 'matching_matlab'
// variant in f32 (the noise variance and the quotients in f64 where upstream's double parameter
// promotes them), each row summed in f32, then the rows.
ScaleSums statistic(const float* mu1, const float* mu2, const float* xx, const float* yy,
                    const float* xy, int width, int height, double enhn_gain_limit,
                    double sigma_nsq);

}  // namespace vqx::float_vif
