#pragma once
#include "engine/metric.h"

namespace vqx {

// libvmaf's `float_ansnr` (docs/float_ansnr.md).
const MetricDescriptor& float_ansnr_descriptor();

}  // namespace vqx
