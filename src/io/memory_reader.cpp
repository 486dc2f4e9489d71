#include <cstring>

#include "core/error.h"
#include "io/readers.h"

namespace vqx {
namespace {

// Frames already in memory (tests, benchmarks, library users), copied out one by one.
class MemoryReader final : public FrameSource {
 public:
  MemoryReader(const std::vector<Picture>& pictures, std::string name)
      : FrameSource(std::move(name)), pictures_(pictures) {
    if (pictures_.empty()) throw InputError(name_ + ": no frames");
  }
  const PictureFormat& format() const override { return pictures_.front().format(); }
  bool read(Picture& picture) override {
    if (frames_read_ >= pictures_.size()) return false;
    const Picture& src = pictures_[frames_read_++];
    std::memcpy(picture.bytes(), src.bytes(), src.size_bytes());
    return true;
  }

 private:
  const std::vector<Picture>& pictures_;
};

}  // namespace

std::unique_ptr<FrameSource> open_memory(const std::vector<Picture>& pictures, const std::string& name) {
  return std::make_unique<MemoryReader>(pictures, name);
}

}  // namespace vqx
