#pragma once
#include "engine/metric.h"

namespace vqx {

// libvmaf's `float_vif` (docs/float_vif.md).
const MetricDescriptor& float_vif_descriptor();

}  // namespace vqx
