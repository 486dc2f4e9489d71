// NVDEC frames as a FrameSource: a decoding thread runs ahead of the caller, and each decoded
// frame (a CUDA surface from libavcodec's pool) is held, with the event that marks its copy out of
// NVDEC, until the caller's slot for it comes round again.
#include <fmt/format.h>

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/pixdesc.h>
}

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "core/error.h"
#include "io/av_decoder.h"
#include "io/cuda/cuda_calls.h"
#include "io/cuda/cuda_decode_device.h"
#include "io/cuda/device_convert.h"
#include "io/nvdec.h"
#include "io/pixel_convert.h"

namespace vqx {
namespace {

// Frames decoded ahead of the caller: enough to keep NVDEC busy while the metrics score a frame.
constexpr size_t kDecodeAhead = 4;

// FFmpeg's CUDA device on `gpu`; a device that cannot be used leaves the stream to the software
// decoder under --decoder auto.
cuda::CudaDecodeDevice open_device(int gpu, const std::string& label) {
  try {
    return cuda::CudaDecodeDevice(gpu);
  } catch (const RuntimeFailure& e) {
    throw HardwareDecodeRefused(fmt::format("{}: NVDEC has no usable CUDA device {}: {}", label, gpu, e.what()));
  }
}

AVPixelFormat surface_format(const AVFrame& frame) {
  if (frame.format != AV_PIX_FMT_CUDA || !frame.hw_frames_ctx) return AV_PIX_FMT_NONE;
  return reinterpret_cast<const AVHWFramesContext*>(frame.hw_frames_ctx->data)->sw_format;
}

class NvdecSource final : public FrameSource, public DeviceFrames {
 public:
  NvdecSource(std::unique_ptr<AvDemuxer>& demuxer, const NvdecSettings& settings)
      : FrameSource(demuxer->label()),
        device_(open_device(settings.gpu, name_)),
        decoder_(demuxer->stream(), name_, device_.device()) {
    decoder_.on_skipped_pictures(settings.warn);
    Decoded first{av::make_frame(), cuda::make_order_event()};
    demuxer->keep_packets();
    try {
      if (!decoder_.decode(*demuxer, first.frame.get()))
        throw InputError(fmt::format(
            "{}: no frame could be decoded (the stream is empty, truncated or damaged)", name_));
      learn_format(*first.frame);
    } catch (const HardwareDecodeRefused&) {
      demuxer->replay();
      throw;
    }
    demuxer->forget_kept();
    demuxer_ = std::move(demuxer);
    cuda::check_call(cudaEventRecord(first.ready.get(), device_.stream()), "NVDEC frame event");
    ready_.push_back(std::move(first));
    slots_.resize(2);  // one for a caller of next(), one for read()
    thread_ = std::thread([this] { decode_ahead(); });
  }

  ~NvdecSource() override {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

  const PictureFormat& format() const override { return decoded_.picture; }
  const std::string& description() const { return decoder_.description(); }
  DeviceFrames* device_frames() override { return this; }

  void reserve_slots(size_t slots) override {
    if (slots + 1 > slots_.size()) slots_.resize(slots + 1);
  }

  bool next(size_t slot) override {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return !ready_.empty() || ended_; });
    if (ready_.empty()) {
      if (error_) std::rethrow_exception(error_);
      return false;
    }
    Decoded d = std::move(ready_.front());
    ready_.pop_front();
    lock.unlock();
    changed_.notify_all();
    slots_[slot] = std::move(d);  // releases the surface the slot held
    ++frames_read_;
    return true;
  }

  void enqueue_copy(size_t slot, uint8_t* out, void* cuda_stream) override {
    const Decoded& d = slots_[slot];
    auto stream = static_cast<cudaStream_t>(cuda_stream);
    cuda::check_call(cudaStreamWaitEvent(stream, d.ready.get(), 0), "NVDEC frame wait");
    DecodedPlanes planes;
    for (int p = 0; p < 4; ++p) {
      planes.data[p] = d.frame->data[p];
      planes.stride[p] = d.frame->linesize[p];
    }
    cuda::enqueue_convert_planes(planes, decoded_.samples, decoded_.picture, out, stream);
  }

  // The frame on the host, for a caller that reads frames there (frame skipping, the CPU
  // backend): the surface is downloaded as it is and converted as the software decoder's frames are.
  bool read(Picture& picture) override {
    const size_t slot = slots_.size() - 1;
    if (!next(slot)) return false;
    av::FramePtr host = av::make_frame();
    if (int ret = av_hwframe_transfer_data(host.get(), slots_[slot].frame.get(), 0); ret < 0)
      throw RuntimeFailure(fmt::format("{}: cannot bring an NVDEC frame to the host: {}", name_, av::error_text(ret)));
    cuda::check_call(cudaStreamSynchronize(device_.stream()), "NVDEC frame download");
    convert_frame(*host, decoded_.samples, picture);
    return true;
  }

 private:
  struct Decoded {
    av::FramePtr frame;
    cuda::OwnedEvent ready;  // recorded on the decoder's stream after the picture's copy
  };

  // From the first frame: the surfaces' layout at the stream's depth. What NVDEC gives but vqx
  // cannot read as the software decoder's pictures is refused, for the software decoder to take.
  void learn_format(const AVFrame& frame) {
    surface_ = surface_format(frame);
    const AVPixelFormat stream = decoder_.software_format();
    auto decoded =
        decoded_surface_format(surface_, stream, uint32_t(frame.width), uint32_t(frame.height));
    if (!decoded)
      throw HardwareDecodeRefused(
          fmt::format("{}: NVDEC gives {} surfaces for its {} pictures", name_,
                      surface_ == AV_PIX_FMT_NONE ? "no CUDA" : av_get_pix_fmt_name(surface_),
                      av_get_pix_fmt_name(stream)));
    if (frame.crop_left || frame.crop_top)
      throw HardwareDecodeRefused(
          fmt::format("{}: NVDEC leaves the top and left cropping of its pictures to the caller", name_));
    if (frame.color_range == AVCOL_RANGE_JPEG)
      decoded->picture.range = ColorRange::kFull;
    else if (frame.color_range == AVCOL_RANGE_MPEG)
      decoded->picture.range = ColorRange::kLimited;
    validate_format(decoded->picture, name_);
    decoded_ = *decoded;
  }

  // As the software source: one size and layout for the whole stream.
  void check_unchanged(const AVFrame& frame, uint64_t index) const {
    const PictureFormat& f = decoded_.picture;
    if (uint32_t(frame.width) != f.width || uint32_t(frame.height) != f.height)
      throw InputError(fmt::format("{}: frame {}: the picture size changes from {}x{} to {}x{}",
                                   name_, index, f.width, f.height, frame.width, frame.height));
    if (surface_format(frame) != surface_)
      throw InputError(fmt::format("{}: frame {}: the pixel format changes", name_, index));
  }

  void decode_ahead() {
    try {
      cuda::check_call(cudaSetDevice(device_.gpu()), "cudaSetDevice");
      for (uint64_t index = 1;; ++index) {
        {
          std::unique_lock lock(mutex_);
          changed_.wait(lock, [&] { return stopping_ || ready_.size() < kDecodeAhead; });
          if (stopping_) return;
        }
        Decoded d{av::make_frame(), cuda::make_order_event()};
        if (!decoder_.decode(*demuxer_, d.frame.get())) break;
        check_unchanged(*d.frame, index);
        cuda::check_call(cudaEventRecord(d.ready.get(), device_.stream()), "NVDEC frame event");
        {
          std::lock_guard lock(mutex_);
          ready_.push_back(std::move(d));
        }
        changed_.notify_all();
      }
    } catch (...) {
      std::lock_guard lock(mutex_);
      error_ = std::current_exception();
    }
    {
      std::lock_guard lock(mutex_);
      ended_ = true;
    }
    changed_.notify_all();
  }

  // Declared in the order of their lifetimes: frames go before the decoder, the decoder before
  // the device whose stream it writes on.
  cuda::CudaDecodeDevice device_;
  std::unique_ptr<AvDemuxer> demuxer_;
  AvDecoder decoder_;
  DecodedFormat decoded_;
  AVPixelFormat surface_ = AV_PIX_FMT_NONE;
  std::vector<Decoded> slots_;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Decoded> ready_;
  bool ended_ = false, stopping_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace

bool nvdec_built() { return true; }

std::unique_ptr<FrameSource> open_nvdec(std::unique_ptr<AvDemuxer>& demuxer,
                                        const NvdecSettings& settings, std::string* description) {
  // Refused before any device work, so that the message is the same with or without a GPU.
  const AVCodecID codec = demuxer->stream().codecpar->codec_id;
  if (!nvdec_decoder_for(codec))
    throw HardwareDecodeRefused(
        fmt::format("{}: NVDEC does not decode {} video", demuxer->label(), avcodec_get_name(codec)));
  auto source = std::make_unique<NvdecSource>(demuxer, settings);
  if (description) *description = source->description();
  return source;
}

}  // namespace vqx
