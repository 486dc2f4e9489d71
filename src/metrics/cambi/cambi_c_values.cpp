// CAMBI c-values (shared/spec/cambi.md 6.3): a sliding-histogram version and its plain twin.
//
// The fast version keeps upstream's data structure: for every column j a histogram over the
// level band, hist[level][j] = number of masked in-band pixels of that level in the window
// centred on column j of the current row. Moving down one row removes the row leaving the window
// and adds the row entering it. The row update (CambiKernels::replace_row) keeps the work
// proportional to what changes:
//   - a column whose leaving and entering pixel agree (level and mask) changes nothing;
//   - consecutive changed columns with the same level form a run, and a run [a, b] adds the
//     trapezoid |[a, b] n [j - pad, j + pad]| to hist[level][j] in one sweep over j, instead of
//     one (2 pad + 1)-wide update per pixel.
// Counts are exact integers (uint16, wrap-free since no count exceeds 4225), so neither the
// update order nor the split of rows into independently started chunks can change a value. Each
// histogram covers a strip of columns (its pixels reach pad columns further), so that its counts
// stay in cache.
#include <algorithm>
#include <bit>
#include <cstring>
#include <mutex>

#include "core/thread_pool.h"
#include "metrics/cambi/cambi_kernels.h"
#include "metrics/cambi/cambi_stages.h"

namespace vqx::cambi {
namespace {

// Rows [r0, r1) of the c-value plane in the columns of `hist`, starting from an empty histogram;
// [s0, s1) are the columns whose pixels reach into the strip, `none` a row of kNotCounted.
void c_value_rows(const uint16_t* levels, const uint16_t* none, int w, int h,
                  const StripHistogram& hist, int s0, int s1, const LevelTable& table, int r0,
                  int r1, float* out, ValueSums* sums) {
  const CambiKernels& k = cambi_kernels();
  const int pad = hist.pad;
  auto row = [&](int r) { return r >= 0 && r < h ? levels + size_t(r) * size_t(w) : none; };
  std::memset(hist.cells, 0, size_t(hist.stride) * size_t(hist.band + 1) * sizeof(uint16_t));
  for (int r = std::max(0, r0 - pad); r <= std::min(h - 1, r0 + pad); ++r)
    k.replace_row(hist, none, row(r), s0, s1);
  k.evaluate_row(hist, row(r0), table, out + size_t(r0) * size_t(w), sums);
  for (int i = r0 + 1; i < r1; ++i) {
    const uint16_t *leaving = row(i - pad - 1), *entering = row(i + pad);
    if (leaving != entering) k.replace_row(hist, leaving, entering, s0, s1);
    k.evaluate_row(hist, row(i), table, out + size_t(i) * size_t(w), sums);
  }
}

// Histogram storage reused across chunks and frames (a few MB each; fresh pages are slow).
class CellPool {
 public:
  std::vector<uint16_t> take(size_t n) {
    std::vector<uint16_t> v;
    {
      std::lock_guard lock(mutex_);
      if (!free_.empty()) {
        v = std::move(free_.back());
        free_.pop_back();
      }
    }
    if (v.size() < n) v.resize(n);
    return v;
  }
  void give(std::vector<uint16_t> v) {
    std::lock_guard lock(mutex_);
    if (free_.size() < 16) free_.push_back(std::move(v));
  }

 private:
  std::mutex mutex_;
  std::vector<std::vector<uint16_t>> free_;
};

CellPool& cell_pool() {
  static CellPool pool;
  return pool;
}

// Counts per histogram: 256 Ki of uint16 (512 KiB), half of a 1 MiB L2 and a quarter of a 2 MiB
// one; over the 564 levels of the default band a 4K-wide histogram is 4.3 MB.
constexpr size_t kStripCells = size_t{1} << 18;

}  // namespace

void counted_levels(const uint16_t* image, const uint8_t* mask, size_t n, const LevelParams& p,
                    uint16_t* levels) {
  cambi_kernels().counted_levels(image, mask, n, p.base, p.band, levels);
}

std::vector<uint32_t> level_contrasts(const LevelParams& p) {
  std::vector<uint32_t> contrasts(size_t(p.band), 0);
  for (int l = 0; l < p.band; ++l) {
    const int v = l + p.base;
    for (int d = 0; d < p.num_diffs; ++d)
      // Adjusted v against the adjusted tvi, and against the raw vlt_luma (quirk 2).
      if (v + p.num_diffs <= p.tvi[d] && v + p.num_diffs + d + 1 > p.vlt_luma)
        contrasts[size_t(l)] |= 1u << d;
  }
  return contrasts;
}

ValueSums c_values(const uint16_t* image, const uint8_t* mask, unsigned w, unsigned h,
                   unsigned window, const LevelParams& params, float* out, ThreadPool* pool) {
  const int iw = int(w), ih = int(h), pad = int(window >> 1);
  // Per-thread storage, reused across calls (fresh pages of a 4K plane cost more than the pass).
  // The chunks below run on other threads: they must see this thread's buffer, through a pointer.
  thread_local std::vector<uint16_t> level_storage;
  level_storage.resize(size_t{w} * h);
  const uint16_t* levels = level_storage.data();
  counted_levels(image, mask, level_storage.size(), params, level_storage.data());
  const std::vector<uint32_t> contrasts = level_contrasts(params);
  // Each chunk restarts its histogram from the window of its first row, which costs about one
  // window of rows, so chunks are at least eight windows tall; the count is rounded down and the
  // rows spread evenly, so that no last chunk is a few rows paying a whole restart. The split
  // depends on the plane and the window only, and the counts are exact whatever it is.
  const size_t chunks = size_t(std::max(1, ih / std::max(64, 8 * int(window))));
  const int chunk = int((size_t(ih) + chunks - 1) / chunks);
  // Each histogram covers a strip of columns narrow enough for its band + 1 rows of counts to
  // stay in a core's L2 cache beside the level rows it reads. The strips are equal (multiples of
  // 32 columns), so that none is a sliver paying the 2 pad columns a strip's scans cost; the
  // counts are exact whatever the strips.
  const int widest = std::max(64, int(kStripCells / size_t(params.band + 1)) & ~31);
  const int strips = (iw + widest - 1) / widest;
  const int strip_width = std::min(iw, ((iw + strips - 1) / strips + 31) & ~31);
  // Rows of counts start at 64-byte boundaries (whole aligned vectors per update).
  const int stride = (strip_width + 31) & ~31;
  const size_t cells = size_t(stride) * size_t(params.band + 1) + 32;
  thread_local std::vector<uint16_t> none_storage;
  none_storage.assign(w, kNotCounted);
  const uint16_t* none = none_storage.data();
  const LevelTable table{contrasts.data(), params.diff_weights.data(), reciprocal_lut().data()};
  // The sums are exact integers: the order the chunks add theirs in cannot matter.
  ValueSums total;
  std::mutex total_mutex;
  auto body = [&](size_t begin, size_t end) {
    ValueSums sums;
    std::vector<uint16_t> storage = cell_pool().take(cells);
    uint16_t* aligned = storage.data() + (-(reinterpret_cast<uintptr_t>(storage.data()) / 2) & 31);
    for (size_t c = begin; c < end; ++c) {
      const int r0 = int(c) * chunk, r1 = std::min(ih, r0 + chunk);
      if (r0 >= r1) continue;
      for (int x0 = 0; x0 < iw; x0 += strip_width) {
        const int x1 = std::min(iw, x0 + strip_width);
        const StripHistogram hist{aligned, stride, params.band, x0, x1, pad};
        c_value_rows(levels, none, iw, ih, hist, std::max(0, x0 - pad), std::min(iw, x1 + pad),
                     table, r0, r1, out, &sums);
      }
    }
    cell_pool().give(std::move(storage));
    std::lock_guard lock(total_mutex);
    total.add(sums);
  };
  if (pool && chunks > 1)
    pool->parallel_for(chunks, 1, body);
  else
    body(0, chunks);
  return total;
}

void c_values_plain(const uint16_t* image, const uint8_t* mask, unsigned w, unsigned h,
                    unsigned window, const LevelParams& p, float* out) {
  // Spec 6.3 read literally: N(u) by scanning the clipped window for every level needed.
  const int iw = int(w), ih = int(h), pad = int(window >> 1);
  const float* lut = reciprocal_lut().data();
  for (int i = 0; i < ih; ++i) {
    for (int j = 0; j < iw; ++j) {
      const size_t at = size_t(i) * w + size_t(j);
      const int v = image[at];
      float c = 0.0f;
      if (mask[at] && v >= p.base && v < p.base + p.band) {
        auto count = [&](int u) {
          if (u < p.base || u >= p.base + p.band) return 0;
          int n = 0;
          for (int r = std::max(0, i - pad); r <= std::min(ih - 1, i + pad); ++r)
            for (int q = std::max(0, j - pad); q <= std::min(iw - 1, j + pad); ++q) {
              const size_t k = size_t(r) * w + size_t(q);
              n += (mask[k] && image[k] == u) ? 1 : 0;
            }
          return n;
        };
        const int p0 = count(v);
        for (int d = 0; d < p.num_diffs; ++d) {
          if (v + p.num_diffs <= p.tvi[d] && v + p.num_diffs + d + 1 > p.vlt_luma) {
            const int p1 = count(v + d + 1);
            const int p2 = (v - d - 1 >= p.base) ? count(v - d - 1) : 0;
            const int pm = (p1 > p2) ? p1 : p2;
            const float val = float(p.diff_weights[d] * p0 * pm) * lut[p0 + pm];
            if (val > c) c = val;
          }
        }
      }
      out[at] = c;
    }
  }
}

}  // namespace vqx::cambi
