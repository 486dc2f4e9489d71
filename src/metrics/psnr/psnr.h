#pragma once
#include "engine/metric.h"

namespace vqx {

// libvmaf's integer `psnr` (shared/spec/psnr.md).
const MetricDescriptor& psnr_descriptor();

}  // namespace vqx
