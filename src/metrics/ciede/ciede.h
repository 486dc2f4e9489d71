#pragma once
#include "engine/metric.h"

namespace vqx {

// libvmaf's `ciede` (docs/ciede.md).
const MetricDescriptor& ciede_descriptor();

}  // namespace vqx
