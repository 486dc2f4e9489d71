#pragma once
#include "engine/metric.h"

namespace vqx {

// libvmaf's `float_motion` (docs/float_motion.md).
const MetricDescriptor& float_motion_descriptor();

}  // namespace vqx
