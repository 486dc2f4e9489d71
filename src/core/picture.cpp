#include "core/picture.h"

#include <fmt/format.h>

#include <cstdlib>
#include <new>

#include "core/error.h"

namespace vqx {

const char* to_string(ChromaSubsampling s) {
  switch (s) {
    case ChromaSubsampling::k420: return "4:2:0";
    case ChromaSubsampling::k422: return "4:2:2";
    case ChromaSubsampling::k444: return "4:4:4";
    case ChromaSubsampling::k400: return "4:0:0";
  }
  return "?";
}

uint32_t PictureFormat::plane_width(unsigned plane) const {
  if (plane == 0) return width;
  if (subsampling == ChromaSubsampling::k420 || subsampling == ChromaSubsampling::k422)
    return (width + 1) / 2;
  return subsampling == ChromaSubsampling::k400 ? 0 : width;
}

uint32_t PictureFormat::plane_height(unsigned plane) const {
  if (plane == 0) return height;
  if (subsampling == ChromaSubsampling::k420) return (height + 1) / 2;
  return subsampling == ChromaSubsampling::k400 ? 0 : height;
}

size_t PictureFormat::plane_bytes(unsigned plane) const {
  return size_t{plane_width(plane)} * plane_height(plane) * bytes_per_sample();
}

size_t PictureFormat::plane_offset(unsigned plane) const {
  size_t offset = 0;
  for (unsigned p = 0; p < plane; ++p) offset += plane_bytes(p);
  return offset;
}

size_t PictureFormat::frame_bytes() const { return plane_offset(plane_count()); }

std::string PictureFormat::describe() const {
  return fmt::format("{}x{} {} {}-bit", width, height, to_string(subsampling), bit_depth);
}

void validate_format(const PictureFormat& f, const std::string& what) {
  if (f.width == 0 || f.height == 0)
    throw InputError(fmt::format("{}: picture size {}x{} is empty", what, f.width, f.height));
  if (f.width > kMaxDimension || f.height > kMaxDimension)
    throw InputError(fmt::format("{}: picture size {}x{} exceeds the maximum of {} per side", what,
                                 f.width, f.height, kMaxDimension));
  if (f.bit_depth < 8 || f.bit_depth > 16)
    throw InputError(fmt::format("{}: bit depth {} is not supported (8 to 16)", what, f.bit_depth));
  // Both sides are <= 2^16, so this product cannot overflow 64 bits.
  uint64_t bytes = uint64_t{f.width} * f.height * 3 * f.bytes_per_sample();
  if (bytes > kMaxFrameBytes)
    throw InputError(fmt::format("{}: a {}x{} frame would need {} bytes, more than the limit of {}",
                                 what, f.width, f.height, bytes, kMaxFrameBytes));
}

void Picture::FreeAligned::operator()(uint8_t* p) const { std::free(p); }

Picture::Picture(const PictureFormat& format) : format_(format) {
  size_t bytes = (format.frame_bytes() + 63) / 64 * 64;
  owned_.reset(static_cast<uint8_t*>(std::aligned_alloc(64, bytes > 0 ? bytes : 64)));
  if (!owned_) throw std::bad_alloc();
  data_ = owned_.get();
}

Picture::Picture(const PictureFormat& format, std::span<uint8_t> storage)
    : format_(format), data_(storage.data()) {
  if (storage.size() < format.frame_bytes())
    throw RuntimeFailure("picture storage is smaller than the frame");
}

}  // namespace vqx
