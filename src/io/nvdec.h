#pragma once
// Compressed video decoded by NVDEC into device memory, for the CUDA backend: the frames stay
// there (FrameSource::device_frames()) and read() brings one to the host only when asked.
#include <functional>
#include <memory>
#include <string>

#include "core/frame_source.h"
#include "io/av_demuxer.h"

namespace vqx {

// Whether this vqx has the NVDEC decoder (a CUDA build).
bool nvdec_built();

struct NvdecSettings {
  int gpu = 0;                                   // the CUDA device (vqx's --gpu)
  std::function<void(const std::string&)> warn;  // notices that do not stop scoring
};

// Opens the demuxer's stream on NVDEC and decodes its first frame; takes the demuxer on success.
// Throws HardwareDecodeRefused (io/av_decoder.h) when NVDEC cannot decode the stream (its codec,
// before any device work; its profile, depth, chroma layout or size; no usable device), the
// demuxer left to the caller with the packets it read kept for replay by a software decoder.
// `description` receives e.g. "hevc (libavcodec, NVDEC)".
std::unique_ptr<FrameSource> open_nvdec(std::unique_ptr<AvDemuxer>& demuxer, const NvdecSettings& settings,
                                        std::string* description);

}  // namespace vqx
