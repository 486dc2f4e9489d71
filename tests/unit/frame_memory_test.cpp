// Each CPU metric's frame_memory_bytes(), the figure the engine's memory budget caps frames in
// flight by, against the heap its calls really take. This binary replaces operator new and delete
// to count live heap bytes; a fresh instance's first frames are scored in the calling thread
// (so its workspaces, its one-time state and any thread-local scratch all land in the count), and
// the peak above the bytes live before them must stay within the declared figure. The figure
// must also not be far above that peak: an inflated one would cap frames in flight for nothing.
#include <gtest/gtest.h>
#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <thread>

#include "core/error.h"
#include "core/thread_pool.h"
#include "engine/metric.h"
#include "support/fixtures.h"

namespace {

std::atomic<int64_t> g_live{0};
std::atomic<int64_t> g_peak{0};

void* counted_alloc(size_t size, size_t align) {
  void* p = align <= alignof(std::max_align_t)
                ? std::malloc(size ? size : 1)
                : std::aligned_alloc(align, (size + align - 1) / align * align);
  if (!p) throw std::bad_alloc();
  const int64_t live =
      g_live.fetch_add(int64_t(malloc_usable_size(p))) + int64_t(malloc_usable_size(p));
  int64_t peak = g_peak.load();
  while (live > peak && !g_peak.compare_exchange_weak(peak, live)) {
  }
  return p;
}

void counted_free(void* p) {
  if (!p) return;
  g_live.fetch_sub(int64_t(malloc_usable_size(p)));
  std::free(p);
}

}  // namespace

void* operator new(size_t size) { return counted_alloc(size, 0); }
void* operator new[](size_t size) { return counted_alloc(size, 0); }
void* operator new(size_t size, std::align_val_t a) { return counted_alloc(size, size_t(a)); }
void* operator new[](size_t size, std::align_val_t a) { return counted_alloc(size, size_t(a)); }
void operator delete(void* p) noexcept { counted_free(p); }
void operator delete[](void* p) noexcept { counted_free(p); }
void operator delete(void* p, size_t) noexcept { counted_free(p); }
void operator delete[](void* p, size_t) noexcept { counted_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { counted_free(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { counted_free(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { counted_free(p); }

namespace vqx::test {
namespace {

class NullWriter final : public FeatureWriter {
 public:
  void put(uint64_t, size_t, double) override {}
  void put_aggregate(const std::string&, double) override {}
};

struct Measured {
  bool refused = false;
  size_t declared = 0;
  int64_t peak = 0;  // heap bytes above those live before the first frame
};

// Scores three frames with a fresh instance of `spec` in the calling thread.
Measured measure_here(const std::string& spec, const PictureFormat& format) {
  const std::vector<Picture> ref = make_pictures(format, {1, 3, 5});
  const std::vector<Picture> dis = make_pictures(format, {2, 4, 6});
  const MetricRequest request = parse_metric_request(spec);
  std::unique_ptr<CpuMetric> metric = request.metric->make_cpu(request.options);
  ThreadPool pool(0);
  Measured m;
  try {
    metric->init(MetricContext{format, &pool});
  } catch (const InputError&) {
    m.refused = true;  // e.g. psnr_hvs above 12 bits
    return m;
  }
  NullWriter out;
  m.declared = metric->frame_memory_bytes();
  const int64_t before = g_live.load();
  g_peak.store(before);
  for (uint64_t frame = 0; frame < ref.size(); ++frame) {
    std::vector<EarlierFrame> earlier;
    for (uint64_t k = 1; k <= std::min<uint64_t>(frame, metric->history()); ++k)
      earlier.push_back({&ref[frame - k], &dis[frame - k]});
    if (metric->history() > 0) metric->prepare(ref[frame], dis[frame], earlier, frame);
    metric->extract(ref[frame], dis[frame], frame, out);
  }
  m.peak = g_peak.load() - before;
  return m;
}

// The same on a new thread, whose thread-local buffers start empty.
Measured measure(const std::string& spec, const PictureFormat& format) {
  Measured m;
  std::thread([&] { m = measure_here(spec, format); }).join();
  return m;
}

class FrameMemory : public ::testing::TestWithParam<std::string> {};

TEST_P(FrameMemory, DeclaredBytesBoundTheHeapAFrameTakes) {
  // Sizes where the frame-sized buffers dominate; odd ones, every chroma layout and depths above
  // 8 bits included.
  for (const PictureFormat& format : {make_format(640, 360, ChromaSubsampling::k422, 16),
                                      make_format(1001, 777, ChromaSubsampling::k444, 10),
                                      make_format(1920, 1080, ChromaSubsampling::k420, 8),
                                      make_format(1920, 1080, ChromaSubsampling::k444, 12)}) {
    const Measured m = measure(GetParam(), format);
    if (m.refused) continue;
    const std::string where = GetParam() + " at " + std::to_string(format.width) + "x" +
                              std::to_string(format.height) + ", " +
                              std::to_string(format.bit_depth) + " bits: declared " +
                              std::to_string(m.declared) + ", peak " + std::to_string(m.peak);
    // Row buffers and bookkeeping under 1 MiB need no declaration.
    EXPECT_LE(m.peak, int64_t(m.declared) + (int64_t{1} << 20)) << where;
    EXPECT_LE(int64_t(m.declared), m.peak + m.peak / 2 + (int64_t{1} << 20)) << where;
  }
}

INSTANTIATE_TEST_SUITE_P(
    EveryMetric, FrameMemory,
    ::testing::Values("psnr=enable_mse=true:enable_apsnr=true", "vif", "adm", "motion", "cambi",
                      "cambi=full_ref=true", "speed_chroma", "ssimulacra2", "float_ms_ssim",
                      "float_ssim", "ciede", "psnr_hvs", "float_psnr", "float_ansnr",
                      "float_moment", "float_vif", "float_adm", "float_motion", "speed_temporal",
                      // Options that change the sizes worked on.
                      "float_vif=vif_prescale=2.0",
                      "float_vif=vif_prescale=0.5:vif_skip_scale0=true",
                      "float_motion=motion_add_uv=true:motion_add_scale1=true",
                      "speed_temporal=speed_prescale=2.0", "speed_chroma=speed_prescale=2.0",
                      "float_ssim=scale=1", "cambi=enc_width=960:enc_height=540"),
    [](const auto& info) {
      std::string name;
      for (char c : info.param) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      return name;
    });

}  // namespace
}  // namespace vqx::test
