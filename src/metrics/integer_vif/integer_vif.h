#pragma once
#include "engine/metric.h"

namespace vqx {

// libvmaf's integer VIF extractor `vif` (shared/spec/vmaf.md section 2): integer_vif_scale0..3.
const MetricDescriptor& integer_vif_descriptor();

}  // namespace vqx
