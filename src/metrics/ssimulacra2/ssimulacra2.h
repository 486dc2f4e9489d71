#pragma once
#include "engine/metric.h"

namespace vqx {

// SSIMULACRA 2 as the lusoris vmaf fork computes it on Y'CbCr (bit-exact), and on R'G'B' pictures
// (PNG input) with libjxl's image semantics (shared/spec/ssimulacra2.md, docs/ssimulacra2.md).
const MetricDescriptor& ssimulacra2_descriptor();

namespace ssimulacra2 {
// Throws InputError for a picture the metric cannot score: no chroma (4:0:0), RGB that is not
// 4:4:4, RGB below libjxl's 8x8 minimum. Both backends check with it.
void check_input(const PictureFormat& format);
}  // namespace ssimulacra2

}  // namespace vqx
