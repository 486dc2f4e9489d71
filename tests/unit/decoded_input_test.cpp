// Compressed input through open_input: content sniffing, stream selection, every container giving
// the frames ffmpeg gives (picture bytes), and the refusals: truncated and damaged streams (named
// with the frame), alpha and interlaced video, audio only, files FFmpeg does not recognise.
#include <fmt/format.h>
#include <gmock/gmock.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "core/error.h"
#include "io/open_input.h"
#include "io/readers.h"
#include "support/encodes.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

using ::testing::HasSubstr;

std::vector<char> file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void put_bytes(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
}

std::unique_ptr<FrameSource> open_decoded_file(const std::string& path, InputOptions options = {}) {
  return open_input(path, options, "distorted").source;
}

// Reads every frame; returns how many.
uint64_t read_all(FrameSource& source) {
  Picture picture(source.format());
  uint64_t n = 0;
  while (source.read(picture)) ++n;
  return n;
}

// The message of the InputError that opening or reading `path` throws ("" when none is thrown).
std::string input_error(const std::string& path, InputOptions options = {}) {
  try {
    auto source = open_decoded_file(path, options);
    read_all(*source);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Sniffing, SignaturesChooseTheReader) {
  auto kind = [](std::string_view bytes) {
    return sniff_input({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
  };
  EXPECT_EQ(kind(""), InputKind::kEmpty);
  EXPECT_EQ(kind("YUV4MPEG2 W64 H48"), InputKind::kY4m);
  EXPECT_EQ(kind("YUV4MPEG2\n"), InputKind::kY4m);
  EXPECT_EQ(kind("YUV4MPE"), InputKind::kOther);
  EXPECT_EQ(kind("\x89PNG\r\n\x1a\n...."), InputKind::kPng);
  EXPECT_EQ(kind("\x1a\x45\xdf\xa3 matroska"), InputKind::kOther);
  EXPECT_EQ(kind("this is not a video"), InputKind::kOther);
}

TEST(Sniffing, ContentNotTheExtensionDecides) {
  VQX_REQUIRE_ENCODE("syn_h264.mkv", mkv);
  const std::string renamed = temp_path("really_matroska.y4m");
  std::filesystem::copy_file(mkv, renamed, std::filesystem::copy_options::overwrite_existing);
  auto opened = open_input(renamed, {}, "distorted");
  EXPECT_THAT(opened.decoder, HasSubstr("h264"));
  EXPECT_EQ(read_all(*opened.source), 12u);

  auto y4m_as_mp4 = temp_path("really_y4m.mp4");
  write_y4m(y4m_as_mp4, make_pictures(make_format(16, 8), {1, 2}));
  auto y4m = open_input(y4m_as_mp4, {}, "reference");
  EXPECT_TRUE(y4m.decoder.empty());
  EXPECT_EQ(read_all(*y4m.source), 2u);
}

TEST(DecodedInput, EveryContainerGivesFfmpegsFrames) {
  for (const char* file : {"syn_h264.mp4", "syn_faststart.mp4", "syn_h264.mkv", "syn_h264.h264", "syn_h264.ts",
                           "syn_hevc.hevc", "syn_av1.ivf", "syn_vp9.webm", "syn_multi.mkv"}) {
    SCOPED_TRACE(file);
    VQX_REQUIRE_ENCODE(file, path);
    std::vector<std::string> warnings;
    InputOptions options;
    options.warn = [&](const std::string& w) { warnings.push_back(w); };
    auto decoded = open_decoded_file(path, options);
    auto expected = open_y4m(path + ".y4m", "expected");
    ASSERT_TRUE(decoded->format().same_layout(expected->format()));
    Picture a(decoded->format()), b(expected->format());
    uint64_t frames = 0;
    while (expected->read(b)) {
      ASSERT_TRUE(decoded->read(a)) << "frame " << frames;
      ASSERT_EQ(std::memcmp(a.bytes(), b.bytes(), a.size_bytes()), 0) << "frame " << frames;
      ++frames;
    }
    EXPECT_FALSE(decoded->read(a));
    EXPECT_EQ(frames, 12u);
    EXPECT_TRUE(warnings.empty()) << warnings.front();
  }
}

TEST(DecodedInput, ColourRangeIsCarried) {
  VQX_REQUIRE_ENCODE("syn_h264.mkv", limited);
  EXPECT_EQ(open_decoded_file(limited)->format().range, ColorRange::kLimited);
  VQX_REQUIRE_ENCODE("syn_fullrange.mkv", full);
  EXPECT_EQ(open_decoded_file(full)->format().range, ColorRange::kFull);
}

TEST(StreamSelection, FirstVideoByIndexOrByVideoOrdinal) {
  VQX_REQUIRE_ENCODE("syn_multi.mkv", path);
  auto width = [&](const std::string& selector) {
    InputOptions options;
    if (!selector.empty()) options.stream = parse_stream_selector(selector, "--dis_stream");
    return open_decoded_file(path, options)->format().width;
  };
  EXPECT_EQ(width(""), 160u);
  EXPECT_EQ(width("0"), 160u);
  EXPECT_EQ(width("v:0"), 160u);
  EXPECT_EQ(width("2"), 96u);
  EXPECT_EQ(width("v:1"), 96u);

  InputOptions options;
  options.stream = parse_stream_selector("1", "--dis_stream");
  EXPECT_THAT(input_error(path, options), HasSubstr("stream 1 is not a video stream (audio)"));
  options.stream = parse_stream_selector("7", "--dis_stream");
  EXPECT_THAT(input_error(path, options), HasSubstr("there is no stream 7 (it has 3)"));
  options.stream = parse_stream_selector("v:2", "--dis_stream");
  EXPECT_THAT(input_error(path, options), HasSubstr("there is no video stream v:2 (it has 2)"));
}

TEST(StreamSelection, SelectorsParseOrAreRefused) {
  EXPECT_EQ(parse_stream_selector("3", "--ref_stream").kind, StreamSelector::Kind::kIndex);
  EXPECT_EQ(parse_stream_selector("v:1", "--ref_stream").number, 1u);
  for (const char* bad : {"", "x", "v:", "-1", "v:x", "1.5", "a:0"})
    EXPECT_THROW(parse_stream_selector(bad, "--ref_stream"), UsageError) << bad;
  const std::string y4m = temp_path("one_stream.y4m");
  write_y4m(y4m, make_pictures(make_format(16, 8), {1}));
  InputOptions options;
  options.stream = parse_stream_selector("1", "--ref_stream");
  EXPECT_THAT(input_error(y4m, options), HasSubstr("a Y4M input holds one stream"));
}

TEST(DamagedInput, TruncatedFilesAreErrorsNamingTheFrame) {
  // Containers that know their packets' sizes, and H.264 whose decoder finds a cut slice. (A cut
  // inside the last frame of an HEVC/AV1 elementary stream or of MPEG-TS is not always found:
  // docs/inputs.md.)
  for (const char* file : {"syn_h264.mp4", "syn_faststart.mp4", "syn_h264.mkv", "syn_vp9.webm", "syn_av1.ivf",
                           "syn_h264.h264"}) {
    VQX_REQUIRE_ENCODE(file, path);
    const std::vector<char> bytes = file_bytes(path);
    for (size_t percent : {30, 60, 90}) {
      SCOPED_TRACE(testing::Message() << file << " cut at " << percent << "%");
      const std::string cut = temp_path(std::string("cut_") + file);
      put_bytes(cut, {bytes.begin(), bytes.begin() + long(bytes.size() * percent / 100)});
      const std::string message = input_error(cut);
      EXPECT_THAT(message, HasSubstr("distorted '" + cut + "'"));
      EXPECT_EQ(message.find('\n'), std::string::npos);
      // An MP4 with its index at the end is refused before any frame (the index is what is cut).
      if (std::string(file) != "syn_h264.mp4") {
        EXPECT_THAT(message, HasSubstr("frame "));
      }
    }
  }
}

TEST(DamagedInput, OverwrittenBitstreamsAreErrors) {
  for (const char* file : {"syn_h264.mkv", "syn_h264.h264", "syn_h264.mp4", "syn_vp9.webm"}) {
    SCOPED_TRACE(file);
    VQX_REQUIRE_ENCODE(file, path);
    std::vector<char> bytes = file_bytes(path);
    std::mt19937 rng(5);
    for (size_t i = bytes.size() * 2 / 5; i < bytes.size() * 3 / 5; ++i) bytes[i] = char(rng());
    const std::string damaged = temp_path(std::string("damaged_") + file);
    put_bytes(damaged, bytes);
    EXPECT_THAT(input_error(damaged), HasSubstr("distorted '" + damaged + "': "));
  }
}

TEST(DamagedInput, AStreamCutInsideAGopIsNamedSo) {
  // MPEG-TS cut at a packet boundary inside the first GOP: its first pictures refer to parameter
  // sets and frames that are not there.
  VQX_REQUIRE_ENCODE("syn_h264.ts", path);
  const std::vector<char> bytes = file_bytes(path);
  const size_t from = (bytes.size() / 4) / 188 * 188;
  const std::string cut = temp_path("mid_gop.ts");
  put_bytes(cut, {bytes.begin() + long(from), bytes.end()});
  EXPECT_THAT(input_error(cut), HasSubstr("frame 0: the stream does not start with a keyframe"));
}

TEST(DamagedInput, SkippedPicturesAreReported) {
  // The last picture of an HEVC stream moved to an enhancement layer (nuh_layer_id 1): the
  // decoder ignores it without an error, and the count of pictures and frames tells.
  VQX_REQUIRE_ENCODE("syn_hevc.hevc", path);
  std::vector<char> bytes = file_bytes(path);
  size_t last_slice = 0;
  for (size_t i = 0; i + 4 < bytes.size(); ++i)
    if (bytes[i] == 0 && bytes[i + 1] == 0 && bytes[i + 2] == 1 && ((uint8_t(bytes[i + 3]) >> 1) & 0x3f) < 32)
      last_slice = i + 3;
  ASSERT_GT(last_slice, 0u);
  bytes[last_slice + 1] = char(uint8_t(bytes[last_slice + 1]) | 0x08);  // nuh_layer_id = 1
  const std::string edited = temp_path("layer1.hevc");
  put_bytes(edited, bytes);
  std::vector<std::string> warnings;
  InputOptions options;
  options.warn = [&](const std::string& w) { warnings.push_back(w); };
  auto source = open_decoded_file(edited, options);
  EXPECT_EQ(read_all(*source), 11u);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("12 pictures in the stream decoded to 11 frames"));
}

TEST(RefusedInput, EachGetsAOneLineReason) {
  VQX_REQUIRE_ENCODE("syn_alpha.mkv", alpha);
  EXPECT_THAT(input_error(alpha), HasSubstr("pixel format yuva420p is not supported"));
  VQX_REQUIRE_ENCODE("syn_interlaced.mkv", interlaced);
  EXPECT_THAT(input_error(interlaced), HasSubstr("interlaced video is not supported"));
  VQX_REQUIRE_ENCODE("syn_audio.mka", audio);
  EXPECT_THAT(input_error(audio), HasSubstr("no video stream"));
  const std::string garbage = temp_path("garbage.bin");
  put_bytes(garbage, std::vector<char>(5000, 'x'));
  EXPECT_THAT(input_error(garbage), HasSubstr("not a Y4M file (no YUV4MPEG2 signature), a PNG, or a video"));
  const std::string empty = temp_path("empty.mkv");
  put_bytes(empty, {});
  EXPECT_THAT(input_error(empty), HasSubstr("file is empty"));
  InputOptions nvdec;
  nvdec.decoder = DecoderChoice::kNvdec;
  VQX_REQUIRE_ENCODE("syn_h264.mkv", mkv);
  EXPECT_THROW(open_input(mkv, nvdec, "distorted"), RuntimeFailure);
}

}  // namespace
}  // namespace vqx::test
