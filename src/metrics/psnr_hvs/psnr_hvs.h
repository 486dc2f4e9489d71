#pragma once
#include "engine/metric.h"

namespace vqx {

// libvmaf's `psnr_hvs` (docs/psnr_hvs.md).
const MetricDescriptor& psnr_hvs_descriptor();

}  // namespace vqx
