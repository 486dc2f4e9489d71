#pragma once
// The smallest picture libvmaf's integer VIF, ADM and motion can score (shared/spec/vmaf.md 10.1).
#include <cstdint>
#include <string>

#include "core/picture.h"

namespace vqx::vmaf_common {

// Below 33 samples on an axis upstream ADM reads outside its buffers (16x16 crashes), so the
// three extractors refuse such input (a documented deviation: upstream gives undefined values).
inline constexpr uint32_t kMinDimension = 33;

// Throws InputError naming `feature` when the luma plane is below kMinDimension on an axis.
void require_min_size(const PictureFormat& format, const std::string& feature);

}  // namespace vqx::vmaf_common
