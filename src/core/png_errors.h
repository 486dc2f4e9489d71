#pragma once
// libpng's error and warning callbacks, shared by the PNG reader (io) and encoder (output).
// libpng reports an error by calling the error callback, which must not return: this one keeps
// the message and longjmps back to the caller's setjmp(png_jmpbuf(png)). Warnings (problems
// libpng works around) are dropped.
#include <png.h>

#include <cstdio>

namespace vqx {

// The message of the last libpng error. Pass its address as the error pointer:
//   png_create_read_struct(PNG_LIBPNG_VER_STRING, &error, record_png_error, ignore_png_warning)
struct PngError {
  char message[256] = {};
};

[[noreturn]] inline void record_png_error(png_structp png, png_const_charp text) {
  auto* error = static_cast<PngError*>(png_get_error_ptr(png));
  std::snprintf(error->message, sizeof error->message, "%s", text ? text : "libpng error");
  png_longjmp(png, 1);
}

inline void ignore_png_warning(png_structp, png_const_charp) {}

}  // namespace vqx
