// libpng reports errors with longjmp, so the calls that may fail run in a function whose frame
// holds nothing with a destructor; the message becomes a RuntimeFailure afterwards.
#include "output/png_encoder.h"

#include <png.h>

#include <csetjmp>
#include <cstdio>
#include <vector>

#include "core/error.h"
#include "core/png_errors.h"

namespace vqx {
namespace {

struct PngWrite {
  std::string* bytes = nullptr;
};

void append(png_structp png, png_bytep data, png_size_t length) {
  auto* write = static_cast<PngWrite*>(png_get_io_ptr(png));
  write->bytes->append(reinterpret_cast<const char*>(data), length);
}
void no_flush(png_structp) {}

bool write_image(png_structp png, png_infop info, PngWrite& write, const Thumbnail& t, png_bytep* rows) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_write_fn(png, &write, append, no_flush);
  png_set_IHDR(png, info, t.width, t.height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_set_compression_level(png, 9);  // thumbnails are few and small: the smallest file
  png_write_info(png, info);
  png_write_image(png, rows);
  png_write_end(png, nullptr);
  return true;
}

}  // namespace

std::string encode_png(const Thumbnail& thumbnail) {
  std::string bytes;
  PngWrite write{&bytes};
  PngError error;
  png_structp png =
      png_create_write_struct(PNG_LIBPNG_VER_STRING, &error, record_png_error, ignore_png_warning);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!info) {
    png_destroy_write_struct(&png, nullptr);
    throw RuntimeFailure("cannot start the PNG encoder for a report thumbnail");
  }
  std::vector<png_bytep> rows(thumbnail.height);
  for (uint32_t y = 0; y < thumbnail.height; ++y)
    rows[y] = const_cast<png_bytep>(thumbnail.rgb.data() + size_t(y) * thumbnail.width * 3);
  const bool ok = write_image(png, info, write, thumbnail, rows.data());
  png_destroy_write_struct(&png, &info);
  if (!ok) throw RuntimeFailure(std::string("cannot encode a report thumbnail as PNG: ") + error.message);
  return bytes;
}

}  // namespace vqx
