// libvmaf's `ciede` on the CPU (docs/ciede.md): the mean CIEDE2000 difference of every luma
// position, with chroma repeated to luma resolution, as 45 - 20 log10(mean).
#include "metrics/ciede/ciede.h"

#include <fmt/format.h>

#include <vector>

#include "core/error.h"
#include "core/thread_pool.h"
#include "metrics/ciede/ciede_math.h"
#ifdef VQX_HAVE_CUDA
#include "metrics/ciede/cuda/ciede_cuda.h"
#endif

namespace vqx {
namespace {

constexpr size_t kRowGrain = 8;

// A Y'CbCr sample triple (up to 16 bits each) as one integer.
uint64_t colour_key(uint32_t y, uint32_t u, uint32_t v) {
  return uint64_t(y) << 32 | uint64_t(u) << 16 | v;
}

class LastColour {
 public:
  const ciede::Lab& lab(uint64_t key, uint32_t y, uint32_t u, uint32_t v, unsigned bit_depth) {
    if (key != key_) {
      key_ = key;
      lab_ = ciede::yuv_to_lab(float(y), float(u), float(v), bit_depth);
    }
    return lab_;
  }

 private:
  uint64_t key_ = UINT64_MAX;  // no 16-bit triple packs to it
  ciede::Lab lab_{};
};

template <typename Sample>
void row_differences(const Picture& ref, const Picture& dis, uint32_t row, float* out) {
  const PictureFormat& f = ref.format();
  const ciede::ChromaShift shift = ciede::chroma_shift(f);
  const size_t luma = size_t(row) * f.width;
  const size_t chroma_row = size_t(row >> shift.y) * f.plane_width(1);
  const Sample* ry = ref.plane<Sample>(0) + luma;
  const Sample* dy = dis.plane<Sample>(0) + luma;
  const Sample* ru = ref.plane<Sample>(1) + chroma_row;
  const Sample* du = dis.plane<Sample>(1) + chroma_row;
  const Sample* rv = ref.plane<Sample>(2) + chroma_row;
  const Sample* dv = dis.plane<Sample>(2) + chroma_row;
  // Neighbours often share a colour (4:2:0 repeats each chroma pair over two columns), so each
  // side keeps the L*a*b* of the last colour it converted; a pair of equal colours has dE00 = 0
  // exactly (ciede::ciede2000 of a colour with itself, pinned by ciede_metric_test).
  LastColour last_ref, last_dis;
  for (uint32_t x = 0; x < f.width; ++x) {
    const uint32_t cx = x >> shift.x;
    const uint64_t ref_key = colour_key(ry[x], ru[cx], rv[cx]);
    const uint64_t dis_key = colour_key(dy[x], du[cx], dv[cx]);
    if (ref_key == dis_key) {
      out[x] = 0.0f;
      continue;
    }
    const ciede::Lab& a = last_ref.lab(ref_key, ry[x], ru[cx], rv[cx], f.bit_depth);
    const ciede::Lab& b = last_dis.lab(dis_key, dy[x], du[cx], dv[cx], f.bit_depth);
    out[x] = ciede::ciede2000(a, b);
  }
}

class CiedeCpu final : public CpuMetric {
 public:
  std::vector<std::string> feature_names() const override { return {"ciede2000"}; }

  // Frame-sized buffers: the f32 difference plane (frame_memory_test measures them).
  size_t frame_memory_bytes() const override { return frame_memory_; }

  void init(const MetricContext& context) override {
    ciede::require_supported(context.format);
    format_ = context.format;
    pool_ = context.pool;
    const PictureFormat& f = context.format;
    frame_memory_ = size_t(f.width) * f.height * 4;
  }

  void extract(const Picture& ref, const Picture& dis, uint64_t frame,
               FeatureWriter& out) override {
    // The per-pixel differences are independent; their f64 sum is upstream's raster-order one.
    const uint32_t w = format_.width, h = format_.height;
    std::vector<float> de00(size_t(w) * h);
    auto rows = [&](size_t begin, size_t end) {
      for (size_t y = begin; y < end; ++y) {
        float* dst = de00.data() + y * w;
        if (format_.bytes_per_sample() == 1)
          row_differences<uint8_t>(ref, dis, uint32_t(y), dst);
        else
          row_differences<uint16_t>(ref, dis, uint32_t(y), dst);
      }
    };
    pool_->parallel_for(h, kRowGrain, rows);
    out.put(frame, 0, ciede::score_from_sum(ciede::sequential_sum(de00), w, h));
  }

 private:
  PictureFormat format_;
  ThreadPool* pool_ = nullptr;
  size_t frame_memory_ = 0;
};

}  // namespace

const MetricDescriptor& ciede_descriptor() {
  static const MetricDescriptor descriptor{
      "ciede", "CIEDE2000 colour difference as 45 - 20 log10(mean dE00), libvmaf's ciede",
      {},
      [](const OptionValues&) { return std::make_unique<CiedeCpu>(); },
#ifdef VQX_HAVE_CUDA
      [](const OptionValues& o) { return make_ciede_cuda(o); },
#else
      nullptr,
#endif
  };
  return descriptor;
}

}  // namespace vqx
