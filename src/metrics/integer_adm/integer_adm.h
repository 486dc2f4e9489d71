#pragma once
#include "engine/metric.h"

namespace vqx {

// libvmaf's integer ADM extractor `adm` (shared/spec/vmaf.md section 3): integer_adm2,
// integer_aim, integer_adm3, integer_adm_scale0..3.
const MetricDescriptor& integer_adm_descriptor();

}  // namespace vqx
