#include "scorer.h"

#include <fmt/format.h>

#include <cstring>

#include "core/error.h"
#include "engine/cuda_backend.h"
#include "results.h"

namespace nb = nanobind;

namespace vqx::python {
namespace {

// Frames waiting in each feed: enough to keep the engine busy while Python prepares the next.
constexpr size_t kQueuedFrames = 4;

const char* plane_name(const PictureFormat& format, unsigned plane) {
  if (format.plane_count() == 1) return "Y";
  static const char* names[] = {"Y", "Cb", "Cr"};
  return names[plane];
}

bool on_device(const Plane& plane) {
  const int type = plane.device_type();
  if (type == nb::device::cpu::value || type == nb::device::cuda_host::value) return false;
  if (type == nb::device::cuda::value || type == nb::device::cuda_managed::value) return true;
  throw InputError(fmt::format("arrays on DLPack device type {} are not supported (host or CUDA only)", type));
}

}  // namespace

ChromaSubsampling parse_subsampling(const std::string& text) {
  if (text == "420") return ChromaSubsampling::k420;
  if (text == "422") return ChromaSubsampling::k422;
  if (text == "444") return ChromaSubsampling::k444;
  if (text == "400") return ChromaSubsampling::k400;
  throw UsageError(fmt::format("pixel_format {}: expected 420, 422, 444 or 400", text));
}

static PictureFormat make_format(uint32_t width, uint32_t height, const std::string& pixel_format,
                                 unsigned bit_depth) {
  PictureFormat format;
  format.width = width;
  format.height = height;
  format.subsampling = parse_subsampling(pixel_format);
  if (bit_depth < 8 || bit_depth > 16)
    throw UsageError(fmt::format("bit_depth {}: expected 8 to 16", bit_depth));
  format.bit_depth = uint8_t(bit_depth);
  validate_format(format, "Scorer");
  return format;
}

static cli::CliOptions parse_args(const std::vector<std::string>& args) {
  std::vector<std::string> words = {"vqx", "-r", "<frames>", "-d", "<frames>"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  auto parsed = cli::parse_command_line(int(argv.size()), argv.data());
  if (!parsed) throw UsageError("--help: see help(vqx.Scorer)");
  return std::move(*parsed);
}

Scorer::Scorer(const std::vector<std::string>& args, uint32_t width, uint32_t height,
               const std::string& pixel_format, unsigned bit_depth)
    : options_(parse_args(args)),
      plan_(cli::plan_run(options_)),
      backend_(choose_backend(plan_.requests, options_.run)),
      format_(make_format(width, height, pixel_format, bit_depth)),
      reference_("reference", format_, kQueuedFrames),
      distorted_("distorted", format_, kQueuedFrames) {
  // The engine runs on the backend chosen here, which the caller can read before the first frame.
  options_.run.backend = backend_.backend;
}

Scorer::~Scorer() {
  if (started_) {
    reference_.abort();
    distorted_.abort();
    stop_engine();
  }
  release_frames();
}

void Scorer::stop_engine() {
  if (!engine_.joinable()) return;
  nb::gil_scoped_release unlocked;
  engine_.join();
}

void Scorer::start(bool device) {
  if (device && backend_.backend != Backend::kCuda)
    throw RuntimeFailure(fmt::format("device arrays need the CUDA backend, and this Scorer runs on {}",
                                     backend_.description));
  device_ = device;
  reference_.set_device(device);
  distorted_.set_device(device);
  started_ = true;
  engine_ = std::thread([this] {
    try {
      report_ = run_metrics(reference_, distorted_, plan_.requests, options_.run);
    } catch (...) {
      failure_ = std::current_exception();
    }
    engine_done_.store(true, std::memory_order_release);
    // Whatever happened, no frame is read any more: wake a producer waiting for room.
    reference_.abort();
    distorted_.abort();
  });
}

void Scorer::check_alive() {
  if (finished_) throw UsageError("this Scorer has finished; make a new one for another clip");
  if (!engine_done_.load(std::memory_order_acquire)) return;
  stop_engine();
  if (failure_) std::rethrow_exception(failure_);
}

void Scorer::release_frames() {
  for (FrameFeed* feed : {&reference_, &distorted_})
    for (const ReleasedFrame& frame : feed->take_released()) {
      device::release(frame);
      if (frame.token) held_.erase(frame.token);
    }
}

void Scorer::check_planes(const std::vector<Plane>& planes, const char* which, bool device) const {
  const unsigned count = format_.plane_count();
  if (planes.size() != count)
    throw InputError(fmt::format("{} frame: {} planes given, {} {} has {}", which, planes.size(),
                                 format_.describe(), count == 1 ? "(Y)" : "(Y, Cb, Cr)", count));
  const bool wide = format_.bytes_per_sample() == 2;
  for (unsigned p = 0; p < count; ++p) {
    const Plane& plane = planes[p];
    const char* name = plane_name(format_, p);
    if (on_device(plane) != device)
      throw InputError(fmt::format("{} plane {}: {} memory, and the frame's other planes are in {} memory", which,
                                   name, device ? "host" : "device", device ? "device" : "host"));
    if (device && plane.device_id() != options_.run.gpu)
      throw InputError(fmt::format("{} plane {}: the array is on cuda:{}, and this Scorer runs on cuda:{} (gpu=)",
                                   which, name, plane.device_id(), options_.run.gpu));
    const bool u8 = plane.dtype() == nb::dtype<uint8_t>();
    const bool u16 = plane.dtype() == nb::dtype<uint16_t>();
    if (wide ? !u16 : !u8)
      throw InputError(fmt::format("{} plane {}: {}-bit samples need dtype {}, got {}", which, name,
                                   format_.bit_depth, wide ? "uint16" : "uint8",
                                   u8 ? "uint8" : u16 ? "uint16" : "another dtype"));
    const size_t h = format_.plane_height(p), w = format_.plane_width(p);
    if (plane.ndim() != 2 || plane.shape(0) != h || plane.shape(1) != w)
      throw InputError(fmt::format("{} plane {}: shape ({}) given, {} needs ({}, {})", which, name,
                                   [&] {
                                     std::string s;
                                     for (size_t d = 0; d < plane.ndim(); ++d)
                                       s += (d ? ", " : "") + std::to_string(plane.shape(d));
                                     return s;
                                   }(),
                                   format_.describe(), h, w));
    if (plane.stride(1) != 1 && w > 1)
      throw InputError(fmt::format("{} plane {}: samples of a row must be adjacent (stride 1 along the width)",
                                   which, name));
    if (plane.stride(0) < int64_t(w) && h > 1)
      throw InputError(fmt::format("{} plane {}: rows overlap (row stride {} < width {})", which, name,
                                   plane.stride(0), w));
  }
}

Picture Scorer::host_picture(FrameFeed& feed, const std::vector<Plane>& planes) {
  Picture picture = feed.blank();
  const size_t bps = format_.bytes_per_sample();
  for (unsigned p = 0; p < format_.plane_count(); ++p) {
    const auto* src = static_cast<const uint8_t*>(planes[p].data());
    uint8_t* dst = picture.plane<uint8_t>(p);
    const size_t row = format_.plane_width(p) * bps, pitch = size_t(planes[p].stride(0)) * bps;
    for (size_t y = 0; y < format_.plane_height(p); ++y) std::memcpy(dst + y * row, src + y * pitch, row);
  }
  return picture;
}

DeviceFrame Scorer::device_frame(const std::vector<Plane>& planes, uintptr_t stream, uint64_t token) {
  DeviceFrame frame;
  const size_t bps = format_.bytes_per_sample();
  for (unsigned p = 0; p < format_.plane_count(); ++p) {
    frame.planes[p] = static_cast<const uint8_t*>(planes[p].data());
    frame.pitch[p] = format_.plane_height(p) > 1 ? size_t(planes[p].stride(0)) * bps : format_.plane_width(p) * bps;
  }
  frame.token = token;
  frame.ready = device::record_ready(options_.run.gpu, stream);
  return frame;
}

void Scorer::push(const std::vector<Plane>& reference, const std::vector<Plane>& distorted, uintptr_t stream) {
  check_alive();
  const bool device = !reference.empty() && on_device(reference[0]);
  check_planes(reference, "reference", device);
  check_planes(distorted, "distorted", device);
  if (started_ && device != device_)
    throw InputError(fmt::format("this Scorer reads frames in {} memory; one clip cannot mix host and device arrays",
                                 device_ ? "device" : "host"));
  if (!started_) start(device);
  release_frames();
  if (engine_done_.load(std::memory_order_acquire)) return;  // frame_cnt frames were scored: the rest go unread
  bool taken = true;
  if (device) {
    const uint64_t ref_token = next_token_++, dis_token = next_token_++;
    held_[ref_token] = reference;
    held_[dis_token] = distorted;
    const DeviceFrame ref = device_frame(reference, stream, ref_token);
    const DeviceFrame dis = device_frame(distorted, stream, dis_token);
    nb::gil_scoped_release unlocked;
    taken = reference_.push(ref) && distorted_.push(dis);
  } else {
    nb::gil_scoped_release unlocked;
    taken = reference_.push(host_picture(reference_, reference)) && distorted_.push(host_picture(distorted_, distorted));
  }
  if (!taken) {
    // The engine stopped reading: it failed, or it has scored the frames that frame_cnt asks
    // for and the rest are not read, as the CLI leaves the rest of its inputs unread.
    stop_engine();
    check_alive();
    return;
  }
  ++pushed_;
}

nb::dict Scorer::finish() {
  check_alive();
  if (!started_) start(false);  // no frame: the engine says what a run of none does
  reference_.close();
  distorted_.close();
  stop_engine();
  release_frames();
  finished_ = true;
  if (failure_) std::rethrow_exception(failure_);
  vmaf::apply_models(plan_.models, report_->table);
  return result_dict(*report_, backend_.description, options_.percentiles);
}

nb::dict Scorer::stats() const {
  nb::dict out;
  out["frames_pushed"] = pushed_;
  out["host_frames_read"] = reference_.host_frames_read() + distorted_.host_frames_read();
  out["device_frames_copied"] = reference_.device_frames_copied() + distorted_.device_frames_copied();
  return out;
}

}  // namespace vqx::python
