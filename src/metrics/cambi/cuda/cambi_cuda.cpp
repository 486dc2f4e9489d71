// cambi on CUDA (shared/spec/cambi.md section 10; contract in shared/spec/README.md): the metric
// that enqueues the device stages of device_stages.h.
//
// Per picture (the distorted one, then the reference with full_ref), all on the device, on the
// engine's stream (the dense c-value tiles on a forked one): input check (a status bit) -> the
// 10-bit conversion, anti-dither and spatial mask in one kernel -> per scale the decimation and
// mode filter, writing the level map -> the c-values of all five scales -> three radix passes ->
// per scale the exact top-K sum in units of 2^-24 as a 128-bit integer, in the result slot that
// the engine reads back once per frame. The host turns each sum into the mean exactly as the
// CPU's exact path does and applies the CPU's own weight_scores(). Everything before that is
// integer or the CPU's f32 formula operation for operation, so the device computes the CPU's
// c-values bit for bit, and the sums are exact integers.
#include "metrics/cambi/cuda/cambi_cuda.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "engine/cuda/cuda_check.h"
#include "metrics/cambi/cambi_setup.h"
#include "metrics/cambi/cuda/device_stages.h"

namespace vqx {
namespace {

using namespace cambi_cuda;
using u128 = unsigned __int128;

// The result slot, copied back once per frame.
struct CambiResult {
  u64 sum[2][kNumScales][2];  // [picture][scale] exact top-K sum in units of 2^-24 (lo, hi)
  unsigned status;
  unsigned pad;
};

// The stages enqueue() marks per picture, after "clear".
constexpr const char* kPictureStages[] = {"preprocess and mask", "mode filter", "c-values",
                                          "top-k"};
constexpr size_t kStagesPerPicture = std::size(kPictureStages);

struct ScaleGeom {
  unsigned w = 0, h = 0;
  size_t offset = 0;  // of the scale's plane in the per-scale buffers
  u64 n = 0, k = 0;
};

struct PictureGeom {
  unsigned width = 0, height = 0, window = 0;
  int mask_index = 0;
  std::array<ScaleGeom, kNumScales> scale;
  size_t pixels = 0;  // of all scales
};

class CambiCuda final : public CudaMetric {
 public:
  explicit CambiCuda(const OptionValues& o) : options_(o), features_(cambi::feature_names(o)) {}

  std::vector<std::string> feature_names() const override { return features_; }

  std::vector<std::string> stage_names() const override {
    std::vector<std::string> names = {"clear"};
    for (const char* who : {"dis", "src"}) {
      if (std::string(who) == "src" && !options_.full_ref) break;
      for (const char* stage : kPictureStages) names.push_back(std::string(who) + " " + stage);
    }
    return names;
  }

  void init(const CudaMetricContext& context) override;

  size_t result_bytes() const override { return sizeof(CambiResult); }

  void enqueue(const CudaFrame& frame, uint64_t, cudaStream_t stream, void* result,
               StageMarks& marks) override {
    marks.stage(stream, 0);
    cuda::check(cudaMemsetAsync(result, 0, sizeof(CambiResult), stream), "cambi: clear result");
    cuda::check(cudaMemsetAsync(state_.get(), 0, state_.bytes(), stream), "cambi: clear state");
    auto* r = static_cast<CambiResult*>(result);
    enqueue_picture(frame.dis, 0, stream, r, marks);
    if (options_.full_ref) enqueue_picture(frame.ref, 1, stream, r, marks);
  }

  void collect(const void* result, uint64_t frame, FeatureWriter& out) override {
    const auto& r = *static_cast<const CambiResult*>(result);
    if (r.status & (kStatusInvalidDis | kStatusInvalidRef))
      throw InputError(cambi::invalid_input_message(frame, setup_.bpc));
    if (r.status & kStatusBadValue)
      throw RuntimeFailure("cambi (cuda): frame " + std::to_string(frame) +
                           ": a c-value outside [0.5, 2^14) appeared, so the top-K sum would not "
                           "be exact (internal error)");
    if (r.status & kStatusSelection)
      throw RuntimeFailure("cambi (cuda): frame " + std::to_string(frame) +
                           ": the top-K radix select lost count (internal error)");
    const double dist = score(r, 0, setup_.dis.window);
    out.put(frame, 0, std::min(dist, options_.max_val));
    if (options_.full_ref) {
      const double src = score(r, 1, setup_.src.window);
      out.put(frame, 1, std::min(src, options_.max_val));
      out.put(frame, 2, std::min(std::max(0.0, dist - src), options_.max_val));
    }
  }

 private:
  PictureGeom plan(const cambi::PictureSetup& ps) const;
  void enqueue_picture(const uint8_t* picture, int pic, cudaStream_t stream, CambiResult* r,
                       StageMarks& marks);

  // Spec 10.2 step 4: mean_s = f64(S_s * 2^-24) / k_s, the conversion correctly rounded (exact
  // below 2^53, where it is the CPU's exact sum bit for bit), then the CPU's weighting.
  double score(const CambiResult& r, int pic, unsigned window) const {
    std::array<double, kNumScales> means{};
    for (int s = 0; s < kNumScales; ++s) {
      const u64 lo = r.sum[pic][s][0], hi = r.sum[pic][s][1];
      // u64 -> f64 rounds to nearest; sums stay below 2^63 (< 2^25 values below 2^38 units).
      const double sum = hi == 0 ? double(lo) : double((u128(hi) << 64) | lo);
      means[size_t(s)] = std::ldexp(sum, -24) / double(geom_[pic].scale[s].k);
    }
    return cambi::weight_scores(means, window);
  }

  cambi::Options options_;
  std::vector<std::string> features_;
  cambi::Setup setup_;
  PictureFormat format_;
  PictureGeom geom_[2];
  TileArgs tiles_[2];
  PassArgs passes_[2];  // without the result slot's pointers
  unsigned pass_blocks_ = 1;
  const uint32_t* resize_rows_[2] = {};  // null: the picture is not resized
  const uint32_t* resize_cols_[2] = {};
  cuda::DeviceBuffer resize_maps_[2][2];
  cuda::DeviceBuffer recip_, contrasts_, pre_, mask_, filtered_, level_, cvals_, state_, tile_list_;
  std::unique_ptr<cuda::Stream> dense_stream_;
  std::unique_ptr<cuda::Event> dense_fork_, dense_join_;
  DenseSide dense_side_;
};

// Scale sizes and k.
PictureGeom CambiCuda::plan(const cambi::PictureSetup& ps) const {
  PictureGeom g;
  g.width = ps.width, g.height = ps.height, g.window = ps.window;
  g.mask_index = cambi::mask_index(ps.width, ps.height);
  unsigned w = ps.width, h = ps.height;
  for (int s = 0; s < kNumScales; ++s) {
    if (s > 0 || setup_.speedup) w = (w + 1) >> 1, h = (h + 1) >> 1;
    ScaleGeom& sc = g.scale[size_t(s)];
    sc.w = w, sc.h = h;
    sc.n = u64(w) * h;
    sc.k = cambi::top_k_count(options_.topk, sc.n);
    sc.offset = g.pixels;
    g.pixels += sc.n;
  }
  return g;
}

void CambiCuda::init(const CudaMetricContext& context) {
  setup_ = cambi::make_setup(options_, context.format);  // the CPU's checks and messages
  if (!options_.heatmaps_path.empty())
    throw InputError(
        "cambi: heatmaps_path needs --backend cpu (the CUDA twin keeps the c-value maps on the "
        "device and reads back only the pooled sums)");
  format_ = context.format;
  auto& device = *context.device;
  const cambi::LevelParams& p = setup_.params;
  const int pictures = options_.full_ref ? 2 : 1;
  const cambi::PictureSetup* setups[2] = {&setup_.dis, &setup_.src};

  // The c-value schedule by input size (measured, docs/cambi.md): below 4K 16-row tiles and the
  // dense tiles in two row pieces; from 4K 32-row tiles and whole dense tiles.
  const bool below_4k = u64{format_.width} * format_.height < u64{3840} * 2160;
  const unsigned tile_rows = below_4k ? 16 : 32;
  const int dense_pieces = below_4k ? 2 : 1;

  size_t max_input = 0, max_pixels = 0;
  int max_tiles = 1;
  for (int i = 0; i < pictures; ++i) {
    geom_[i] = plan(*setups[i]);
    max_input = std::max(max_input, size_t{geom_[i].width} * geom_[i].height);
    max_pixels = std::max(max_pixels, geom_[i].pixels);
    TileArgs& ta = tiles_[i];
    ta.scales = kNumScales;
    for (int s = 0; s < kNumScales; ++s) {
      ta.scale[s].w = int(geom_[i].scale[size_t(s)].w);
      ta.scale[s].h = int(geom_[i].scale[size_t(s)].h);
    }
    plan_tiles(ta, tile_rows);
    max_tiles = std::max(max_tiles, ta.tiles);
    pass_blocks_ = std::max(pass_blocks_, top_k_blocks(geom_[i].scale[0].n));
  }

  // Tables: resize maps (none without resize), the CPU's reciprocal table, per-level contrasts.
  for (int i = 0; i < pictures; ++i) {
    const auto& ps = *setups[i];
    if (ps.width == format_.width && ps.height == format_.height) continue;
    resize_maps_[i][0] =
        upload(device, ps.map.rows.data(), ps.map.rows.size() * 4, "cambi resize rows");
    resize_maps_[i][1] =
        upload(device, ps.map.cols.data(), ps.map.cols.size() * 4, "cambi resize cols");
    resize_rows_[i] = resize_maps_[i][0].get<uint32_t>();
    resize_cols_[i] = resize_maps_[i][1].get<uint32_t>();
  }
  const auto& lut = cambi::reciprocal_lut();
  recip_ = upload(device, lut.data(), lut.size() * sizeof(float), "cambi reciprocal table");
  const std::vector<uint32_t> contrasts = cambi::level_contrasts(p);
  contrasts_ = upload(device, contrasts.data(), contrasts.size() * 4, "cambi level table");

  pre_ = cuda::DeviceBuffer(device, max_input * 2, "cambi 10-bit image");
  mask_ = cuda::DeviceBuffer(device, max_input, "cambi mask");
  filtered_ = cuda::DeviceBuffer(device, max_pixels * 2, "cambi filtered scales");
  level_ = cuda::DeviceBuffer(device, max_pixels * 2, "cambi level maps");
  cvals_ = cuda::DeviceBuffer(device, max_pixels * 4, "cambi c-values");
  tile_list_ = cuda::DeviceBuffer(device, (size_t(max_tiles) + 1) * 4, "cambi dense tile list");
  state_ = cuda::DeviceBuffer(device, sizeof(ScaleState) * 2 * kNumScales, "cambi top-k state");

  for (int i = 0; i < pictures; ++i) {
    TileArgs& ta = tiles_[i];
    PassArgs& pa = passes_[i];
    for (int s = 0; s < kNumScales; ++s) {
      const ScaleGeom& sc = geom_[i].scale[size_t(s)];
      ta.scale[s].level = level_.get<uint16_t>() + sc.offset;
      ta.scale[s].out = cvals_.get<float>() + sc.offset;
      pa.scale[s] = PassScale{cvals_.get<float>() + sc.offset, sc.n, sc.k,
                              state_.get<ScaleState>() + i * kNumScales + s};
    }
    set_tile_tables(ta, geom_[i].window, p, recip_.get<float>(), contrasts_.get<uint32_t>(),
                    tile_list_.get<uint32_t>(), dense_pieces);
  }

  // The dense tiles run on a high-priority stream beside the compact ones.
  dense_stream_ = std::make_unique<cuda::Stream>(cuda::Stream::Priority::kHighest);
  dense_fork_ = std::make_unique<cuda::Event>(false);
  dense_join_ = std::make_unique<cuda::Event>(false);
  dense_side_ = DenseSide{dense_stream_->get(), dense_fork_->get(), dense_join_->get(),
                          prepare_dense_kernel(p.band, device)};
}

void CambiCuda::enqueue_picture(const uint8_t* picture, int pic, cudaStream_t stream,
                                CambiResult* r, StageMarks& marks) {
  const PictureGeom& g = geom_[pic];
  const cambi::LevelParams& p = setup_.params;
  const size_t first_stage = 1 + size_t(pic) * kStagesPerPicture;

  marks.stage(stream, first_stage);
  const LumaPlane luma{picture, format_.width, format_.height, setup_.bpc};  // plane 0 is first
  enqueue_validate(luma, &r->status, pic == 0 ? kStatusInvalidDis : kStatusInvalidRef, stream);
  enqueue_preprocess_mask(luma, resize_rows_[pic], resize_cols_[pic], g.width, g.height,
                          setup_.anti_dither, g.mask_index, pre_.get<uint16_t>(),
                          mask_.get<uint8_t>(), stream);

  marks.stage(stream, first_stage + 1);
  uint16_t* filtered = filtered_.get<uint16_t>();
  for (int s = 0; s < kNumScales; ++s) {
    const ScaleGeom& sc = g.scale[size_t(s)];
    ModeFilterScale in;
    in.prev = s == 0 ? pre_.get<uint16_t>() : filtered + g.scale[size_t(s) - 1].offset;
    in.prev_w = s == 0 ? g.width : g.scale[size_t(s) - 1].w;
    in.step = (s > 0 || setup_.speedup) ? 2 : 1;
    in.mask = mask_.get<uint8_t>();
    in.mask_w = g.width;
    in.shift = unsigned(s) + (setup_.speedup ? 1 : 0);
    in.w = sc.w, in.h = sc.h;
    enqueue_mode_filter(in, p.base, p.band, filtered + sc.offset,
                        level_.get<uint16_t>() + sc.offset, stream);
  }

  marks.stage(stream, first_stage + 2);
  enqueue_c_values(tiles_[pic], dense_side_, stream);

  marks.stage(stream, first_stage + 3);
  PassArgs pa = passes_[pic];
  pa.sums = &r->sum[pic][0][0];
  pa.status = &r->status;
  enqueue_top_k(pa, pass_blocks_, stream);
}

}  // namespace

std::unique_ptr<CudaMetric> make_cambi_cuda(const OptionValues& options) {
  return std::make_unique<CambiCuda>(options);
}

}  // namespace vqx
