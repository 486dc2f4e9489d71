#pragma once
#include "engine/metric.h"

namespace vqx {

// libvmaf's `speed_temporal` (docs/speed_temporal.md).
const MetricDescriptor& speed_temporal_descriptor();

}  // namespace vqx
