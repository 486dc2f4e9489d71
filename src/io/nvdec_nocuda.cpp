// CPU-only builds: there is no NVDEC path; compressed input goes to the software decoder.
#include "io/av_decoder.h"
#include "io/nvdec.h"

namespace vqx {

bool nvdec_built() { return false; }

std::unique_ptr<FrameSource> open_nvdec(std::unique_ptr<AvDemuxer>& demuxer, const NvdecSettings&, std::string*) {
  throw HardwareDecodeRefused(demuxer->label() + ": NVDEC needs a CUDA build of vqx");
}

}  // namespace vqx
