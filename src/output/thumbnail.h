#pragma once
// Small 8-bit R'G'B' pictures of scored frames for the HTML report. A thumbnail is the box
// average of the frame over each of its pixels (every sample counts, so a thin artefact still
// tints its pixel), converted from Y'CbCr with BT.709's matrix above 576 lines and BT.601's up
// to it, limited range unless the input says full; PNG input (R'G'B') is only averaged and
// scaled to 8 bits. The report shows the pictures' colours, not a colour-managed rendition.
#include <cstdint>
#include <vector>

#include "core/picture.h"

namespace vqx {

struct Thumbnail {
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> rgb;  // width * height pixels, R, G, B each
};

struct ThumbnailPair {
  Thumbnail reference, distorted;
};

struct ThumbnailSize {
  uint32_t width, height;
};

// The largest size within max_width x max_height with the frame's aspect ratio (never larger
// than the frame, never 0).
ThumbnailSize thumbnail_size(const PictureFormat& format, uint32_t max_width, uint32_t max_height);

// `picture` averaged down to exactly `size` (a frame of another size, e.g. a distorted ladder
// rung, is averaged to the same size as its reference).
Thumbnail make_thumbnail(const Picture& picture, ThumbnailSize size);

}  // namespace vqx
