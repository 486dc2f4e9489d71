#pragma once
#include "engine/metric.h"

namespace vqx {

// libvmaf's `float_psnr` (docs/float_psnr.md).
const MetricDescriptor& float_psnr_descriptor();

}  // namespace vqx
