#pragma once
#include "engine/metric.h"

namespace vqx {

// libvmaf's integer motion extractor `motion` (shared/spec/vmaf.md section 4):
// VMAF_integer_feature_motion_sad_score per frame, integer_motion2/3 at flush.
const MetricDescriptor& integer_motion_descriptor();

}  // namespace vqx
