#pragma once
#include <memory>

#include "engine/metric.h"

namespace vqx {

namespace integer_vif {
struct VifKernels;
}

// libvmaf's integer VIF extractor `vif` (shared/spec/vmaf.md section 2): integer_vif_scale0..3.
const MetricDescriptor& integer_vif_descriptor();

// The CPU metric computing with `kernels` instead of this host's table (tests compare the tables
// on whole frames).
std::unique_ptr<CpuMetric> make_integer_vif_cpu(const OptionValues& options,
                                                const integer_vif::VifKernels& kernels);

}  // namespace vqx
