#pragma once
#include "engine/metric.h"

namespace vqx {

// Netflix CAMBI banding detector, bit-exact with libvmaf (shared/spec/cambi.md, docs/cambi.md).
const MetricDescriptor& cambi_descriptor();

}  // namespace vqx
