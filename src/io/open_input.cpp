#include "io/open_input.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cctype>
#include <cstring>
#include <future>

#include "core/error.h"
#include "io/av_decoder.h"
#include "io/decoded_source.h"
#include "io/input_stream.h"
#include "io/nvdec.h"
#include "io/read_ahead.h"
#include "io/scaler.h"
#include "io/y4m_parallel.h"

namespace vqx {
namespace {

constexpr uint8_t kPngSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

bool has_extension(const std::string& path, const char* ext) {
  size_t n = std::strlen(ext);
  if (path.size() < n) return false;
  for (size_t i = 0; i < n; ++i)
    if (std::tolower(static_cast<unsigned char>(path[path.size() - n + i])) != ext[i]) return false;
  return true;
}

void refuse_stream_selection(const InputOptions& options, const std::string& label, const char* kind) {
  if (!options.stream.is_default())
    throw InputError(fmt::format("{}: a {} input holds one stream; stream selection applies to containers",
                                 label, kind));
}

void refuse_raw_without_layout(const std::string& path, const InputOptions& options, const std::string& name) {
  if (!options.raw && has_extension(path, ".yuv"))
    throw UsageError(fmt::format("{} '{}' looks like raw YUV: give -w, -h, -p and -b", name, path));
}

bool is_fifo(const std::string& path) {
  struct stat st {};
  return path != "-" && ::stat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
}

// Opening a FIFO waits for its writer; a writer of both may open them in either order.
std::pair<std::unique_ptr<InputStream>, std::unique_ptr<InputStream>> open_streams(const std::string& reference,
                                                                                   const std::string& distorted) {
  if (!is_fifo(reference) || !is_fifo(distorted))
    return {std::make_unique<InputStream>(reference, "reference"), std::make_unique<InputStream>(distorted, "distorted")};
  auto pending = std::async(std::launch::async, [&] { return std::make_unique<InputStream>(distorted, "distorted"); });
  auto first = std::make_unique<InputStream>(reference, "reference");
  return {std::move(first), pending.get()};
}

}  // namespace

InputKind sniff_input(std::span<const uint8_t> head) {
  if (head.empty()) return InputKind::kEmpty;
  if (head.size() >= 9 && std::memcmp(head.data(), "YUV4MPEG2", 9) == 0) return InputKind::kY4m;
  if (head.size() >= 8 && std::memcmp(head.data(), kPngSignature, 8) == 0) return InputKind::kPng;
  return InputKind::kOther;
}

DecoderChoice parse_decoder_choice(const std::string& text) {
  if (text == "auto") return DecoderChoice::kAuto;
  if (text == "cpu") return DecoderChoice::kCpu;
  if (text == "nvdec") return DecoderChoice::kNvdec;
  throw UsageError(fmt::format("--decoder {}: expected auto, cpu or nvdec", text));
}

OpenedInput open_input(const std::string& path, const InputOptions& options, const std::string& name) {
  refuse_raw_without_layout(path, options, name);
  return open_input(std::make_unique<InputStream>(path, name), options, name);
}

OpenedInput open_input(std::unique_ptr<InputStream> stream, const InputOptions& options, const std::string& name) {
  const std::string label = stream->label();
  OpenedInput opened;
  opened.sequential = !stream->regular_file();
  if (options.raw) {
    refuse_stream_selection(options, label, "raw YUV");
    opened.source = open_raw_yuv_stream(InputStream::into_file(std::move(stream)).release(), *options.raw, label);
    return opened;
  }
  switch (sniff_input(stream->peek(kSniffBytes))) {
    case InputKind::kEmpty:
      throw InputError(fmt::format("{}: file is empty", label));
    case InputKind::kY4m:
      refuse_stream_selection(options, label, "Y4M");
      if (stream->regular_file())
        opened.source = open_y4m_parallel(stream->path(), name, options.y4m_read_threads);
      else
        opened.source = open_y4m_stream(InputStream::into_file(std::move(stream)).release(), label);
      return opened;
    case InputKind::kPng:
      refuse_stream_selection(options, label, "PNG");
      opened.source = open_png_stream(InputStream::into_file(std::move(stream)).release(), label);
      return opened;
    case InputKind::kOther:
      break;
  }
  auto demuxer = std::make_unique<AvDemuxer>(std::move(stream), options.stream);
  std::string nvdec_refusal;
  if (options.decoder != DecoderChoice::kCpu) {
    if (options.gpu < 0) {
      if (options.decoder == DecoderChoice::kNvdec)
        throw RuntimeFailure(
            nvdec_built() ? fmt::format("{}: --decoder nvdec decodes for a run on a CUDA device, and this run has none",
                                        label)
                          : fmt::format("{}: --decoder nvdec: this vqx has no NVDEC decoder; use --decoder cpu", label));
    } else {
      try {
        opened.source = open_nvdec(demuxer, {options.gpu, options.warn}, &opened.decoder);
        opened.sequential = false;  // it decodes ahead on a thread of its own
        return opened;
      } catch (const HardwareDecodeRefused& refused) {
        if (options.decoder == DecoderChoice::kNvdec) throw;
        nvdec_refusal = refused.what();  // "<label>: NVDEC ..."
        if (nvdec_refusal.rfind(label + ": ", 0) == 0) nvdec_refusal.erase(0, label.size() + 2);
      }
    }
  }
  DecodedSourceInfo info;
  opened.source = open_decoded(std::move(demuxer), {options.decoder_threads, options.warn}, &info);
  opened.decoder = info.decoder;
  opened.sequential = true;
  if (!nvdec_refusal.empty()) opened.decoder += "; not NVDEC: " + nvdec_refusal;
  return opened;
}

InputPair open_input_pair(const std::string& reference, const InputOptions& reference_options,
                          const std::string& distorted, const InputOptions& distorted_options,
                          std::optional<ScaleMode> scale) {
  refuse_raw_without_layout(reference, reference_options, "reference");
  refuse_raw_without_layout(distorted, distorted_options, "distorted");
  auto [reference_stream, distorted_stream] = open_streams(reference, distorted);
  InputPair pair;
  pair.reference = open_input(std::move(reference_stream), reference_options, "reference");
  if (pair.reference.sequential) pair.reference.source = read_ahead(std::move(pair.reference.source));
  pair.distorted = open_input(std::move(distorted_stream), distorted_options, "distorted");
  const PictureFormat& target = pair.reference.source->format();
  const PictureFormat& rung = pair.distorted.source->format();
  if (scale && (rung.width != target.width || rung.height != target.height)) {
    pair.distorted.source = scale_frames(std::move(pair.distorted.source), target.width, target.height, *scale);
    pair.distorted.sequential = true;
  }
  if (pair.distorted.sequential) pair.distorted.source = read_ahead(std::move(pair.distorted.source));
  return pair;
}

}  // namespace vqx
