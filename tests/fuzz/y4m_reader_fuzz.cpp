// Feeds arbitrary bytes to the Y4M reader: it must either read frames or throw InputError, never
// crash, hang, or read out of bounds.
#include <cstdint>
#include <cstdio>

#include "core/error.h"
#include "io/readers.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::FILE* stream = fmemopen(const_cast<uint8_t*>(data), size, "rb");
  if (!stream) return 0;
  try {
    auto reader = vqx::open_y4m_stream(stream, "fuzz");
    // Headers may legally describe frames far larger than the input; cap what we allocate.
    if (reader->format().frame_bytes() > (size_t{1} << 22)) return 0;
    vqx::Picture picture(reader->format());
    for (int i = 0; i < 64 && reader->read(picture); ++i) {
    }
  } catch (const vqx::InputError&) {
  }
  return 0;
}
