// YUV4MPEG2 reader. Header grammar: "YUV4MPEG2" then space-separated tags up to '\n'; each frame
// is "FRAME" + optional space-separated parameters + '\n', then the planes as in a raw .yuv file.
#include <fmt/format.h>

#include <bit>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "io/file_stream.h"
#include "io/readers.h"

namespace vqx {
namespace {

static_assert(std::endian::native == std::endian::little,
              "16-bit samples are stored little-endian in files and read in place");

constexpr size_t kMaxHeaderBytes = 4096;

struct ColorTag {
  std::string_view tag;
  ChromaSubsampling subsampling;
  uint8_t bit_depth;
};

// Every 'C' tag ffmpeg and the mjpegtools write for planar Y'CbCr. The 4:2:0 siting variants
// (jpeg, mpeg2, paldv) differ only in chroma position, which no metric here models.
constexpr ColorTag kColorTags[] = {
    {"420", ChromaSubsampling::k420, 8},       {"420jpeg", ChromaSubsampling::k420, 8},
    {"420mpeg2", ChromaSubsampling::k420, 8},  {"420paldv", ChromaSubsampling::k420, 8},
    {"420p9", ChromaSubsampling::k420, 9},     {"420p10", ChromaSubsampling::k420, 10},
    {"420p12", ChromaSubsampling::k420, 12},   {"420p14", ChromaSubsampling::k420, 14},
    {"420p16", ChromaSubsampling::k420, 16},   {"422", ChromaSubsampling::k422, 8},
    {"422p9", ChromaSubsampling::k422, 9},     {"422p10", ChromaSubsampling::k422, 10},
    {"422p12", ChromaSubsampling::k422, 12},   {"422p14", ChromaSubsampling::k422, 14},
    {"422p16", ChromaSubsampling::k422, 16},   {"444", ChromaSubsampling::k444, 8},
    {"444p9", ChromaSubsampling::k444, 9},     {"444p10", ChromaSubsampling::k444, 10},
    {"444p12", ChromaSubsampling::k444, 12},   {"444p14", ChromaSubsampling::k444, 14},
    {"444p16", ChromaSubsampling::k444, 16},   {"mono", ChromaSubsampling::k400, 8},
    {"mono9", ChromaSubsampling::k400, 9},     {"mono10", ChromaSubsampling::k400, 10},
    {"mono12", ChromaSubsampling::k400, 12},   {"mono14", ChromaSubsampling::k400, 14},
    {"mono16", ChromaSubsampling::k400, 16},
};

bool parse_positive(std::string_view text, uint32_t& out) {
  if (text.empty() || text.size() > 9) return false;
  uint32_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + uint32_t(c - '0');
  }
  out = v;
  return true;
}

class Y4mReader final : public FrameSource {
 public:
  Y4mReader(FileHandle file, std::string name) : FrameSource(std::move(name)), file_(std::move(file)) {
    parse_header();
  }

  const PictureFormat& format() const override { return format_; }

  bool read(Picture& picture) override {
    std::FILE* f = file_.get();
    int c = std::fgetc(f);
    if (c == EOF) return false;
    char magic[5] = {char(c)};
    if (read_fully(f, magic + 1, 4) != 4 || std::memcmp(magic, "FRAME", 5) != 0)
      fail(fmt::format("frame {}: expected a FRAME marker", frames_read_));
    // Frame parameters, if any, run to the newline.
    size_t param_bytes = 0;
    for (;;) {
      c = std::fgetc(f);
      if (c == '\n') break;
      if (c == EOF) fail(fmt::format("frame {}: truncated frame header", frames_read_));
      if (param_bytes == 0 && c != ' ')
        fail(fmt::format("frame {}: malformed FRAME marker", frames_read_));
      if (++param_bytes > kMaxHeaderBytes)
        fail(fmt::format("frame {}: frame header longer than {} bytes", frames_read_, kMaxHeaderBytes));
    }
    size_t want = format_.frame_bytes();
    size_t got = read_fully(f, picture.bytes(), want);
    if (got != want)
      fail(fmt::format("frame {} is truncated: {} of {} bytes", frames_read_, got, want));
    ++frames_read_;
    return true;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(fmt::format("{}: {}", name_, what));
  }

  void parse_header() {
    std::FILE* f = file_.get();
    std::string header;
    for (;;) {
      int c = std::fgetc(f);
      if (c == EOF) {
        if (header.empty()) fail("file is empty");
        fail("truncated Y4M header (no end of line)");
      }
      if (c == '\n') break;
      header.push_back(char(c));
      if (header.size() > kMaxHeaderBytes)
        fail(fmt::format("Y4M header longer than {} bytes", kMaxHeaderBytes));
    }
    std::string_view h(header);
    if (h.substr(0, 9) != "YUV4MPEG2" || (h.size() > 9 && h[9] != ' '))
      fail("not a Y4M file (no YUV4MPEG2 signature)");
    bool have_w = false, have_h = false, have_f = false;
    std::string_view color = "420";
    size_t pos = 9;
    while (pos < h.size()) {
      if (h[pos] == ' ') {
        ++pos;
        continue;
      }
      size_t end = h.find(' ', pos);
      if (end == std::string_view::npos) end = h.size();
      std::string_view tag = h.substr(pos, end - pos);
      std::string_view value = tag.substr(1);
      switch (tag[0]) {
        case 'W':
          if (!parse_positive(value, format_.width)) fail(fmt::format("bad width tag '{}'", tag));
          have_w = true;
          break;
        case 'H':
          if (!parse_positive(value, format_.height)) fail(fmt::format("bad height tag '{}'", tag));
          have_h = true;
          break;
        case 'F': {
          size_t colon = value.find(':');
          uint32_t num = 0, den = 0;
          if (colon == std::string_view::npos || !parse_positive(value.substr(0, colon), num) ||
              !parse_positive(value.substr(colon + 1), den))
            fail(fmt::format("bad frame-rate tag '{}'", tag));
          have_f = true;
          break;
        }
        case 'I':
          if (value != "p" && value != "?")
            fail(fmt::format("interlaced input (I{}) is not supported; deinterlace it first", value));
          break;
        case 'C':
          color = value;
          break;
        case 'X':
          if (value.substr(0, 11) == "COLORRANGE=") {
            std::string_view r = value.substr(11);
            if (r == "LIMITED") format_.range = ColorRange::kLimited;
            else if (r == "FULL") format_.range = ColorRange::kFull;
          }
          break;
        case 'A':  // pixel aspect ratio: no metric uses it
          break;
        default:
          fail(fmt::format("unknown Y4M header tag '{}'", tag));
      }
      pos = end;
    }
    if (!have_w || !have_h) fail("Y4M header lacks the W or H tag");
    if (!have_f) fail("Y4M header lacks the F (frame rate) tag");
    const ColorTag* found = nullptr;
    for (const auto& ct : kColorTags)
      if (ct.tag == color) found = &ct;
    if (!found)
      fail(fmt::format("colour space C{} is not supported (planar 4:2:0, 4:2:2, 4:4:4 or mono, 8-16 bit)",
                       color));
    format_.subsampling = found->subsampling;
    format_.bit_depth = found->bit_depth;
    validate_format(format_, name_);
  }

  FileHandle file_;
  PictureFormat format_;
};

class RawYuvReader final : public FrameSource {
 public:
  RawYuvReader(FileHandle file, const PictureFormat& format, std::string name)
      : FrameSource(std::move(name)), file_(std::move(file)), format_(format) {}
  const PictureFormat& format() const override { return format_; }
  bool read(Picture& picture) override {
    size_t want = format_.frame_bytes();
    size_t got = read_fully(file_.get(), picture.bytes(), want);
    if (got == 0) return false;
    if (got != want)
      throw InputError(fmt::format("{}: frame {} is truncated: {} of {} bytes", name_, frames_read_,
                                   got, want));
    ++frames_read_;
    return true;
  }

 private:
  FileHandle file_;
  PictureFormat format_;
};

PictureFormat raw_format(const RawYuvLayout& layout) {
  PictureFormat format;
  format.width = layout.width;
  format.height = layout.height;
  format.subsampling = layout.subsampling;
  format.bit_depth = layout.bit_depth;
  return format;
}

}  // namespace

std::unique_ptr<FrameSource> open_y4m(const std::string& path, const std::string& name) {
  return std::make_unique<Y4mReader>(open_for_reading(path, name), fmt::format("{} '{}'", name, path));
}

std::unique_ptr<FrameSource> open_y4m_stream(std::FILE* stream, const std::string& name) {
  return std::make_unique<Y4mReader>(FileHandle(stream), name);
}

std::unique_ptr<FrameSource> open_raw_yuv(const std::string& path, const RawYuvLayout& layout,
                                          const std::string& name) {
  std::string label = fmt::format("{} '{}'", name, path);
  validate_format(raw_format(layout), label);
  return open_raw_yuv_stream(open_for_reading(path, name).release(), layout, label);
}

std::unique_ptr<FrameSource> open_raw_yuv_stream(std::FILE* stream, const RawYuvLayout& layout,
                                                 const std::string& label) {
  FileHandle file(stream);
  PictureFormat format = raw_format(layout);
  validate_format(format, label);
  return std::make_unique<RawYuvReader>(std::move(file), format, label);
}

}  // namespace vqx
