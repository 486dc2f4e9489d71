// CAMBI c-values (shared/spec/cambi.md 6.3): a sliding-histogram version and its plain twin.
//
// The fast version keeps upstream's data structure: for every column j a histogram over the
// level band, hist[level][j] = number of masked in-band pixels of that level in the window
// centred on column j of the current row. Moving down one row removes the row leaving the window
// and adds the row entering it. Two refinements keep the work proportional to what changes:
//   - a column whose leaving and entering pixel agree (level and mask) changes nothing;
//   - consecutive changed columns with the same level form a run, and a run [a, b] adds the
//     trapezoid |[a, b] n [j - pad, j + pad]| to hist[level][j] in one sweep over j, instead of
//     one (2 pad + 1)-wide update per pixel.
// Counts are exact integers (uint16, wrap-free since no count exceeds 4225), so neither the
// update order nor the split of rows into independently started chunks can change a value. The
// scans, updates and per-run c-values are the kernels of cambi_kernels.h. Each histogram covers a
// strip of columns (its pixels reach pad columns further), so that its counts stay in cache.
#include <algorithm>
#include <bit>
#include <cstring>
#include <mutex>

#include "core/thread_pool.h"
#include "metrics/cambi/cambi_kernels.h"
#include "metrics/cambi/cambi_stages.h"

namespace vqx::cambi {
namespace {

// The columns one histogram covers: [x0, x1) of an image w wide, and [s0, s1), the columns whose
// pixels reach into it (a pixel at column c counts for the columns c - pad .. c + pad).
struct Strip {
  int x0, x1, s0, s1;
};

// Adds (Sign = +1) or removes (-1) the run [a, b] of one level: hist[j - x0] += overlap of [a, b]
// with [j - pad, j + pad], for the j in [x0, x1) where that is non-zero. The overlap is a
// trapezoid: rising 1..m-1, a plateau of m = min(run, window), falling m-1..1, each part one
// linear update (in strip coordinates: base + slope * j = base + slope * x0 + slope * (j - x0)).
template <int Sign>
void apply_run(const CambiKernels& k, uint16_t* hist, const Strip& s, int pad, int a, int b) {
  const int window = 2 * pad + 1;
  const int m = std::min(b - a + 1, window);
  const int j0 = a - pad, j1 = b + pad;
  const int rise_end = j0 + m - 1;  // first plateau column
  const int fall_begin = j1 - m + 2;  // first column after the plateau
  auto part = [&](int lo, int hi, int base, int slope) {
    lo = std::max(lo, s.x0);
    hi = std::min(hi, s.x1);
    if (lo < hi) k.add_linear(hist, lo - s.x0, hi - s.x0, base + slope * s.x0, slope);
  };
  part(j0, rise_end, Sign * (1 - j0), Sign);
  part(rise_end, fall_begin, Sign * m, 0);
  part(fall_begin, j1 + 1, Sign * (j1 + 1), -Sign);
}

// Calls apply(level, a, b) for every maximal run [a, b] of equal counted levels of row[c, end).
// Splitting a run changes nothing: overlaps with the window add up over the pieces.
template <typename Apply>
void for_each_run(const CambiKernels& k, const uint16_t* row, int c, int end, Apply apply) {
  while (c < end) {
    const int start = c;
    c = k.run_end(row, c, end);
    if (row[start] != kNotCounted) apply(row[start], start, c - 1);
  }
}

class SlidingHistogram {
 public:
  // `cells` holds band + 1 rows of x1 - x0 counts; row `band` stays zero (the count of any level
  // outside the band).
  SlidingHistogram(const CambiKernels& kernels, uint16_t* cells, const Strip& strip, int band,
                   int pad)
      : k_(kernels), cells_(cells), s_(strip), sw_(strip.x1 - strip.x0), band_(band), pad_(pad) {
    std::memset(cells_, 0, size_t(sw_) * size_t(band + 1) * sizeof(uint16_t));
  }
  // Counts of level l for the strip's columns, indexed from x0.
  const uint16_t* level(int l) const { return cells_ + size_t(l) * size_t(sw_); }
  const uint16_t* level_or_zero(int l) const { return level(l >= 0 && l < band_ ? l : band_); }

  // Adds (+1) or removes (-1) a whole row of levels (the full image row).
  template <int Sign>
  void apply_row(const uint16_t* row) {
    for_each_run(k_, row, s_.s0, s_.s1, [&](uint16_t l, int a, int b) {
      apply_run<Sign>(k_, level_mut(l), s_, pad_, a, b);
    });
  }

  // Replaces row `out` by row `in` in the window; columns where they agree change nothing.
  void replace_row(const uint16_t* out, const uint16_t* in) {
    int c = s_.s0;
    while (c < s_.s1) {
      c = k_.first_difference(out, in, c, s_.s1);
      if (c == s_.s1) break;
      const int end = k_.first_agreement(out, in, c + 1, s_.s1);
      // [c, end) is a maximal stretch of changed columns: its leaving levels are removed and
      // its entering levels added, each as runs of equal levels.
      for_each_run(k_, out, c, end, [&](uint16_t l, int a, int b) {
        apply_run<-1>(k_, level_mut(l), s_, pad_, a, b);
      });
      for_each_run(k_, in, c, end, [&](uint16_t l, int a, int b) {
        apply_run<+1>(k_, level_mut(l), s_, pad_, a, b);
      });
      c = end;
    }
  }

 private:
  uint16_t* level_mut(int l) { return cells_ + size_t(l) * size_t(sw_); }
  const CambiKernels& k_;
  uint16_t* cells_;
  Strip s_;
  int sw_, band_, pad_;
};

// c = max over d of f32(w_d * p0 * pm) * R[p0 + pm] (spec 6.3 step 3) for the strip's columns of
// one row, evaluated for each run of pixels with the same level, so that every count is a
// contiguous read of one histogram row. `levels` and `out` are full image rows.
void evaluate_row(const CambiKernels& k, const uint16_t* levels, const Strip& s,
                  const SlidingHistogram& hist, const std::vector<uint32_t>& contrasts,
                  const LevelParams& p, const float* lut, float* out) {
  ContrastRows rows[kMaxNumDiffs];
  float* strip_out = out + s.x0;
  int j = s.x0;
  while (j < s.x1) {
    const uint16_t l = levels[j];
    const int start = j;
    j = k.run_end(levels, j, s.x1);
    uint32_t diffs = l == kNotCounted ? 0 : contrasts[l];
    int count = 0;
    while (diffs) {
      const int d = std::countr_zero(diffs);
      diffs &= diffs - 1;
      rows[count++] = {hist.level_or_zero(l + d + 1), hist.level_or_zero(l - d - 1),
                       p.diff_weights[d]};
    }
    if (count)
      k.evaluate_run(hist.level(l), rows, count, lut, start - s.x0, j - s.x0, strip_out);
    else
      std::fill(out + start, out + j, 0.0f);
  }
}

// Rows [r0, r1) of the c-value plane in the strip's columns, starting from an empty histogram.
void c_value_rows(const uint16_t* levels, int w, int h, int pad, const LevelParams& p,
                  const std::vector<uint32_t>& contrasts, const Strip& strip, int r0, int r1,
                  uint16_t* cells, float* out) {
  const CambiKernels& k = cambi_kernels();
  const float* lut = reciprocal_lut().data();
  SlidingHistogram hist(k, cells, strip, p.band, pad);
  for (int r = std::max(0, r0 - pad); r <= std::min(h - 1, r0 + pad); ++r)
    hist.apply_row<+1>(levels + size_t(r) * w);
  evaluate_row(k, levels + size_t(r0) * w, strip, hist, contrasts, p, lut, out + size_t(r0) * w);
  for (int i = r0 + 1; i < r1; ++i) {
    const int leaving = i - pad - 1, entering = i + pad;
    if (leaving >= 0 && entering < h)
      hist.replace_row(levels + size_t(leaving) * w, levels + size_t(entering) * w);
    else if (leaving >= 0)
      hist.apply_row<-1>(levels + size_t(leaving) * w);
    else if (entering < h)
      hist.apply_row<+1>(levels + size_t(entering) * w);
    evaluate_row(k, levels + size_t(i) * w, strip, hist, contrasts, p, lut, out + size_t(i) * w);
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

void c_values(const uint16_t* image, const uint8_t* mask, unsigned w, unsigned h, unsigned window,
              const LevelParams& params, float* out, ThreadPool* pool) {
  const int iw = int(w), ih = int(h), pad = int(window >> 1);
  // Per-thread storage, reused across calls (fresh pages of a 4K plane cost more than the pass).
  // The chunks below run on other threads: they must see this thread's buffer, through a pointer.
  thread_local std::vector<uint16_t> level_storage;
  level_storage.resize(size_t{w} * h);
  const uint16_t* levels = level_storage.data();
  counted_levels(image, mask, level_storage.size(), params, level_storage.data());
  const std::vector<uint32_t> contrasts = level_contrasts(params);
  // Each chunk restarts its histogram from the window of its first row; a fixed chunk height
  // (from the window only) keeps the split independent of the thread count. The restart costs
  // about one window of rows, so chunks are several windows tall.
  // Rounding the count down and spreading the rows evenly over it keeps a last chunk from being
  // a few rows that pay a whole restart.
  const size_t chunks = size_t(std::max(1, ih / std::max(64, 8 * int(window))));
  const int chunk = int((size_t(ih) + chunks - 1) / chunks);
  // Each histogram covers a strip of columns narrow enough for its band + 1 rows of counts to
  // stay in a core's L2 cache beside the level rows it reads; the strip width depends on the
  // band only, and the counts are exact whatever the strips.
  // Equal strips (multiples of 32 columns), so that none is a sliver that pays the 2 pad columns
  // of run scanning a strip costs for a few columns of output.
  const int widest = std::max(64, int(kStripCells / size_t(params.band + 1)) & ~31);
  const int strips = (iw + widest - 1) / widest;
  const int strip_width = std::min(iw, ((iw + strips - 1) / strips + 31) & ~31);
  const size_t cells = size_t(std::min(iw, strip_width)) * size_t(params.band + 1);
  auto body = [&](size_t begin, size_t end) {
    std::vector<uint16_t> storage = cell_pool().take(cells);
    for (size_t c = begin; c < end; ++c) {
      int r0 = int(c) * chunk, r1 = std::min(ih, r0 + chunk);
      for (int x0 = 0; x0 < iw; x0 += strip_width) {
        const int x1 = std::min(iw, x0 + strip_width);
        const Strip strip{x0, x1, std::max(0, x0 - pad), std::min(iw, x1 + pad)};
        c_value_rows(levels, iw, ih, pad, params, contrasts, strip, r0, r1, storage.data(), out);
      }
    }
    cell_pool().give(std::move(storage));
  };
  if (pool && chunks > 1)
    pool->parallel_for(chunks, 1, body);
  else
    body(0, chunks);
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
