#pragma once
#include <string>
#include <vector>

#include "engine/metric.h"
#include "metrics/speed_core/speed_params.h"

namespace vqx {

// libvmaf's `speed_chroma` (SpEED-QA on the chroma planes; shared/spec/speed.md), the SpEED
// feature of the VMAF v1 models.
const MetricDescriptor& speed_chroma_descriptor();

namespace speed {

// Option values as libvmaf sees them: a number the user wrote goes through strtof and "%g"
// before it is parsed by the option's type (vmaf.md 5). Throws UsageError for kernel scales
// upstream does not know.
SpeedParams resolve_params(const OptionValues& options);

// libvmaf's output names: the alias plus "_<alias>_<value>" for each option that differs from its
// default, sorted by option name (vmaf.md 5), e.g. speed_chroma_uv_mxv_45_nnf_0.1_snn_0.19_wvm_5.
std::vector<std::string> output_names(const OptionValues& options);

// The chroma plane geometry of `format` (speed.md 3, 4); throws InputError for inputs the
// extractor refuses (not Y'CbCr, 4:0:0, unsupported bit depth, too small, bad prescale). Shared
// by the CPU and CUDA twins so that both accept and refuse the same inputs.
Geometry checked_geometry(const PictureFormat& format, const SpeedParams& params);

}  // namespace speed
}  // namespace vqx
