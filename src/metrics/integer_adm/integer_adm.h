#pragma once
#include <memory>

#include "engine/metric.h"

namespace vqx {

namespace integer_adm {
struct AdmKernels;
}

// libvmaf's integer ADM extractor `adm` (shared/spec/vmaf.md section 3): integer_adm2,
// integer_aim, integer_adm3, integer_adm_scale0..3.
const MetricDescriptor& integer_adm_descriptor();

// The CPU metric computing with `kernels` instead of this host's table (tests compare the tables
// on whole frames).
std::unique_ptr<CpuMetric> make_integer_adm_cpu(const OptionValues& options,
                                                const integer_adm::AdmKernels& kernels);

}  // namespace vqx
