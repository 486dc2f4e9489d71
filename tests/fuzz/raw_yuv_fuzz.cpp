// Feeds a raw YUV layout and file to the raw reader: the first six bytes are the geometry the CLI
// takes from -w/-h/-p/-b (width and height little-endian, then layout and bit depth, each taken
// modulo the choices plus invalid ones), the rest is the file. The reader must validate the
// geometry, read whole frames and throw InputError for a partial one; never crash or over-read.
#include <cstdint>

#include "core/error.h"
#include "fuzz_input.h"
#include "io/readers.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vqx;
  fuzz::Cursor in(data, size);
  RawYuvLayout layout;
  layout.width = in.u16();
  layout.height = in.u16();
  constexpr ChromaSubsampling kLayouts[] = {ChromaSubsampling::k420, ChromaSubsampling::k422,
                                            ChromaSubsampling::k444};
  layout.subsampling = kLayouts[in.byte() % 3];
  layout.bit_depth = in.byte();
  fuzz::MemoryFile file(in.rest(), in.rest_size());
  if (!file.ok()) return 0;
  try {
    auto reader = open_raw_yuv(file.path(), layout, "fuzz");
    // A layout may legally describe frames far larger than the file; cap what is allocated.
    if (reader->format().frame_bytes() > (size_t{1} << 22)) return 0;
    Picture picture(reader->format());
    for (int i = 0; i < 16 && reader->read(picture); ++i) {
    }
  } catch (const InputError&) {
  }
  return 0;
}
