// Choosing the decoder, on any machine: --decoder nvdec without a CUDA device for the run, or in a
// build without CUDA, is a clear error; a codec NVDEC does not decode is refused by name before any
// device work, and --decoder auto then decodes it in software and says why; without a usable
// device auto decodes in software too. The demuxer's packet replay (which lets a refused hardware
// decoder hand its stream to the software decoder, also from a pipe) returns the kept packets
// again, in order.
#include <gmock/gmock.h>

#include <vector>

#include "core/error.h"
#include "engine/cuda_backend.h"
#include "io/av_demuxer.h"
#include "io/input_stream.h"
#include "io/nvdec.h"
#include "io/open_input.h"
#include "support/encodes.h"
#include "support/fixtures.h"

namespace vqx::test {
namespace {

using testing::HasSubstr;

InputOptions decoding(DecoderChoice decoder, int gpu) {
  InputOptions options;
  options.decoder = decoder;
  options.gpu = gpu;
  return options;
}

std::string error_of(const std::string& path, const InputOptions& options) {
  try {
    open_input(path, options, "distorted");
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(opened)";
}

TEST(DecoderChoice, NvdecNeedsARunOnACudaDevice) {
  VQX_REQUIRE_ENCODE("syn_h264.mp4", path);
  EXPECT_THROW(open_input(path, decoding(DecoderChoice::kNvdec, -1), "distorted"), RuntimeFailure);
  EXPECT_THAT(error_of(path, decoding(DecoderChoice::kNvdec, -1)),
              HasSubstr(nvdec_built() ? "--decoder nvdec decodes for a run on a CUDA device, and this run has none"
                                      : "--decoder nvdec: this vqx has no NVDEC decoder; use --decoder cpu"));
  OpenedInput opened = open_input(path, decoding(DecoderChoice::kAuto, -1), "distorted");
  EXPECT_THAT(opened.decoder, HasSubstr("software"));
  EXPECT_EQ(opened.source->device_frames(), nullptr);
}

TEST(DecoderChoice, ACodecWithoutNvdecIsRefusedByName) {
  VQX_REQUIRE_ENCODE("rung_odd.mkv", ffv1);
  const std::string refusal =
      nvdec_built() ? "distorted '" + ffv1 + "': NVDEC does not decode ffv1 video" : "NVDEC needs a CUDA build of vqx";
  EXPECT_THAT(error_of(ffv1, decoding(DecoderChoice::kNvdec, 0)), HasSubstr(refusal));
  OpenedInput opened = open_input(ffv1, decoding(DecoderChoice::kAuto, 0), "distorted");
  EXPECT_THAT(opened.decoder, HasSubstr("ffv1 (libavcodec, software"));
  EXPECT_THAT(opened.decoder, HasSubstr("; not NVDEC: NVDEC "));
  EXPECT_EQ(opened.source->device_frames(), nullptr);
}

TEST(DecoderChoice, WithoutADeviceNvdecIsAnErrorAndAutoDecodesInSoftware) {
  if (!nvdec_built()) GTEST_SKIP() << "a build without CUDA has no NVDEC (ACodecWithoutNvdec... covers it)";
  if (cuda_device_available(0)) GTEST_SKIP() << "this machine has a CUDA device (decoded_nvdec_test covers it)";
  VQX_REQUIRE_ENCODE("syn_h264.mp4", path);
  EXPECT_THAT(error_of(path, decoding(DecoderChoice::kNvdec, 0)), HasSubstr("NVDEC has no usable CUDA device 0"));
  OpenedInput opened = open_input(path, decoding(DecoderChoice::kAuto, 0), "distorted");
  EXPECT_THAT(opened.decoder, HasSubstr("h264 (libavcodec, software"));
  EXPECT_THAT(opened.decoder, HasSubstr("; not NVDEC: NVDEC has no usable CUDA device 0"));
  EXPECT_EQ(opened.source->device_frames(), nullptr);
}

std::vector<uint8_t> bytes_of(const AVPacket& packet) { return std::vector<uint8_t>(packet.data, packet.data + packet.size); }

TEST(DemuxerReplay, KeptPacketsComeBackInOrderBeforeTheRest) {
  VQX_REQUIRE_ENCODE("syn_h264.mp4", path);
  std::vector<std::vector<uint8_t>> straight;
  {
    AvDemuxer demuxer(std::make_unique<InputStream>(path, "distorted"), {});
    av::PacketPtr packet = av::make_packet();
    while (demuxer.read(packet.get(), 0)) {
      straight.push_back(bytes_of(*packet));
      av_packet_unref(packet.get());
    }
  }
  ASSERT_GE(straight.size(), 8u);
  for (bool forget : {false, true}) {
    AvDemuxer demuxer(std::make_unique<InputStream>(path, "distorted"), {});
    av::PacketPtr packet = av::make_packet();
    demuxer.keep_packets();
    for (size_t i = 0; i < 3; ++i) {
      ASSERT_TRUE(demuxer.read(packet.get(), 0));
      av_packet_unref(packet.get());
    }
    if (forget)
      demuxer.forget_kept();
    else
      demuxer.replay();
    std::vector<std::vector<uint8_t>> read;
    while (demuxer.read(packet.get(), 0)) {
      read.push_back(bytes_of(*packet));
      av_packet_unref(packet.get());
    }
    std::vector<std::vector<uint8_t>> expected(straight.begin() + (forget ? 3 : 0), straight.end());
    EXPECT_EQ(read, expected) << (forget ? "forgotten" : "replayed");
  }
}

}  // namespace
}  // namespace vqx::test
