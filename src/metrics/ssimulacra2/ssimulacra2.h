#pragma once
#include "engine/metric.h"

namespace vqx {

// SSIMULACRA 2 as the lusoris vmaf fork computes it on Y'CbCr (bit-exact), and on R'G'B' pictures
// (PNG input) with libjxl's image semantics (shared/spec/ssimulacra2.md, docs/ssimulacra2.md).
const MetricDescriptor& ssimulacra2_descriptor();

}  // namespace vqx
