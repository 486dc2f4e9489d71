// Feeds arbitrary bytes to the PNG reader (libpng underneath): it must return one picture or throw
// InputError, never crash, hang or read out of bounds.
#include <cstdint>

#include "core/error.h"
#include "fuzz_input.h"
#include "io/readers.h"

namespace {

uint32_t big_endian(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A header may legally describe an image far larger than the input (the reader finds the
  // stream short only after allocating it); keep the fuzzer's allocations small.
  if (size >= 24 && uint64_t{big_endian(data + 16)} * big_endian(data + 20) > (uint64_t{1} << 20))
    return 0;
  vqx::fuzz::MemoryFile file(data, size);
  if (!file.ok()) return 0;
  try {
    auto reader = vqx::open_png(file.path(), "fuzz");
    vqx::Picture picture(reader->format());
    while (reader->read(picture)) {
    }
  } catch (const vqx::InputError&) {
  }
  return 0;
}
