#pragma once
// vqx.Scorer's engine side: the CLI's metric setup over two FrameFeeds, with the engine running
// on a thread of its own from the first frame pair to finish().
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <atomic>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cli_options.h"
#include "frame_feed.h"
#include "run_plan.h"

namespace vqx::python {

using Plane = nanobind::ndarray<nanobind::ro>;

// "420", "422", "444" or "400"; throws UsageError.
ChromaSubsampling parse_subsampling(const std::string& text);

class Scorer {
 public:
  // `args`: the CLI's flags other than the inputs (--feature, -m, -n, --backend, --threads...).
  Scorer(const std::vector<std::string>& args, uint32_t width, uint32_t height, const std::string& pixel_format,
         unsigned bit_depth);
  ~Scorer();
  Scorer(const Scorer&) = delete;
  Scorer& operator=(const Scorer&) = delete;

  // One frame pair, each a plane per picture plane (Y, Cb, Cr; Y alone for 4:0:0) of
  // plane_height x plane_width samples, uint8 up to 8 bits and uint16 above, all on the host or
  // all on the Scorer's CUDA device (then written on `stream`, which the engine waits for).
  void push(const std::vector<Plane>& reference, const std::vector<Plane>& distorted, uintptr_t stream);
  // Ends the clip: the temporal metrics' flush, the models' scores; returns result_dict().
  nanobind::dict finish();

  const std::string& backend() const { return backend_.description; }
  const PictureFormat& format() const { return format_; }
  // {"host_frames_read", "device_frames_copied", "frames_pushed"}.
  nanobind::dict stats() const;

 private:
  void start(bool device);
  void check_alive();  // rethrows the engine's failure once it has ended
  void release_frames();
  void check_planes(const std::vector<Plane>& planes, const char* which, bool device) const;
  Picture host_picture(FrameFeed& feed, const std::vector<Plane>& planes);
  DeviceFrame device_frame(const std::vector<Plane>& planes, uintptr_t stream, uint64_t token);
  void stop_engine();

  cli::CliOptions options_;
  cli::RunPlan plan_;
  BackendChoice backend_;
  PictureFormat format_;
  FrameFeed reference_, distorted_;
  bool started_ = false, device_ = false, finished_ = false;
  std::thread engine_;
  std::exception_ptr failure_;    // set by the engine thread before engine_done_
  std::atomic<bool> engine_done_ = false;
  std::unique_ptr<RunReport> report_;
  uint64_t pushed_ = 0;
  uint64_t next_token_ = 1;
  std::map<uint64_t, std::vector<Plane>> held_;  // device arrays until the engine has copied them
};

}  // namespace vqx::python
