#include "metrics/vmaf_common/size_limits.h"

#include <fmt/format.h>

#include "core/error.h"

namespace vqx::vmaf_common {

void require_min_size(const PictureFormat& format, const std::string& feature) {
  if (format.width < kMinDimension || format.height < kMinDimension)
    throw InputError(fmt::format(
        "{}: input is {}x{}, but libvmaf's integer features need at least {}x{} luma samples",
        feature, format.width, format.height, kMinDimension, kMinDimension));
}

}  // namespace vqx::vmaf_common
