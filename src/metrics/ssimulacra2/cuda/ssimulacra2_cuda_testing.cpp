// The test-only entry points of the SSIMULACRA 2 device code (ssimulacra2_cuda_testing.h).
#include "metrics/ssimulacra2/cuda/ssimulacra2_cuda_testing.h"

#include <array>

#include "engine/cuda/cuda_check.h"
#include "engine/cuda/device_context.h"

namespace vqx::ssimulacra2::cuda {
namespace {

using vqx::cuda::check;
using vqx::cuda::DeviceBuffer;
using vqx::cuda::DeviceContext;
using vqx::cuda::Stream;

// The pair of pictures in one device buffer, ref then dis, copied in `stream`'s order.
DeviceBuffer upload_pair(DeviceContext& device, const Picture& ref, const Picture& dis,
                         cudaStream_t stream) {
  const size_t bytes = ref.format().frame_bytes();
  DeviceBuffer frames(device, 2 * bytes, "test frames");
  check(cudaMemcpyAsync(frames.get(), ref.bytes(), bytes, cudaMemcpyHostToDevice, stream),
        "test upload");
  check(cudaMemcpyAsync(frames.get<uint8_t>() + bytes, dis.bytes(), bytes, cudaMemcpyHostToDevice,
                        stream),
        "test upload");
  return frames;
}

template <typename T>
std::vector<T> read_back(const void* device, size_t count, cudaStream_t stream) {
  std::vector<T> host(count);
  check(cudaMemcpyAsync(host.data(), device, sizeof(T) * count, cudaMemcpyDeviceToHost, stream),
        "test read");
  check(cudaStreamSynchronize(stream), "test read");
  return host;
}

// The six blocked XYB planes of a w x h scale in the CPU's row-major layout.
std::vector<float> unblock(const std::vector<float>& blocked, const BlockedPlane& g, uint32_t w,
                           uint32_t h) {
  const size_t n = size_t(w) * h;
  std::vector<float> planes(6 * n);
  for (size_t p = 0; p < 6; ++p)
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x)
        planes[p * n + size_t(y) * w + x] = blocked[p * g.floats + blocked_index(x, y, g.rows_t)];
  return planes;
}

}  // namespace

StageFrame run_stages(const Picture& ref, const Picture& dis, const YuvMatrix* matrix,
                      EdgeDifference edge_difference, int max_scales) {
  DeviceContext device(0);
  Stream stream;
  const PictureFormat& f = ref.format();
  const ScaleSizes sizes = scale_sizes(f.width, f.height, max_scales);
  DeviceBuffer frames = upload_pair(device, ref, dis, stream.get());
  StageFrame result;
  std::array<double, kResultDoubles> sums{};
  if (sizes.count > 0) {
    // One set of planes for every scale (sized for scale 0), the levels and the stage outputs.
    const size_t n0 = size_t(sizes.width[0]) * sizes.height[0];
    DeviceBuffer xyb(device,
                     sizeof(float) * 6 * blocked_plane(sizes.width[0], sizes.height[0]).floats,
                     "test XYB");
    DeviceBuffer hblur(device, sizeof(float) * 15 * n0, "test hblur");
    DeviceBuffer linear0(device, sizeof(float) * 6 * n0, "test linear");
    DeviceBuffer products(device, sizeof(float) * 9 * n0, "test products");
    DeviceBuffer vblur(device, sizeof(float) * 15 * n0, "test vblur");
    DeviceBuffer terms(device, sizeof(double) * 9 * n0, "test terms");
    DeviceBuffer reduced(device, sizeof(double) * kResultDoubles, "test sums");
    std::vector<DeviceBuffer> levels(kNumScales);
    ScaleTable table{};
    size_t partial_dd = 0;
    for (int s = 0; s < sizes.count; ++s) {
      table.partial_offset[s] = partial_dd;
      table.strips[s] = column_strips(sizes.width[s]);
      partial_dd += size_t(3) * table.strips[s] * kSums;
      if (s > 0)
        levels[size_t(s)] = DeviceBuffer(
            device, sizeof(float) * 6 * sizes.width[s] * sizes.height[s], "test level");
    }
    table.scales = sizes.count;
    DeviceBuffer partials(device, sizeof(Dd) * partial_dd, "test partials");
    const float* ones = ones_block();
    for (int s = 0; s < sizes.count; ++s) {
      const uint32_t w = sizes.width[s], h = sizes.height[s];
      const size_t n = size_t(w) * h;
      const BlockedPlane plane = blocked_plane(w, h);
      XybLaunch x;
      x.source = frame_source(f, matrix);
      x.source.frame[0] = frames.get<uint8_t>();
      x.source.frame[1] = frames.get<uint8_t>() + f.frame_bytes();
      x.rgb = matrix == nullptr;
      x.wide = f.bit_depth > 8;
      x.linear = s > 0 ? levels[size_t(s)].get<float>() : nullptr;
      x.width = w;
      x.height = h;
      x.plane = plane;
      x.xyb = xyb.get<float>();
      x.down = s + 1 < sizes.count ? levels[size_t(s) + 1].get<float>() : nullptr;
      x.linear_dump = s == 0 ? linear0.get<float>() : nullptr;
      launch_xyb(x, stream.get());
      RowsLaunch r;
      r.xyb = xyb.get<float>();
      r.ones = ones;
      r.width = w;
      r.height = h;
      r.plane = plane;
      r.hblur = hblur.get<float>();
      r.vec = w % 4 == 0;  // the buffers are allocations of their own: 256-byte aligned
      r.products_dump = products.get<float>();
      launch_blur_rows(r, stream.get());
      ColumnsLaunch c;
      c.hblur = hblur.get<float>();
      c.xyb = xyb.get<float>();
      c.width = w;
      c.height = h;
      c.plane = plane;
      c.f32_end = uint32_t(f32_difference_count(n, edge_difference));
      c.partials = partials.get<Dd>() + table.partial_offset[s];
      c.vblur_dump = vblur.get<float>();
      c.terms_dump = terms.get<double>();
      launch_blur_columns_terms(c, stream.get());

      StageScale d;
      d.width = w;
      d.height = h;
      d.linear =
          read_back<float>(s == 0 ? linear0.get() : levels[size_t(s)].get(), 6 * n, stream.get());
      d.xyb = unblock(read_back<float>(xyb.get(), 6 * plane.floats, stream.get()), plane, w, h);
      d.products = read_back<float>(products.get(), 9 * n, stream.get());
      d.hblur = read_back<float>(hblur.get(), 15 * n, stream.get());
      d.vblur = read_back<float>(vblur.get(), 15 * n, stream.get());
      d.terms = read_back<double>(terms.get(), 9 * n, stream.get());
      result.scales.push_back(std::move(d));
    }
    launch_reduce(partials.get<Dd>(), table, reduced.get<double>(), stream.get());
    const std::vector<double> host = read_back<double>(reduced.get(), kResultDoubles, stream.get());
    std::copy(host.begin(), host.end(), sums.begin());
  }
  result.sums = frame_sums(sizes, sums.data());
  result.score = pool_score(result.sums);
  return result;
}

ScheduledFrame run_frame(const Picture& ref, const Picture& dis, const YuvMatrix* matrix,
                         EdgeDifference edge_difference, const ScheduleBudget& budget) {
  DeviceContext device(0);
  Stream stream;
  FramePipeline pipeline;
  pipeline.init(ref.format(), matrix, edge_difference, device, budget);
  DeviceBuffer frames = upload_pair(device, ref, dis, stream.get());
  DeviceBuffer result(device, sizeof(double) * kResultDoubles, "test sums");
  check(cudaStreamSynchronize(stream.get()), "test upload");
  const uint8_t* pair = frames.get<uint8_t>();
  const vqx::cuda::GraphExec graph = vqx::cuda::GraphExec::capture(stream.get(), [&] {
    pipeline.enqueue_frame(pair, pair + ref.format().frame_bytes(), stream.get(),
                           result.get<double>(), nullptr);
  });
  graph.launch(stream.get());
  graph.launch(stream.get());  // a replay, as the engine's second frame in the slot
  const std::vector<double> host = read_back<double>(result.get(), kResultDoubles, stream.get());
  ScheduledFrame out;
  out.schedule = pipeline.schedule();
  out.chain_split = pipeline.chain_split();
  out.sums = pipeline.frame_sums(host.data());
  out.score = pool_score(out.sums);
  return out;
}

uint64_t division_mismatches(uint64_t count, uint32_t seed) {
  DeviceContext device(0);
  Stream stream;
  DeviceBuffer counter(device, sizeof(unsigned long long), "division check");
  check(cudaMemsetAsync(counter.get(), 0, sizeof(unsigned long long), stream.get()),
        "division check");
  launch_division_check(count, seed, counter.get<unsigned long long>(), stream.get());
  return read_back<unsigned long long>(counter.get(), 1, stream.get())[0];
}

uint64_t cbrt_mismatches(uint64_t* eotf_mismatches) {
  DeviceContext device(0);
  Stream stream;
  DeviceBuffer counter(device, 2 * sizeof(unsigned long long), "cbrt check");
  check(cudaMemsetAsync(counter.get(), 0, 2 * sizeof(unsigned long long), stream.get()),
        "cbrt check");
  launch_cbrt_check(counter.get<unsigned long long>(), stream.get());
  const std::vector<unsigned long long> host =
      read_back<unsigned long long>(counter.get(), 2, stream.get());
  if (eotf_mismatches) *eotf_mismatches = host[1];
  return host[0];
}

}  // namespace vqx::ssimulacra2::cuda
