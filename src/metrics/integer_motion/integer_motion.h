#pragma once
#include <memory>

#include "engine/metric.h"
#include "metrics/integer_motion/motion_math.h"

namespace vqx {

namespace integer_motion {
struct MotionKernels;
}

// libvmaf's integer motion extractor `motion` (shared/spec/vmaf.md section 4):
// VMAF_integer_feature_motion_sad_score per frame, integer_motion2/3 a frame or two later.
const MetricDescriptor& integer_motion_descriptor();

namespace integer_motion {
// The outputs of both backends, in feature_names() order.
enum Output : size_t { kSad, kMotion2, kMotion3, kDebugMotion };
// Writes the motion2/motion3 values that MotionPostStream gives out.
MotionPostStream::Emit motion_post_writer(FeatureWriter& out);
}  // namespace integer_motion

// The CPU metric computing with `kernels` instead of this host's table (tests compare the tables
// on whole clips).
std::unique_ptr<CpuMetric> make_integer_motion_cpu(const OptionValues& options,
                                                   const integer_motion::MotionKernels& kernels);

}  // namespace vqx
