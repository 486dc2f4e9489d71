#pragma once
// How many frames an input file holds, for the progress line's total and ETA: what its size or
// its container says, without reading the frames. An estimate: a Y4M file is taken to have bare
// "FRAME" headers, a container its own frame count or duration times frame rate. Inputs that are
// not regular files (pipes, FIFOs, standard input) have none.
#include <cstdint>
#include <optional>
#include <string>

#include "core/picture.h"

namespace vqx {

// `format`: the frames' format as the input's reader decodes them (for Y4M and raw YUV, whose
// frame size it gives); `raw`: the input is headerless YUV. nullopt when nothing says.
std::optional<uint64_t> estimate_frame_count(const std::string& path, const PictureFormat& format, bool raw);

}  // namespace vqx
