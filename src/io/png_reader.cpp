// PNG input through libpng: one image becomes one R'G'B' frame (ColorModel::kRGB, 4:4:4, full
// range) of 8 or 16 bits, the samples exactly as stored (no gamma or colour management). Palette
// and low-depth grey expand to 8 bits, grey to three equal planes. An alpha channel (or tRNS) is
// composited over a mid-grey background, c' = a*c + (1 - a)*0.5, rounded to the sample depth, so
// a fully opaque image reads exactly as its colour samples.
//
// libpng reports errors with longjmp, so every call that may fail runs in a small function whose
// frame holds nothing with a destructor; the message is turned into InputError afterwards.
#include <png.h>

#include <bit>
#include <csetjmp>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "core/png_errors.h"
#include "io/file_stream.h"
#include "io/readers.h"

namespace vqx {
namespace {

static_assert(std::endian::native == std::endian::little,
              "16-bit samples are swapped to little-endian host order");

// The decoder's libpng structures and the message of its last error.
struct PngReadState {
  png_structp png = nullptr;
  png_infop info = nullptr;
  PngError error;
};

struct PngHeader {
  uint32_t width = 0, height = 0;
  unsigned channels = 0;  // after the transforms: 3 (RGB) or 4 (RGBA)
  unsigned depth = 0;     // 8 or 16
  size_t row_bytes = 0;
};

// Reads the header and sets up the transforms. Returns false with state.error.message on error.
bool read_header(PngReadState& state, std::FILE* file, PngHeader& header) {
  if (setjmp(png_jmpbuf(state.png))) return false;
  png_init_io(state.png, file);
  png_set_sig_bytes(state.png, 8);
  // The dimension limit is checked by validate_format as well; this keeps libpng from allocating.
  png_set_user_limits(state.png, kMaxDimension, kMaxDimension);
  png_set_benign_errors(state.png, 0);  // a truncated or inconsistent stream is an error
  png_read_info(state.png, state.info);
  const png_byte color = png_get_color_type(state.png, state.info);
  const png_byte depth = png_get_bit_depth(state.png, state.info);
  png_set_expand(state.png);  // palette -> RGB, grey < 8 bits -> 8, tRNS -> alpha
  if (color == PNG_COLOR_TYPE_GRAY || color == PNG_COLOR_TYPE_GRAY_ALPHA)
    png_set_gray_to_rgb(state.png);
  if (depth == 16) png_set_swap(state.png);
  png_set_interlace_handling(state.png);
  png_read_update_info(state.png, state.info);
  header.width = png_get_image_width(state.png, state.info);
  header.height = png_get_image_height(state.png, state.info);
  header.channels = png_get_channels(state.png, state.info);
  header.depth = png_get_bit_depth(state.png, state.info);
  header.row_bytes = png_get_rowbytes(state.png, state.info);
  return true;
}

bool read_pixels(PngReadState& state, png_bytepp rows) {
  if (setjmp(png_jmpbuf(state.png))) return false;
  png_read_image(state.png, rows);
  png_read_end(state.png, nullptr);
  return true;
}

// Mid-grey composite of one sample, in double, rounded to the nearest integer.
template <typename Sample>
Sample over_grey(Sample c, Sample a, double max) {
  const double alpha = double(a) / max;
  const double v = (double(c) / max) * alpha + (1.0 - alpha) * 0.5;
  return Sample(v * max + 0.5);
}

template <typename Sample>
void split_planes(const std::vector<uint8_t>& pixels, const PngHeader& h, Picture& picture) {
  const double max = h.depth == 16 ? 65535.0 : 255.0;
  Sample* planes[3] = {picture.plane<Sample>(0), picture.plane<Sample>(1), picture.plane<Sample>(2)};
  for (uint32_t y = 0; y < h.height; ++y) {
    const Sample* row = reinterpret_cast<const Sample*>(pixels.data() + size_t{y} * h.row_bytes);
    for (uint32_t x = 0; x < h.width; ++x) {
      const Sample* px = row + size_t{x} * h.channels;
      const size_t i = size_t{y} * h.width + x;
      for (unsigned c = 0; c < 3; ++c)
        planes[c][i] = h.channels == 4 ? over_grey<Sample>(px[c], px[3], max) : px[c];
    }
  }
}

class PngReader final : public FrameSource {
 public:
  // `label` names the input in messages, e.g. "reference 'a.png'".
  PngReader(FileHandle file, const std::string& label) : FrameSource(label) {
    auto fail = [&](const std::string& why) { throw InputError(fmt::format("{}: {}", label, why)); };
    png_byte signature[8];
    if (read_fully(file.get(), signature, 8) != 8 || png_sig_cmp(signature, 0, 8) != 0)
      fail("not a PNG file");

    PngReadState state;
    state.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &state.error, record_png_error,
                                       ignore_png_warning);
    if (state.png) state.info = png_create_info_struct(state.png);
    if (!state.png || !state.info) {
      png_destroy_read_struct(&state.png, &state.info, nullptr);
      throw RuntimeFailure("cannot allocate the PNG decoder");
    }
    struct Cleanup {
      PngReadState& s;
      ~Cleanup() { png_destroy_read_struct(&s.png, &s.info, nullptr); }
    } cleanup{state};

    PngHeader header;
    if (!read_header(state, file.get(), header))
      fail(fmt::format("invalid PNG ({})", state.error.message));
    if (header.channels != 3 && header.channels != 4)
      fail(fmt::format("unsupported PNG layout ({} channels after expansion)", header.channels));

    format_.width = header.width;
    format_.height = header.height;
    format_.subsampling = ChromaSubsampling::k444;
    format_.bit_depth = uint8_t(header.depth == 16 ? 16 : 8);
    format_.range = ColorRange::kFull;
    format_.color = ColorModel::kRGB;
    validate_format(format_, label);

    std::vector<uint8_t> pixels(header.row_bytes * header.height);
    std::vector<png_bytep> rows(header.height);
    for (uint32_t y = 0; y < header.height; ++y) rows[y] = pixels.data() + size_t{y} * header.row_bytes;
    if (!read_pixels(state, rows.data()))
      fail(fmt::format("corrupt or truncated PNG ({})", state.error.message));

    image_ = Picture(format_);
    if (header.depth == 16) split_planes<uint16_t>(pixels, header, image_);
    else split_planes<uint8_t>(pixels, header, image_);
  }

  const PictureFormat& format() const override { return format_; }

  bool read(Picture& picture) override {
    if (frames_read_ > 0) return false;
    std::memcpy(picture.bytes(), image_.bytes(), image_.size_bytes());
    ++frames_read_;
    return true;
  }

 private:
  PictureFormat format_;
  Picture image_;
};

}  // namespace

std::unique_ptr<FrameSource> open_png(const std::string& path, const std::string& name) {
  return std::make_unique<PngReader>(open_for_reading(path, name), fmt::format("{} '{}'", name, path));
}

std::unique_ptr<FrameSource> open_png_stream(std::FILE* stream, const std::string& label) {
  return std::make_unique<PngReader>(FileHandle(stream), label);
}

}  // namespace vqx
