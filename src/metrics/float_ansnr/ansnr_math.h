#pragma once
// The stages of libvmaf's `float_ansnr` (feature/ansnr.c, ansnr_tools.c): the reference is
// smoothed by a 3x3 kernel and the distorted luma by a 5x5 one (upstream's 2-D filters; its 1-D,
// normalising and border-replicating variants are compiled out), then the signal and noise
// energies of the two filtered planes give ANSNR and ANPSNR.
#include <cstddef>

namespace vqx {
class ThreadPool;
}

namespace vqx::float_ansnr {

enum class Kernel { kReference3x3, kDistorted5x5 };

// Filters rows [0, height) of `src` (width x height, packed) into `dst`. Out-of-picture taps
// mirror without repeating the first row or column (-1 -> 1) but repeating the last (h -> h-1).
// Each output is the f32 sum over kernel rows of the f32 sum over kernel columns of tap * sample.
void filter(Kernel kernel, const float* src, int width, int height, float* dst, ThreadPool* pool);

// f32 energies: each row's sum of ref^2 and of (ref - dis)^2 in f32, then the rows' f32 sum.
struct Energies {
  float signal, noise;
};
Energies energies(const float* ref, const float* dis, int width, int height);

// ANSNR = 10 log10(signal / noise) (psnr_max when noise is 0); ANPSNR = min(10 log10(peak^2 w h /
// max(noise, 1e-10)), psnr_max).
struct Scores {
  double ansnr, anpsnr;
};
Scores scores(const Energies& e, int width, int height, double peak, double psnr_max);

}  // namespace vqx::float_ansnr
