#pragma once
#include <memory>

#include "engine/metric.h"

namespace vqx {

namespace integer_motion {
struct MotionKernels;
}

// libvmaf's integer motion extractor `motion` (shared/spec/vmaf.md section 4):
// VMAF_integer_feature_motion_sad_score per frame, integer_motion2/3 at flush.
const MetricDescriptor& integer_motion_descriptor();

// The CPU metric computing with `kernels` instead of this host's table (tests compare the tables
// on whole clips).
std::unique_ptr<CpuMetric> make_integer_motion_cpu(const OptionValues& options,
                                                   const integer_motion::MotionKernels& kernels);

}  // namespace vqx
