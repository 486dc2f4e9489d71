#pragma once
// A reading thread in front of a frame source: it reads (decodes, scales) up to `depth` frames
// ahead into pictures of its own, so that both inputs are read at the same time, reading frame
// N+1 overlaps the metrics of frame N, and the caller's read() is one copy. Errors reach the
// caller in order: the frames read before one first, then the error.
#include <cstddef>
#include <memory>

#include "core/frame_source.h"

namespace vqx {

std::unique_ptr<FrameSource> read_ahead(std::unique_ptr<FrameSource> source, size_t depth = 3);

}  // namespace vqx
