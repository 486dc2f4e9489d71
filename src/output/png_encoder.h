#pragma once
// A thumbnail as PNG bytes (8-bit R'G'B', no interlace), written by libpng into memory.
#include <string>

#include "output/thumbnail.h"

namespace vqx {

// Throws RuntimeFailure when libpng fails (it does not for a valid thumbnail).
std::string encode_png(const Thumbnail& thumbnail);

}  // namespace vqx
