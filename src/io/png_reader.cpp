// Placeholder until PNG input lands with the SSIMULACRA2 image mode.
#include "engine/error.h"
#include "io/frame_reader.h"

namespace vqx {

std::unique_ptr<FrameReader> open_png(const std::string& path, const std::string& name) {
  throw InputError(name + " '" + path + "': PNG input is not supported yet");
}

}  // namespace vqx
