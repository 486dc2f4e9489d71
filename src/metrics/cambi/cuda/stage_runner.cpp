#include "metrics/cambi/cuda/stage_runner.h"

#include "core/error.h"
#include "engine/cuda/cuda_check.h"
#include "metrics/cambi/cuda/device_stages.h"

namespace vqx::cambi_cuda {
namespace {

// A few dense blocks, so that the dense kernel's walk over its tile list takes several turns.
constexpr unsigned kDenseGrid = 7;

template <typename T>
std::vector<T> read_back(const cuda::DeviceBuffer& buffer, size_t offset, size_t count) {
  std::vector<T> host(count);
  cuda::check(
      cudaMemcpy(host.data(), buffer.get<T>() + offset, count * sizeof(T), cudaMemcpyDeviceToHost),
      "cambi stage runner: read back");
  return host;
}

}  // namespace

StageRunner::StageRunner(int device) : device_(device) {}

StageRunner::PreMask StageRunner::preprocess_mask(const void* luma, unsigned in_w, unsigned in_h,
                                                  int bpc, unsigned w, unsigned h, bool dither,
                                                  int mask_index) {
  const size_t in_bytes = size_t(in_w) * in_h * (bpc > 8 ? 2 : 1), n = size_t(w) * h;
  const cuda::DeviceBuffer input = upload(device_, luma, in_bytes, "cambi stage runner: luma");
  cuda::DeviceBuffer rows, cols;
  if (w != in_w || h != in_h) {
    const cambi::ResizeMap map = cambi::make_resize_map(in_w, in_h, w, h);
    rows = upload(device_, map.rows.data(), map.rows.size() * 4, "cambi stage runner: rows");
    cols = upload(device_, map.cols.data(), map.cols.size() * 4, "cambi stage runner: cols");
  }
  cuda::DeviceBuffer image(device_, n * 2, "cambi stage runner: image");
  cuda::DeviceBuffer mask(device_, n, "cambi stage runner: mask");
  cuda::check(cudaDeviceSynchronize(), "cambi stage runner: upload");  // legacy-stream copies
  // 0xFF everywhere first: a pixel the kernel never writes cannot match the CPU.
  cuda::check(cudaMemsetAsync(image.get(), 0xFF, n * 2, stream_.get()),
              "cambi stage runner: clear");
  cuda::check(cudaMemsetAsync(mask.get(), 0xFF, n, stream_.get()), "cambi stage runner: clear");
  enqueue_preprocess_mask(LumaPlane{input.get(), in_w, in_h, bpc}, rows.get<uint32_t>(),
                          cols.get<uint32_t>(), w, h, dither, mask_index, image.get<uint16_t>(),
                          mask.get<uint8_t>(), stream_.get());
  cuda::check(cudaStreamSynchronize(stream_.get()), "cambi stage runner: preprocess and mask");
  return PreMask{read_back<uint16_t>(image, 0, n), read_back<uint8_t>(mask, 0, n)};
}

StageRunner::CValues StageRunner::c_values(const std::vector<CValuePlane>& planes, unsigned window,
                                           const cambi::LevelParams& params, unsigned tile_rows,
                                           int dense_pieces, Route route) {
  if (planes.empty() || planes.size() > size_t(kNumScales) || tile_rows == 0 || dense_pieces < 1)
    throw RuntimeFailure("cambi stage runner: one to five planes, tile_rows > 0, dense_pieces > 0");
  TileArgs ta;
  ta.scales = int(planes.size());
  size_t offsets[kNumScales] = {}, total = 0;
  for (int s = 0; s < ta.scales; ++s) {
    const CValuePlane& p = planes[size_t(s)];
    ta.scale[s].w = int(p.w), ta.scale[s].h = int(p.h);
    offsets[s] = total;
    total += size_t(p.w) * p.h;
  }
  plan_tiles(ta, tile_rows);
  // Level maps as the mode filter writes them.
  std::vector<uint16_t> levels(std::max<size_t>(total, 1));
  for (int s = 0; s < ta.scales; ++s) {
    const CValuePlane& p = planes[size_t(s)];
    cambi::counted_levels(p.image, p.mask, size_t(p.w) * p.h, params, levels.data() + offsets[s]);
  }
  const std::vector<uint32_t> contrasts = cambi::level_contrasts(params);
  // The dense tile list: [count, tile ids...]; the classification kernel fills it for a frame.
  std::vector<uint32_t> list(size_t(ta.tiles) + 1, 0);
  if (route == Route::kEveryTileDense) {
    list[0] = uint32_t(ta.tiles);
    for (int t = 0; t < ta.tiles; ++t) list[size_t(t) + 1] = uint32_t(t);
  }
  const auto& lut = cambi::reciprocal_lut();
  const cuda::DeviceBuffer level =
      upload(device_, levels.data(), levels.size() * 2, "cambi stage runner: levels");
  const cuda::DeviceBuffer recip =
      upload(device_, lut.data(), lut.size() * sizeof(float), "cambi stage runner: table");
  const cuda::DeviceBuffer table =
      upload(device_, contrasts.data(), contrasts.size() * 4, "cambi stage runner: contrasts");
  const cuda::DeviceBuffer tile_list =
      upload(device_, list.data(), list.size() * 4, "cambi stage runner: tile list");
  const cuda::DeviceBuffer out(device_, levels.size() * 4, "cambi stage runner: c-values");
  cuda::check(cudaDeviceSynchronize(), "cambi stage runner: upload");  // legacy-stream copies
  // NaN everywhere first: a pixel the kernels never write cannot match the CPU.
  cuda::check(cudaMemsetAsync(out.get(), 0xFF, out.bytes(), stream_.get()),
              "cambi stage runner: clear");
  for (int s = 0; s < ta.scales; ++s) {
    ta.scale[s].level = level.get<uint16_t>() + offsets[s];
    ta.scale[s].out = out.get<float>() + offsets[s];
  }
  set_tile_tables(ta, window, params, recip.get<float>(), table.get<uint32_t>(),
                  tile_list.get<uint32_t>(), dense_pieces);
  prepare_dense_kernel(params.band, device_);
  if (route == Route::kFrame)
    enqueue_c_values(ta, DenseSide{side_.get(), fork_.get(), join_.get(), kDenseGrid},
                     stream_.get());
  else
    enqueue_dense_c_values(ta, kDenseGrid, stream_.get());
  cuda::check(cudaStreamSynchronize(stream_.get()), "cambi stage runner: c-values");
  CValues result;
  result.dense_tiles = read_back<uint32_t>(tile_list, 0, 1)[0];
  for (int s = 0; s < ta.scales; ++s)
    result.planes.push_back(
        read_back<float>(out, offsets[s], size_t(planes[size_t(s)].w) * planes[size_t(s)].h));
  return result;
}

}  // namespace vqx::cambi_cuda
