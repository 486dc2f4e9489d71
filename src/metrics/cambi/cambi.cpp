// Netflix CAMBI on the CPU (shared/spec/cambi.md): options and output names, init (section 3),
// the per-picture pipeline over five scales, full-reference mode and heatmap dumps.
#include "metrics/cambi/cambi.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <tuple>
#include <mutex>

#include "core/error.h"
#include "metrics/cambi/cambi_setup.h"
#include "metrics/cambi/cambi_stages.h"
#ifdef VQX_HAVE_CUDA
#include "metrics/cambi/cuda/cambi_cuda.h"
#endif

namespace vqx {
namespace {

using cambi::Eotf;
using cambi::kNumScales;

// ---- Per-picture pipeline -------------------------------------------------------------------

// Buffers for one picture in flight, reused across frames (fresh pages cost more than the work
// of the cheaper stages).
struct Scratch {
  std::vector<uint16_t> image, image2;
  std::vector<uint8_t> mask, mask2;
  std::vector<float> c_values;
  std::vector<uint16_t> heatmap;
  void reserve(size_t n) {
    image.resize(n);
    image2.resize(n);
    mask.resize(n);
    mask2.resize(n);
    c_values.resize(n);
  }
};

class ScratchPool {
 public:
  std::unique_ptr<Scratch> take() {
    std::lock_guard lock(mutex_);
    if (free_.empty()) return std::make_unique<Scratch>();
    auto s = std::move(free_.back());
    free_.pop_back();
    return s;
  }
  void give(std::unique_ptr<Scratch> s) {
    std::lock_guard lock(mutex_);
    free_.push_back(std::move(s));
  }

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<Scratch>> free_;
};

// One file per scale; frames write their own slots with pwrite, so concurrent frames are safe.
class HeatmapFiles {
 public:
  HeatmapFiles() = default;
  HeatmapFiles(const HeatmapFiles&) = delete;
  HeatmapFiles& operator=(const HeatmapFiles&) = delete;
  void open(const std::string& folder, unsigned enc_width, unsigned enc_height) {
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    if (ec)
      throw InputError(fmt::format("cambi: cannot create heatmaps_path '{}': {}", folder,
                                   ec.message()));
    // File names halve the encode size per scale even when the speed-up makes the real maps
    // half as large (upstream quirk 6, reproduced).
    unsigned w = enc_width, h = enc_height;
    for (int s = 0; s < kNumScales; ++s) {
      std::string path = fmt::format("{}/cambi_heatmap_scale_{}_{}x{}_16b.gray", folder, s, w, h);
      int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (fd < 0) throw InputError(fmt::format("cambi: could not open heatmaps_path: {}", path));
      fds_[s] = fd;
      w = (w + 1) >> 1;
      h = (h + 1) >> 1;
    }
  }
  ~HeatmapFiles() {
    for (int fd : fds_)
      if (fd >= 0) ::close(fd);
  }
  bool enabled() const { return fds_[0] >= 0; }

  // Spec 6.5: uint16 = trunc(65535 / max_c * c), little-endian, at the frame's slot. Values above
  // 65535 (undefined in upstream's C) are clamped, a documented deviation.
  void write(int scale, uint64_t frame, const float* c_values, unsigned w, unsigned h,
             double factor, std::vector<uint16_t>& buffer) const {
    buffer.resize(size_t{w} * h);
    for (size_t i = 0; i < buffer.size(); ++i) {
      double v = factor * double(c_values[i]);
      uint16_t u = v >= 65535.0 ? uint16_t{65535} : uint16_t(v);
      buffer[i] = u;  // stored as is: the host is little-endian (asserted below)
    }
    static_assert(std::endian::native == std::endian::little, "heatmaps are little-endian");
    const size_t bytes = buffer.size() * 2;
    const off_t offset = off_t(frame * h * w * 2);
    const char* p = reinterpret_cast<const char*>(buffer.data());
    for (size_t done = 0; done < bytes;) {
      ssize_t n = ::pwrite(fds_[scale], p + done, bytes - done, offset + off_t(done));
      if (n <= 0) throw InputError(fmt::format("cambi: cannot write heatmap of scale {}", scale));
      done += size_t(n);
    }
  }

 private:
  int fds_[kNumScales] = {-1, -1, -1, -1, -1};
};

class CambiCpu final : public CpuMetric {
 public:
  explicit CambiCpu(const OptionValues& o) : options_(o), features_(cambi::feature_names(o)) {}

  std::vector<std::string> feature_names() const override { return features_; }

  // Frame-sized buffers: the processing-size planes of one frame (levels, masks, c-values)
  // (frame_memory_test measures them).
  size_t frame_memory_bytes() const override { return frame_memory_; }

  void init(const MetricContext& context) override {
    pool_ = context.pool;
    setup_ = cambi::make_setup(options_, context.format);
    if (!options_.heatmaps_path.empty()) {
      const unsigned ws_enc = setup_.dis.window;
      heatmaps_.open(options_.heatmaps_path, setup_.dis.width, setup_.dis.height);
      int max_weight = *std::max_element(setup_.params.diff_weights.begin(),
                                         setup_.params.diff_weights.begin() + setup_.params.num_diffs);
      const int max_c = max_weight * int(ws_enc) * int(ws_enc) / 4;
      heatmap_factor_ = 65535.0 / double(max_c);
    }
    frame_memory_ = size_t(setup_.dis.width) * setup_.dis.height * 12;
  }

  void extract(const Picture& ref, const Picture& dis, uint64_t frame, FeatureWriter& out) override {
    const double dist_score = score(dis, setup_.dis, frame, heatmaps_.enabled());
    out.put(frame, 0, std::min(dist_score, options_.max_val));
    if (options_.full_ref) {
      const double src_score = score(ref, setup_.src, frame, false);
      out.put(frame, 1, std::min(src_score, options_.max_val));
      out.put(frame, 2, std::min(std::max(0.0, dist_score - src_score), options_.max_val));
    }
  }

 private:
  double score(const Picture& picture, const cambi::PictureSetup& setup, uint64_t frame,
               bool dump_heatmaps) {
    const PictureFormat& f = picture.format();
    const void* luma = picture.bytes();
    // Spec 4.1: every input luma sample must fit the bit depth (8 and 16 bits always do).
    const int bpc = setup_.bpc;
    if (bpc != 8 && bpc != 16) {
      if (cambi::max_sample(luma, size_t{f.width} * f.height, bpc) > (1u << bpc) - 1)
        throw InputError(cambi::invalid_input_message(frame, bpc));
    }
    unsigned w = setup.width, h = setup.height;
    const size_t n = size_t{w} * h;
    std::unique_ptr<Scratch> s = scratch_.take();
    s->reserve(n);
    cambi::convert_to_10bit(luma, f.width, bpc, setup.map, s->image.data());
    if (setup_.anti_dither) {
      cambi::anti_dither(s->image.data(), w, h, s->image2.data());
      std::swap(s->image, s->image2);
    }
    cambi::spatial_mask(s->image.data(), w, h, cambi::mask_index(w, h), s->mask.data());

    std::array<double, kNumScales> means{};
    for (int scale = 0; scale < kNumScales; ++scale) {
      if (scale > 0 || setup_.speedup) {
        cambi::decimate(s->image.data(), s->mask.data(), w, h, s->image2.data(), s->mask2.data());
        std::swap(s->image, s->image2);
        std::swap(s->mask, s->mask2);
        w = (w + 1) >> 1;
        h = (h + 1) >> 1;
      }
      cambi::mode_filter(s->image.data(), w, h, s->image2.data());
      std::swap(s->image, s->image2);
      const cambi::ValueSums sums =
          cambi::c_values(s->image.data(), s->mask.data(), w, h, setup.window, setup_.params,
                          s->c_values.data(), pool_);
      const size_t count = size_t{w} * h;
      if (dump_heatmaps)  // before pooling, which reorders the values
        heatmaps_.write(scale, frame, s->c_values.data(), w, h, heatmap_factor_, s->heatmap);
      means[size_t(scale)] = cambi::top_k_mean(std::span<float>(s->c_values.data(), count),
                                               cambi::top_k_count(options_.topk, count), &sums);
    }
    scratch_.give(std::move(s));
    return cambi::weight_scores(means, setup.window);
  }

  cambi::Options options_;
  std::vector<std::string> features_;
  ThreadPool* pool_ = nullptr;
  cambi::Setup setup_;
  HeatmapFiles heatmaps_;
  double heatmap_factor_ = 0;
  ScratchPool scratch_;
  size_t frame_memory_ = 0;
};

}  // namespace

const MetricDescriptor& cambi_descriptor() {
  static const MetricDescriptor descriptor{
      "cambi",
      "Contrast-aware multiscale banding index (Netflix CAMBI), no-reference on the distorted "
      "luma; full_ref=true also scores the reference",
      cambi::option_specs(),
      [](const OptionValues& o) { return std::make_unique<CambiCpu>(o); },
#ifdef VQX_HAVE_CUDA
      [](const OptionValues& o) { return make_cambi_cuda(o); },
#else
      nullptr,
#endif
      {
          {"Cambi_feature_cambi_score", "cambi"},
      },
  };
  return descriptor;
}

}  // namespace vqx
