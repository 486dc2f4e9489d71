#include "core/frame_source.h"

namespace vqx {

uint64_t FrameSource::skip(uint64_t count) {
  Picture scratch(format());
  uint64_t skipped = 0;
  while (skipped < count && read(scratch)) ++skipped;
  return skipped;
}

}  // namespace vqx
