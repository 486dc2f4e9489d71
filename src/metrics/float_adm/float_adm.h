#pragma once
#include "engine/metric.h"

namespace vqx {

// libvmaf's `float_adm` (docs/float_adm.md).
const MetricDescriptor& float_adm_descriptor();

}  // namespace vqx
