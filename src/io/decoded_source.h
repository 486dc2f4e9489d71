#pragma once
// Frames decoded from a container or elementary stream: the demuxer's packets through a decoder,
// each frame converted to vqx's layout.
#include <functional>
#include <memory>
#include <string>

#include "core/frame_source.h"
#include "io/av_demuxer.h"

namespace vqx {

struct DecodedSourceInfo {
  std::string decoder;  // what decodes it, e.g. "h264 (libavcodec, software, 8 frame threads)"
};

struct DecoderSettings {
  unsigned threads = 0;                            // frame threads (0: one per core)
  std::function<void(const std::string&)> warn;   // notices that do not stop scoring
};

// Decodes the first frame to learn the format. Throws InputError when the stream holds no frame,
// is interlaced, or its pixel format cannot be taken.
std::unique_ptr<FrameSource> open_decoded(std::unique_ptr<AvDemuxer> demuxer, const DecoderSettings& settings,
                                          DecodedSourceInfo* info = nullptr);

}  // namespace vqx
