#pragma once
// One frame's samples in the layout of a raw .yuv file: Y, then Cb, then Cr, rows without padding,
// one byte per sample up to 8 bits and two (host order) above. Keeping that layout means a reader
// fills a frame with one read and a GPU backend uploads it with one copy.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace vqx {

enum class ChromaSubsampling : uint8_t { k420, k422, k444, k400 };
enum class ColorRange : uint8_t { kUnspecified, kLimited, kFull };
// kRGB pictures (from PNG input) hold R, G, B planes at full resolution (subsampling k444).
enum class ColorModel : uint8_t { kYCbCr, kRGB };

const char* to_string(ChromaSubsampling s);

struct PictureFormat {
  uint32_t width = 0;
  uint32_t height = 0;
  ChromaSubsampling subsampling = ChromaSubsampling::k420;
  uint8_t bit_depth = 8;
  ColorRange range = ColorRange::kUnspecified;
  ColorModel color = ColorModel::kYCbCr;

  unsigned plane_count() const { return subsampling == ChromaSubsampling::k400 ? 1 : 3; }
  // Chroma of odd sizes rounds up (what encoders write), unlike upstream libvmaf's floor.
  uint32_t plane_width(unsigned plane) const;
  uint32_t plane_height(unsigned plane) const;
  unsigned bytes_per_sample() const { return bit_depth > 8 ? 2 : 1; }
  size_t plane_offset(unsigned plane) const;
  size_t plane_bytes(unsigned plane) const;
  size_t frame_bytes() const;
  std::string describe() const;  // e.g. "1920x1080 4:2:0 10-bit"

  // Same geometry, layout and depth (range is metadata and may differ).
  bool same_layout(const PictureFormat& o) const {
    return width == o.width && height == o.height && subsampling == o.subsampling &&
           bit_depth == o.bit_depth && color == o.color;
  }
};

// Throws InputError when the format cannot describe a frame we can hold: zero or absurd sizes,
// unsupported depth, or a frame size that would overflow.
void validate_format(const PictureFormat& format, const std::string& what);

// Largest accepted width or height, and largest frame, to reject corrupt headers early.
inline constexpr uint32_t kMaxDimension = 1u << 16;
inline constexpr uint64_t kMaxFrameBytes = uint64_t{1} << 33;

class Picture {
 public:
  Picture() = default;
  // Owns freshly allocated (64-byte aligned) storage.
  explicit Picture(const PictureFormat& format);
  // Views storage owned elsewhere (e.g. pinned host memory); it must hold frame_bytes().
  Picture(const PictureFormat& format, std::span<uint8_t> storage);

  const PictureFormat& format() const { return format_; }
  uint8_t* bytes() { return data_; }
  const uint8_t* bytes() const { return data_; }
  size_t size_bytes() const { return format_.frame_bytes(); }

  template <typename Sample>
  const Sample* plane(unsigned p) const {
    return reinterpret_cast<const Sample*>(data_ + format_.plane_offset(p));
  }
  template <typename Sample>
  Sample* plane(unsigned p) {
    return reinterpret_cast<Sample*>(data_ + format_.plane_offset(p));
  }

 private:
  struct FreeAligned {
    void operator()(uint8_t* p) const;
  };
  PictureFormat format_;
  std::unique_ptr<uint8_t, FreeAligned> owned_;
  uint8_t* data_ = nullptr;
};

}  // namespace vqx
