// The streamed per-frame schedule of SSIMULACRA 2 on the CPU (shared/spec/ssimulacra2.md sections 1
// and 3-9): the same stages as Workspace::run, a strip of rows at a time, so that a frame streams
// its planes through the cache once instead of writing and re-reading ~14 planes per scale.
//
// Why the bits stay the same:
// - XYB, products, downsampling and the horizontal blur are per pixel / per row: any row split
//   gives the same values.
// - The vertical blur is one recurrence per column in row order; blur_columns_steps runs the same
//   steps in the same order and keeps each column's state between strips.
// - Each accumulator chain (S of a channel, A/D of a channel) is added row after row in raster
//   order by a single task, as in the plane pipeline; the f32/f64 split of kFloatGroupsOf8 is taken
//   from each pixel's index in the flattened plane.
#include <algorithm>
#include <cstring>

#include "metrics/ssimulacra2/ssimulacra2_pipeline.h"

namespace vqx::ssimulacra2 {

namespace {

// Rows per strip, and rows per ring: a ring must hold a strip plus the 10 rows before it that the
// vertical recurrence still reads (inputs t - 6 .. t + 4), and a strip must never wrap around it.
constexpr uint32_t kStripRows = 16;
constexpr uint32_t kRingRows = 32;
static_assert(kRingRows >= kStripRows + 2 * kBlurRadius && kRingRows % kStripRows == 0);
static_assert(kStripRows % 8 == 0);  // even (downsampling pairs) and whole blocks of 8 rows

constexpr int kBlurPlanes = 5;  // mu1, mu2, sigma11, sigma22, sigma12 of one channel

}  // namespace

FrameSums StreamWorkspace::run(const Picture& ref, const Picture& dis, const YuvMatrix* matrix,
                               ThreadPool* pool, EdgeDifference edge_difference) {
  const PictureFormat& f = ref.format();
  const uint32_t w = f.width, h = f.height;
  const size_t strip_plane = size_t{kStripRows} * w, ring_plane = size_t{kRingRows} * w;
  auto grow = [](std::vector<float>& v, size_t n) {
    if (v.size() < n) v.resize(n);
  };
  grow(strip_, 6 * strip_plane);
  grow(xyb_, 6 * ring_plane);
  grow(blur_, 3 * kBlurPlanes * ring_plane);
  const size_t state_plane = column_state_floats(w);
  grow(state_, 3 * kBlurPlanes * state_plane);
  grow(down_[0], 6 * size_t{half_size(w)} * half_size(h));
  grow(down_[1], 6 * size_t{half_size(half_size(w))} * half_size(half_size(h)));

  const Picture* pictures[2] = {&ref, &dis};
  FrameSums result;
  const float* in = nullptr;  // this scale's linear planes (6, whole), null at scale 0
  uint32_t cw = w, ch = h;
  for (int scale = 0; scale < kNumScales; ++scale) {
    if (cw < kMinScaleSize || ch < kMinScaleSize) break;  // fork stop rule (section 4)
    const size_t n = size_t{cw} * ch;
    const uint32_t nw = half_size(cw), nh = half_size(ch);
    const bool downsample = scale + 1 < kNumScales && nw >= kMinScaleSize && nh >= kMinScaleSize;
    float* next = down_[scale % 2].data();
    const size_t nn = size_t{nw} * nh;
    const size_t ring = size_t{kRingRows} * cw;  // planes of this scale are cw wide
    std::fill_n(state_.data(), 3 * kBlurPlanes * state_plane, 0.0f);
    ChannelSums ssim_part[3], edge_part[3];
    const size_t f32_end = f32_difference_count(n, edge_difference);

    for (uint32_t y0 = 0; y0 < ch; y0 += kStripRows) {
      const uint32_t y1 = std::min(ch, y0 + kStripRows), rows = y1 - y0;
      const size_t slot = size_t{y0 % kRingRows} * cw;
      // Steps of the vertical recurrence this strip completes: up to the rows it has all inputs
      // of (t + 4 < y1), or to the end after the last strip.
      const long t0 = long(y0) - (kBlurRadius - 1);
      const long t1 = y1 == ch ? long(ch) : long(y1) - (kBlurRadius - 1);

      // Sections 2-4 for each image: linear RGB rows, their XYB, the next scale's rows.
      for_chunks(pool, 2, 1, [&](size_t b, size_t e) {
        for (size_t image = b; image < e; ++image) {
          const float* lin[3];
          for (int c = 0; c < 3; ++c) {
            const size_t p = 3 * image + size_t(c);
            if (in) {
              lin[c] = in + p * n + size_t{y0} * cw;
            } else {
              lin[c] = strip_.data() + p * size_t{kStripRows} * cw;
            }
          }
          if (!in) {
            float* out[3] = {const_cast<float*>(lin[0]), const_cast<float*>(lin[1]),
                             const_cast<float*>(lin[2])};
            if (matrix) yuv_to_linear_rgb_rows(*pictures[image], *matrix, out, y0, y1);
            else rgb_to_linear_rgb_rows(*pictures[image], out, y0, y1);
          }
          float* xyb = xyb_.data() + 3 * image * ring + slot;
          kernels_.xyb_planes(ConstRgbPlanes{{lin[0], lin[1], lin[2]}, cw, rows},
                            RgbPlanes{{xyb, xyb + ring, xyb + 2 * ring}, cw, rows}, 0,
                            size_t{rows} * cw);
          if (downsample) {
            for (uint32_t oy = y0 / 2; oy < half_size(y1); ++oy) {
              const uint32_t iy0 = 2 * oy, iy1 = iy0 + 1 < ch ? iy0 + 1 : ch - 1;
              for (int c = 0; c < 3; ++c)
                downsample_2x2_row(lin[c] + size_t{iy0 - y0} * cw, lin[c] + size_t{iy1 - y0} * cw,
                                   cw, next + (3 * image + size_t(c)) * nn + size_t{oy} * nw);
            }
          }
        }
      });

      // Sections 5-6: the 15 blurred planes of the strip (independent of each other).
      for_chunks(pool, 3 * kBlurPlanes, 1, [&](size_t b, size_t e) {
        for (size_t p = b; p < e; ++p) {
          const size_t c = p / kBlurPlanes, k = p % kBlurPlanes;
          const float* img1 = xyb_.data() + c * ring + slot;
          const float* img2 = xyb_.data() + (3 + c) * ring + slot;
          // mu1 = G(img1), mu2 = G(img2), s11 = G(img1^2), s22 = G(img2^2), s12 = G(img1*img2).
          const float* src[kBlurPlanes][2] = {
              {img1, nullptr}, {img2, nullptr}, {img1, img1}, {img2, img2}, {img1, img2}};
          float* plane_ring = blur_.data() + p * ring;
          kernels_.blur_rows(src[k][0], src[k][1], plane_ring + slot, cw, 0, rows);
          kernels_.blur_columns_steps(plane_ring, kRingRows, cw, ch, t0, t1,
                                      state_.data() + p * state_plane);
        }
      });

      // Sections 7-9: the strip's finished rows into the six chains, each in raster order.
      for_chunks(pool, 6, 1, [&](size_t b, size_t e) {
        for (size_t j = b; j < e; ++j) {
          const size_t c = j / 2;
          for (long t = std::max(t0, 0L); t < t1; ++t) {
            // Output row t sits in the ring row of input row t - 6 (blur_columns_steps).
            const size_t out_row = size_t((t + kRingRows - (kBlurRadius + 1)) % kRingRows) * cw;
            const float* mu[kBlurPlanes];
            for (int k = 0; k < kBlurPlanes; ++k)
              mu[k] = blur_.data() + (c * kBlurPlanes + size_t(k)) * ring + out_row;
            if (j % 2 == 0) {
              kernels_.sum_ssim_terms(mu[0], mu[1], mu[2], mu[3], mu[4], cw, ssim_part[c]);
            } else {
              const size_t row = size_t(t % kRingRows) * cw;
              const size_t base = size_t(t) * cw;
              const size_t f32_count = f32_end > base ? std::min<size_t>(cw, f32_end - base) : 0;
              kernels_.sum_edge_terms(xyb_.data() + c * ring + row, mu[0],
                                      xyb_.data() + (3 + c) * ring + row, mu[1], cw, f32_count,
                                      edge_part[c]);
            }
          }
        }
      });
    }

    for (int c = 0; c < 3; ++c) {
      ChannelSums& sums = result.sums[size_t(scale)][size_t(c)];
      sums.s1 = ssim_part[c].s1;
      sums.s4 = ssim_part[c].s4;
      sums.a1 = edge_part[c].a1;
      sums.a4 = edge_part[c].a4;
      sums.d1 = edge_part[c].d1;
      sums.d4 = edge_part[c].d4;
    }
    result.pixels[size_t(scale)] = n;
    result.scales = scale + 1;
    if (!downsample) break;
    in = next;
    cw = nw;
    ch = nh;
  }
  return result;
}

double score_pair_streamed(StreamWorkspace& workspace, const Picture& ref, const Picture& dis,
                           const YuvMatrix* matrix, ThreadPool* pool,
                           EdgeDifference edge_difference) {
  return pool_score(workspace.run(ref, dis, matrix, pool, edge_difference));
}

}  // namespace vqx::ssimulacra2
