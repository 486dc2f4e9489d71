#include "engine/cuda/device_scaler.h"

#include <algorithm>
#include <cstring>

#include "core/scale_rounding.h"
#include "engine/cuda/cuda_check.h"

namespace vqx::cuda {
namespace {

// Bytes of one filter's table: positions, then weights, padded to keep each table 16-byte aligned.
size_t table_bytes(const ScaleFilter& f) {
  size_t bytes = f.first.size() * sizeof(int32_t) + f.weights.size() * sizeof(int16_t);
  return (bytes + 15) / 16 * 16;
}

}  // namespace

DeviceScaler::DeviceScaler(DeviceContext& context, const PictureFormat& in,
                           const PictureFormat& out, ScaleMode mode)
    : in_(in), out_(out) {
  std::vector<PlaneFilters> filters = build_plane_filters(in, out, mode);
  size_t total = 0, largest_rows = 0;
  for (unsigned p = 0; p < in.plane_count(); ++p) {
    total += table_bytes(filters[p].horizontal) + table_bytes(filters[p].vertical);
    largest_rows = std::max(largest_rows, size_t(in.plane_height(p)) * out.plane_width(p));
  }
  filters_ = DeviceBuffer(context, total, "scale filters");
  rows_ = DeviceBuffer(context, largest_rows * (scale::wide_intermediate(in.bit_depth) ? 4 : 2),
                       "scale intermediate rows");

  std::vector<uint8_t> host(total);
  size_t offset = 0;
  auto place = [&](const ScaleFilter& f) {
    DeviceFilter d;
    d.taps = f.taps;
    d.first = reinterpret_cast<const int32_t*>(filters_.get<uint8_t>() + offset);
    std::memcpy(host.data() + offset, f.first.data(), f.first.size() * sizeof(int32_t));
    const size_t weights_at = offset + f.first.size() * sizeof(int32_t);
    d.weights = reinterpret_cast<const int16_t*>(filters_.get<uint8_t>() + weights_at);
    std::memcpy(host.data() + weights_at, f.weights.data(), f.weights.size() * sizeof(int16_t));
    offset += table_bytes(f);
    return d;
  };
  for (unsigned p = 0; p < in.plane_count(); ++p) {
    Plane plane;
    plane.geometry = {in.plane_width(p), in.plane_height(p), out.plane_width(p),
                      out.plane_height(p)};
    plane.horizontal = place(filters[p].horizontal);
    plane.vertical = place(filters[p].vertical);
    planes_.push_back(plane);
  }
  copy_to_device_now(filters_.get(), host.data(), total, "scale filter upload");
}

void DeviceScaler::enqueue(const uint8_t* in, uint8_t* out, cudaStream_t stream) const {
  for (unsigned p = 0; p < planes_.size(); ++p) {
    const Plane& plane = planes_[p];
    enqueue_horizontal_pass(in + in_.plane_offset(p), rows_.get(), plane.geometry, plane.horizontal,
                            in_.bit_depth, stream);
    enqueue_vertical_pass(rows_.get(), out + out_.plane_offset(p), plane.geometry, plane.vertical,
                          in_.bit_depth, stream);
  }
}

}  // namespace vqx::cuda
