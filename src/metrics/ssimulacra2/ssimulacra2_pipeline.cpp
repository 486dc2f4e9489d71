// The per-frame schedule of SSIMULACRA 2 on the CPU (shared/spec/ssimulacra2.md sections 1 and 4).
#include "metrics/ssimulacra2/ssimulacra2_pipeline.h"

#include <algorithm>
#include <functional>

#include "core/thread_pool.h"

namespace vqx::ssimulacra2 {

namespace {

// Chunk sizes: fixed, so the split never depends on the thread count (and each chunk's results
// do not depend on the split anyway).
constexpr size_t kRowsPerChunk = 16;
constexpr size_t kPixelsPerChunk = 1 << 15;
constexpr size_t kRowBlocksPerChunk = 4;  // blocks of 8 rows in the horizontal pass
constexpr size_t kColumnsPerChunk = 256;  // in the vertical pass

constexpr int kBlurPlanes = 5;  // mu1, mu2, sigma11, sigma22, sigma12 of one channel

}  // namespace

void for_chunks(ThreadPool* pool, size_t n, size_t grain,
                const std::function<void(size_t, size_t)>& body) {
  if (pool) {
    pool->parallel_for(n, grain, body);
    return;
  }
  for (size_t b = 0; b < n; b += grain) body(b, b + grain < n ? b + grain : n);
}

void Workspace::resize(uint32_t w, uint32_t h) {
  width_ = w;
  height_ = h;
  const size_t full = size_t{w} * h;
  const size_t half = size_t{half_size(w)} * half_size(h);
  if (full_.size() < 6 * full) full_.resize(6 * full);
  if (xyb_.size() < 6 * full) xyb_.resize(6 * full);
  if (half_.size() < 6 * half) half_.resize(6 * half);
}

RgbPlanes Workspace::linear(int image) {
  const size_t full = size_t{width_} * height_;
  float* base = full_.data() + size_t(image) * 3 * full;
  return RgbPlanes{{base, base + full, base + 2 * full}, width_, height_};
}

FrameSums Workspace::run(ThreadPool* pool, EdgeDifference edge_difference) {
  FrameSums result;
  // The current scale's linear RGB lives in `cur` (6 planes: ref R G B, dis R G B); the next
  // scale is written to `next`; then `cur` is free and holds the blur outputs.
  float* cur = full_.data();
  float* next = half_.data();
  uint32_t cw = width_, ch = height_;
  for (int scale = 0; scale < kNumScales; ++scale) {
    if (cw < kMinScaleSize || ch < kMinScaleSize) break;  // fork stop rule (section 4)
    const size_t n = size_t{cw} * ch;
    auto plane = [n](float* base, int i) { return base + size_t(i) * n; };

    // Section 3: XYB of both images.
    for (int image = 0; image < 2; ++image) {
      const ConstRgbPlanes in{{plane(cur, 3 * image), plane(cur, 3 * image + 1),
                               plane(cur, 3 * image + 2)}, cw, ch};
      const RgbPlanes out{{plane(xyb_.data(), 3 * image), plane(xyb_.data(), 3 * image + 1),
                           plane(xyb_.data(), 3 * image + 2)}, cw, ch};
      for_chunks(pool, n, kPixelsPerChunk,
                 [&](size_t b, size_t e) { kernels_.xyb_planes(in, out, b, e); });
    }

    // Section 4: the next scale's linear RGB, from this one (downsampling is in linear RGB).
    const uint32_t nw = half_size(cw), nh = half_size(ch);
    if (scale + 1 < kNumScales) {
      const size_t nn = size_t{nw} * nh;
      for_chunks(pool, size_t{6} * nh, kRowsPerChunk, [&](size_t b, size_t e) {
        for (size_t i = b; i < e;) {
          const size_t p = i / nh;
          const uint32_t y0 = uint32_t(i % nh);
          const uint32_t y1 = uint32_t(std::min<size_t>(nh, y0 + (e - i)));
          downsample_2x2(plane(cur, int(p)), cw, ch, next + p * nn, y0, y1);
          i += y1 - y0;
        }
      });
    }

    // Sections 5-9, one channel at a time; `cur` now holds the five blurred planes.
    float* blurred[kBlurPlanes];
    for (int k = 0; k < kBlurPlanes; ++k) blurred[k] = plane(cur, k);
    const size_t row_blocks = (ch + 7) / 8;
    for (int c = 0; c < 3; ++c) {
      const float* img1 = plane(xyb_.data(), c);
      const float* img2 = plane(xyb_.data(), 3 + c);
      // mu1 = G(img1), mu2 = G(img2), s11 = G(img1^2), s22 = G(img2^2), s12 = G(img1*img2).
      const float* src[kBlurPlanes][2] = {
          {img1, nullptr}, {img2, nullptr}, {img1, img1}, {img2, img2}, {img1, img2}};
      for_chunks(pool, kBlurPlanes * row_blocks, kRowBlocksPerChunk, [&](size_t b, size_t e) {
        for (size_t i = b; i < e; ++i) {
          const size_t k = i / row_blocks;
          const uint32_t y0 = uint32_t((i % row_blocks) * 8);
          const uint32_t y1 = std::min<uint32_t>(ch, y0 + 8);
          kernels_.blur_rows(src[k][0], src[k][1], blurred[k], cw, y0, y1);
        }
      });
      const size_t column_chunks = (cw + kColumnsPerChunk - 1) / kColumnsPerChunk;
      for_chunks(pool, kBlurPlanes * column_chunks, 1, [&](size_t b, size_t e) {
        for (size_t i = b; i < e; ++i) {
          const size_t k = i / column_chunks;
          const uint32_t x0 = uint32_t((i % column_chunks) * kColumnsPerChunk);
          const uint32_t x1 = uint32_t(std::min<size_t>(cw, x0 + kColumnsPerChunk));
          kernels_.blur_columns(blurred[k], cw, ch, x0, x1);
        }
      });
      // The two independent accumulator chains, each strictly in raster order.
      ChannelSums& sums = result.sums[size_t(scale)][size_t(c)];
      ChannelSums ssim_part, edge_part;
      for_chunks(pool, 2, 1, [&](size_t b, size_t e) {
        for (size_t i = b; i < e; ++i) {
          if (i == 0)
            kernels_.sum_ssim_terms(blurred[0], blurred[1], blurred[2], blurred[3], blurred[4], n,
                                    ssim_part);
          else
            kernels_.sum_edge_terms(img1, blurred[0], img2, blurred[1], n,
                                    f32_difference_count(n, edge_difference), edge_part);
        }
      });
      sums.s1 = ssim_part.s1;
      sums.s4 = ssim_part.s4;
      sums.a1 = edge_part.a1;
      sums.a4 = edge_part.a4;
      sums.d1 = edge_part.d1;
      sums.d4 = edge_part.d4;
    }
    result.pixels[size_t(scale)] = n;
    result.scales = scale + 1;

    std::swap(cur, next);
    cw = nw;
    ch = nh;
  }
  return result;
}

void load_linear(Workspace& workspace, const Picture& ref, const Picture& dis,
                 const YuvMatrix* matrix, ThreadPool* pool) {
  const PictureFormat& f = ref.format();
  workspace.resize(f.width, f.height);
  const Picture* pictures[2] = {&ref, &dis};
  const size_t chunks_per_image = (f.height + kRowsPerChunk - 1) / kRowsPerChunk;
  for_chunks(pool, 2 * chunks_per_image, 1, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) {
      const size_t image = i / chunks_per_image;
      const uint32_t y0 = uint32_t((i % chunks_per_image) * kRowsPerChunk);
      const uint32_t y1 = uint32_t(std::min<size_t>(f.height, y0 + kRowsPerChunk));
      const RgbPlanes out = workspace.linear(int(image));
      if (matrix) yuv_to_linear_rgb(*pictures[image], *matrix, out, y0, y1);
      else rgb_to_linear_rgb(*pictures[image], out, y0, y1);
    }
  });
}

double score_pair(Workspace& workspace, const Picture& ref, const Picture& dis,
                  const YuvMatrix* matrix, ThreadPool* pool, EdgeDifference edge_difference) {
  load_linear(workspace, ref, dis, matrix, pool);
  return pool_score(workspace.run(pool, edge_difference));
}

}  // namespace vqx::ssimulacra2
