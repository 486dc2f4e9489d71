#pragma once
// Opens a -r/-d input by its content, whether a file, a pipe, a FIFO or standard input ("-"):
// Y4M (the "YUV4MPEG2" signature) goes to vqx's Y4M reader, PNG (its signature) to libpng,
// anything else to FFmpeg's libraries (containers and elementary streams, probed by content).
// Raw YUV has no signature: it is read only when a layout (-w -h -p -b) is given.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "core/frame_source.h"
#include "core/scale_filter.h"
#include "io/av_demuxer.h"
#include "io/input_stream.h"
#include "io/readers.h"

namespace vqx {

enum class InputKind : uint8_t { kEmpty, kY4m, kPng, kOther };
// What the first bytes of an input say it is (kSniffBytes of them, fewer for a shorter input).
inline constexpr size_t kSniffBytes = 16;
InputKind sniff_input(std::span<const uint8_t> head);

// Who decodes compressed video. kAuto is NVDEC where the run has a CUDA device and NVDEC decodes
// the stream (its codec, profile, depth and chroma layout), else the software decoder.
enum class DecoderChoice : uint8_t { kAuto, kCpu, kNvdec };
// "auto", "cpu" or "nvdec"; throws UsageError.
DecoderChoice parse_decoder_choice(const std::string& text);

struct InputOptions {
  std::optional<RawYuvLayout> raw;  // headerless YUV of this layout
  StreamSelector stream;            // which stream of a container
  DecoderChoice decoder = DecoderChoice::kAuto;
  int gpu = -1;  // the CUDA device the run scores on, where NVDEC may decode; -1: none
  unsigned decoder_threads = 0;   // frame threads of a software decoder (0: one per core)
  unsigned y4m_read_threads = 1;  // concurrent reads per frame of a Y4M file (not a pipe)
  std::function<void(const std::string&)> warn;  // notices that do not stop scoring
};

struct OpenedInput {
  std::unique_ptr<FrameSource> source;
  std::string decoder;  // what decodes it, e.g. "h264 (libavcodec, software, 8 frame threads)"; empty for raw input
  // Decoded in software, or read from a pipe: gains from a reading thread of its own (NVDEC's
  // decoder runs ahead on a thread of its own).
  bool sequential = false;
};

// `name` is "reference" or "distorted". Throws UsageError for a request that cannot apply (a .yuv
// file without a layout), InputError for input that cannot be read, RuntimeFailure for a decoder
// this build lacks.
OpenedInput open_input(const std::string& path, const InputOptions& options, const std::string& name);
OpenedInput open_input(std::unique_ptr<InputStream> stream, const InputOptions& options, const std::string& name);

struct InputPair {
  OpenedInput reference, distorted;
};

// Opens both inputs as the CLI reads them. With `scale`, distorted frames of another size than the
// reference's are scaled to it (io/scaler.h). Each input that is decoded, scaled or read from a
// pipe gets a reading thread of its own (io/read_ahead.h), so the two are read at the same time
// and ahead of the metrics. Two FIFOs are opened at once and the reference's thread starts before
// the distorted input is read, so one process writing both FIFOs in turn does not wait on vqx.
InputPair open_input_pair(const std::string& reference, const InputOptions& reference_options,
                          const std::string& distorted, const InputOptions& distorted_options,
                          std::optional<ScaleMode> scale = std::nullopt);

}  // namespace vqx
