#pragma once
#include "engine/metric.h"

namespace vqx {

// libvmaf's `float_moment` (docs/float_moment.md).
const MetricDescriptor& float_moment_descriptor();

}  // namespace vqx
