// Feeds arbitrary bytes to -r/-d as a file: sniffed by content, and anything that is neither Y4M
// nor PNG goes through FFmpeg's demuxers and software decoders (io/av_demuxer.h,
// io/decoded_source.h). Opening and decoding must give frames or throw InputError (or, for a
// stream this build cannot decode, RuntimeFailure), never crash, hang or read out of bounds in
// vqx's wrapper and conversion.
#include <cstdint>

extern "C" {
#include <libavutil/log.h>
}

#include "core/error.h"
#include "fuzz_input.h"
#include "io/open_input.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  av_log_set_level(AV_LOG_QUIET);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vqx;
  fuzz::MemoryFile file(data, size);
  if (!file.ok()) return 0;
  InputOptions options;
  options.decoder = DecoderChoice::kCpu;
  options.decoder_threads = 1;
  options.warn = [](const std::string&) {};
  try {
    OpenedInput input = open_input(file.path(), options, "fuzz");
    // A header may legally describe frames far larger than the input; cap what is allocated.
    if (input.source->format().frame_bytes() > (size_t{1} << 22)) return 0;
    Picture picture(input.source->format());
    for (int i = 0; i < 8 && input.source->read(picture); ++i) {
    }
  } catch (const InputError&) {
  } catch (const RuntimeFailure&) {
  }
  return 0;
}
